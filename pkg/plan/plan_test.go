package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/listkind"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/plan"
	"github.com/krm-merge/krm-merge/pkg/resources"
	"github.com/krm-merge/krm-merge/pkg/roles"
)

func deployment(role, name, image, replicas, extra string) *yaml.RNode {
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

func cm(role, name, v string) *yaml.RNode {
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

func run(t *testing.T, cfg *config.Config, items ...*yaml.RNode) framework.Results {
	t.Helper()
	assigned, err := roles.Assign(items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	lists := listkind.New(true, listkind.SeedKeys)
	out, err := resources.Merge(assigned, cfg, merge.Options{Lists: lists})
	if err != nil {
		t.Fatal(err)
	}
	return plan.ForMerge(out, cfg, lists)
}

func TestForMergeThreeWay(t *testing.T) {
	sidecar := "      - name: log\n        image: fluentbit:2\n"
	got := lines(run(t, config.Defaults(),
		deployment("original", "web", "web:1", "1", ""),
		deployment("updated", "web", "web:2", "2", sidecar),
		deployment("dest", "web", "web:1", "5", ""),
		cm("original", "gone", "a"), cm("dest", "gone", "a"),
		cm("updated", "new", "b"),
		cm("dest", "mine", "c"),
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

func TestForMergeValuesAndFiles(t *testing.T) {
	rs := run(t, config.Defaults(), cm("original", "x", "1"), cm("updated", "x", "2"), cm("dest", "x", "1"))
	if len(rs) != 2 {
		t.Fatalf("results %q", lines(rs))
	}
	f := rs[1]
	if f.Field.Path != "data.k" || f.Field.CurrentValue != "1" || f.Field.ProposedValue != "2" || f.File == nil || f.File.Path != "dest/x.yaml" {
		t.Errorf("field result %+v field %+v file %+v", f, f.Field, f.File)
	}
}

func TestForMergeTwoWayNoChange(t *testing.T) {
	cfg := config.Defaults()
	cfg.Mode = config.Mode2Way
	got := lines(run(t, cfg, cm("src", "x", "1"), cm("dest", "x", "1")))
	want := []string{"info: 2way plan, nothing written: 1 merged (0 would change), 0 added, 0 deleted, 0 kept, 0 conflicts; fields: 0 changed, 0 added, 0 deleted, 0 reordered"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plan %q", got)
	}
}

func TestDiffKeyedSetAndReorder(t *testing.T) {
	cur := map[string]interface{}{
		"ports": []interface{}{
			map[string]interface{}{"containerPort": 80, "protocol": "TCP"},
			map[string]interface{}{"containerPort": 53, "protocol": "UDP"},
		},
		"finalizers": []interface{}{"a", "b"},
	}
	prop := map[string]interface{}{
		"ports": []interface{}{
			map[string]interface{}{"containerPort": 53, "protocol": "UDP"},
			map[string]interface{}{"containerPort": 80, "protocol": "TCP", "name": "http"},
		},
		"finalizers": []interface{}{"b", "c"},
	}
	meta := listsMeta{"ports": {Keys: []string{"containerPort", "protocol"}}, "finalizers": {Set: true}}
	var got []string
	for _, c := range plan.Diff(cur, prop, nil, false, plan.Options{Meta: meta}) {
		got = append(got, fmt.Sprintf("%s %s", c.Op, c.Path))
	}
	want := []string{"delete finalizers[=a]", "add finalizers[=c]", "add ports[containerPort=80,protocol=TCP].name", "reorder ports"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("changes\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

type listsMeta map[string]plan.List

func (m listsMeta) Field(string) plan.Meta                         { return nil }
func (m listsMeta) List(name string, _, _ []interface{}) plan.List { return m[name] }
