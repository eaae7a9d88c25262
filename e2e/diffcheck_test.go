package e2e

import (
	"strings"
	"testing"
)

// The fidelity check must pass a faithful merge and catch the damage a merge can do.
// Needs neither kpt nor the real data.
func TestDiffCheckCatchesDamage(t *testing.T) {
	original := map[string]string{"app.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    app.kubernetes.io/version: 1.0.0
  name: app
spec:
  template:
    spec:
      containers:
      - args:
        - --port=8080
        image: example/app:1.0.0
        name: app
`}
	updated := map[string]string{"app.yaml": strings.NewReplacer(
		"1.0.0", "1.1.0",
		"        - --port=8080\n", "        - --port=8080\n        - --metrics\n",
	).Replace(original["app.yaml"])}
	// dest: replicas and a comment added, the image mirrored (a conflict), plus a local file.
	before := map[string]string{
		"app.yaml": strings.NewReplacer(
			"spec:\n  template:", "spec:\n  replicas: 3 # prod\n  template:",
			"image: example/app:1.0.0", "image: mirror.example.com/app:1.0.0",
		).Replace(original["app.yaml"]),
		"local.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\n",
	}
	// A faithful merge: upstream's changes arrive, the mirrored image loses the conflict.
	good := map[string]string{
		"app.yaml": strings.NewReplacer(
			"image: mirror.example.com/app:1.0.0", "image: example/app:1.1.0",
			"1.0.0", "1.1.0",
			"        - --port=8080\n", "        - --port=8080\n        - --metrics\n",
		).Replace(before["app.yaml"]),
		"local.yaml": before["local.yaml"],
	}
	if problems, _, _ := diffProblems("dest", original, updated, before, good); len(problems) > 0 {
		t.Fatalf("a faithful merge was flagged:\n%s", strings.Join(problems, "\n"))
	}
	// With valueMerge the mirror stays and upstream's tag arrives: a line neither side
	// has, for the field upstream changed, in place of dest's.
	merged := map[string]string{"app.yaml": strings.Replace(good["app.yaml"], "image: example/app:1.1.0", "image: mirror.example.com/app:1.1.0", 1),
		"local.yaml": good["local.yaml"]}
	if problems, _, _ := diffProblems("dest", original, updated, before, merged); len(problems) > 0 {
		t.Fatalf("a value merged inside was flagged:\n%s", strings.Join(problems, "\n"))
	}
	for name, damage := range map[string]func(map[string]string){
		"comment lost": func(m map[string]string) { m["app.yaml"] = strings.Replace(m["app.yaml"], " # prod", "", 1) },
		"customisation lost": func(m map[string]string) {
			m["app.yaml"] = strings.Replace(m["app.yaml"], "replicas: 3", "replicas: 1", 1)
		},
		"value re-quoted": func(m map[string]string) {
			m["app.yaml"] = strings.Replace(m["app.yaml"], "name: app\n", "name: \"app\"\n", 1)
		},
		"sequence re-indented": func(m map[string]string) {
			m["app.yaml"] = strings.Replace(m["app.yaml"], "      - args:", "        - args:", 1)
		},
		"local file touched": func(m map[string]string) { m["local.yaml"] += "data: {}\n" },
		"local file deleted": func(m map[string]string) { delete(m, "local.yaml") },
	} {
		bad := map[string]string{}
		for k, v := range good {
			bad[k] = v
		}
		damage(bad)
		if problems, _, _ := diffProblems("dest", original, updated, before, bad); len(problems) == 0 {
			t.Errorf("%s: not detected", name)
		}
	}
}
