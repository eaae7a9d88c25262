package resources_test

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/vocab"
)

func planDeployment(role, name, image, replicas, extra string) *yaml.RNode {
	return yaml.MustParse(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: ` + name + `
  annotations: {config.kubernetes.io/merge-source: ` + role + `, internal.config.kubernetes.io/path: ` + role + `/d.yaml}
spec:
  replicas: ` + replicas + `
  template:
    spec:
      containers:
      - name: app
        image: ` + image + `
` + extra)
}

func planCM(role, name, v string) *yaml.RNode {
	return yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name +
		"\n  annotations: {config.kubernetes.io/merge-source: " + role + ", internal.config.kubernetes.io/path: " + role + "/" + name + ".yaml}\ndata: {k: '" + v + "'}\n")
}

// lines renders results as "severity path: message".
func lines(rs framework.Results) []string {
	var out []string
	for _, r := range rs {
		p := ""
		if r.Field != nil {
			p = " " + r.Field.Path
		}
		name := ""
		if r.ResourceRef != nil {
			name = " " + r.ResourceRef.Name
		}
		out = append(out, fmt.Sprintf("%s%s%s: %s", r.Severity, name, p, r.Message))
	}
	return out
}

// planOf runs a plan (Options.Plan) of items in mode and returns its results.
func planOf(t *testing.T, mode vocab.Mode, items ...*yaml.RNode) framework.Results {
	t.Helper()
	s := defaults()
	s.run.Roles.Mode, s.run.Plan = mode, true
	return mergeItems(t, s, items...).Results
}

func TestPlanThreeWay(t *testing.T) {
	sidecar := "      - name: log\n        image: fluentbit:2\n"
	got := lines(planOf(t, vocab.ThreeWay,
		planDeployment("original", "web", "web:1", "1", ""),
		planDeployment("updated", "web", "web:2", "2", sidecar),
		planDeployment("dest", "web", "web:1", "5", ""),
		planCM("original", "gone", "a"), planCM("dest", "gone", "a"),
		planCM("updated", "new", "b"),
		planCM("dest", "mine", "c"),
	))
	want := []string{
		"info: 3way plan, nothing written: 1 merged (1 would change), 1 added, 1 deleted, 1 kept, 1 conflicts; fields: 1 changed, 1 added, 0 deleted, 0 reordered",
		`info web spec.template.spec.containers[name=app].image: 3way plan: would change this field: web:1 -> web:2`,
		`info web spec.template.spec.containers[name=log]: 3way plan: would add {"image":"fluentbit:2","name":"log"}`,
		"warning web spec.replicas: conflict: changed on both sides (original 1, updated 2, dest 5); updated wins",
		"info new: 3way plan: would add this resource",
		"info gone: 3way plan: would delete this resource (deleted upstream)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plan\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestPlanValuesAndFiles(t *testing.T) {
	rs := planOf(t, vocab.ThreeWay, planCM("original", "x", "1"), planCM("updated", "x", "2"), planCM("dest", "x", "1"))
	if len(rs) != 2 {
		t.Fatalf("results %q", lines(rs))
	}
	f := rs[1]
	if f.Field.Path != "data.k" || f.Field.CurrentValue != "1" || f.Field.ProposedValue != "2" || f.File == nil || f.File.Path != "dest/x.yaml" {
		t.Errorf("field result %+v field %+v file %+v", f, f.Field, f.File)
	}
}

func TestPlanTwoWayNoChange(t *testing.T) {
	got := lines(planOf(t, vocab.TwoWay, planCM("src", "x", "1"), planCM("dest", "x", "1")))
	want := []string{"info: 2way plan, nothing written: 1 merged (0 would change), 0 added, 0 deleted, 0 kept, 0 conflicts; fields: 0 changed, 0 added, 0 deleted, 0 reordered"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plan %q", got)
	}
}
