package function_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// An identity override never pairs different kinds: an upstream ConfigMap carrying kpt's
// `internal.kpt.dev/upstream-identifier: '|Secret|default|db-creds'` paired with the
// user's Secret, and the Secret came out as a ConfigMap still holding data.password
// (two warnings, exit 0). The override is ignored with a warning naming the item and
// its file, and the items stay apart.
func TestOverrideAcrossKindsIsIgnored(t *testing.T) {
	cm := func(role, value string) string {
		return "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: settings\n    namespace: default\n    annotations:\n" +
			"      config.kubernetes.io/merge-source: " + role + "\n      internal.config.kubernetes.io/path: " + role + "/cm.yaml\n" +
			"      internal.kpt.dev/upstream-identifier: '|Secret|default|db-creds'\n  data: {mode: " + value + "}\n"
	}
	in := rlHead + "items:\n" + cm("original", "a") + cm("updated", "b") +
		"- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: db-creds\n    namespace: default\n    annotations:\n" +
		"      config.kubernetes.io/merge-source: dest\n      internal.config.kubernetes.io/path: dest/secret.yaml\n" +
		"  data: {password: aHVudGVyMg==}\n"
	rl, err := runStdin(t, in)
	if err != nil {
		t.Fatalf("%v\n%s", err, resultsOf(rl))
	}
	var secret *yaml.RNode
	for _, it := range items(t, rl) {
		if it.GetName() == "db-creds" {
			secret = it
		}
	}
	if secret == nil || secret.GetKind() != "Secret" {
		t.Fatalf("the user's Secret did not survive as a Secret:\n%s", rl.MustString())
	}
	if pw, _ := secret.Pipe(yaml.Lookup("data", "password")); pw == nil || pw.YNode().Value != "aHVudGVyMg==" {
		t.Errorf("the Secret's password changed:\n%s", secret.MustString())
	}
	if m, _ := secret.Pipe(yaml.Lookup("data", "mode")); m != nil {
		t.Errorf("the ConfigMap's data reached the Secret:\n%s", secret.MustString())
	}
	res := resultsOf(rl)
	if !strings.Contains(res, "identity override") || !strings.Contains(res, "ignored") ||
		!strings.Contains(res, "name: settings") || !strings.Contains(res, "path: original/cm.yaml") {
		t.Errorf("no warning naming the ConfigMap, its file and the ignored override:\n%s", res)
	}
}
