package config

import (
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldrules"
	"github.com/krm-merge/krm-merge/pkg/schema"
)

// TestLoadTables: mergeKeys and fieldRules read the same in both forms (native YAML in
// the typed form, YAML or JSON text in the ConfigMap).
func TestLoadTables(t *testing.T) {
	const mk = `[{group: monitoring.coreos.com, kind: ServiceMonitor, path: spec.endpoints, listType: map, keys: [port, path]}, {kind: Widget, path: spec.tags, listType: set}]`
	const fr = `[{match: {kind: Deployment, labelSelector: "app=web"}, paths: [spec.replicas, "spec.template.spec.containers[name=app].image"], policy: keepDest}, {paths: [status], policy: ignore}]`
	for name, text := range map[string]string{
		"typed":          typed("mergeKeys: " + mk + "\nfieldRules: " + fr),
		"ConfigMap YAML": cm("mergeKeys", mk, "fieldRules", fr),
		"ConfigMap JSON": cm("mergeKeys", `[{"group":"monitoring.coreos.com","kind":"ServiceMonitor","path":"spec.endpoints","listType":"map","keys":["port","path"]},{"kind":"Widget","path":"spec.tags","listType":"set"}]`,
			"fieldRules", `[{"match":{"kind":"Deployment","labelSelector":"app=web"},"paths":["spec.replicas","spec.template.spec.containers[name=app].image"],"policy":"keepDest"},{"paths":["status"],"policy":"ignore"}]`),
	} {
		t.Run(name, func(t *testing.T) {
			c := mustLoad(t, text)
			if len(c.MergeKeys) != 2 {
				t.Fatalf("mergeKeys %+v", c.MergeKeys)
			}
			m := c.MergeKeys[0]
			if m.Group != "monitoring.coreos.com" || m.Kind != "ServiceMonitor" || strings.Join(m.Path, ".") != "spec.endpoints" ||
				m.List.Type != schema.Map || strings.Join(m.List.Keys, ",") != "port,path" || !m.List.Wildcard {
				t.Errorf("mergeKeys[0] = %+v", m)
			}
			if c.MergeKeys[1].List.Type != schema.Set || c.MergeKeys[1].Group != "" {
				t.Errorf("mergeKeys[1] = %+v", c.MergeKeys[1])
			}
			if len(c.FieldRules) != 2 {
				t.Fatalf("fieldRules %+v", c.FieldRules)
			}
			r := c.FieldRules[0]
			if r.Policy != fieldrules.KeepDest || r.Match.Kind != "Deployment" || len(r.Paths) != 2 ||
				r.Paths[1].String() != "spec.template.spec.containers[name=app].image" || r.Source != "fieldRules[0]" {
				t.Errorf("fieldRules[0] = %+v", r)
			}
			web := yaml.MustParse("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x, labels: {app: web}}\n")
			api := yaml.MustParse("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x, labels: {app: api}}\n")
			if !r.Match.Matches(web) || r.Match.Matches(api) {
				t.Error("labelSelector not applied")
			}
			if c.FieldRules[1].Policy != fieldrules.Ignore || !c.FieldRules[1].Match.Matches(api) {
				t.Errorf("fieldRules[1] = %+v", c.FieldRules[1])
			}
		})
	}
}

// TestLoadTableErrors: each problem names its field, in both forms.
func TestLoadTableErrors(t *testing.T) {
	for _, c := range []struct {
		name, body, field, msg string
	}{
		{"unknown listType", `mergeKeys: [{kind: A, path: spec.x, listType: list}]`, "mergeKeys[0].listType", `listType "list" is invalid; valid values: map, set, atomic`},
		{"map without keys", `mergeKeys: [{kind: A, path: spec.x, listType: map}]`, "mergeKeys[0].keys", "keys is required with listType map"},
		{"keys with set", `mergeKeys: [{kind: A, path: spec.x, listType: set, keys: [a]}]`, "mergeKeys[0].keys", "only for listType map"},
		{"bad path", `mergeKeys: [{kind: A, path: "spec..x", listType: atomic}]`, "mergeKeys[0].path", "empty field name"},
		{"selector in a mergeKeys path", `mergeKeys: [{kind: A, path: "spec.x[name=a]", listType: atomic}]`, "mergeKeys[0].path", "without [..] selectors"},
		{"missing kind", `mergeKeys: [{path: spec.x, listType: atomic}]`, "mergeKeys[0].kind", "kind is required"},
		{"unknown entry key", `mergeKeys: [{kind: A, path: spec.x, listType: atomic, key: [a]}]`, "mergeKeys[0].key", `unknown key "key"`},
		{"duplicate keys", `mergeKeys: [{kind: A, path: spec.x, listType: map, keys: [a, a]}]`, "mergeKeys[0].keys", `lists "a" twice`},
		{"not a list", `mergeKeys: {kind: A}`, "mergeKeys", "must be a list"},
		{"empty list", `mergeKeys: []`, "mergeKeys", "at least one entry"},
		{"unknown policy", `fieldRules: [{paths: [spec.replicas], policy: keepdest}]`, "fieldRules[0].policy", `did you mean "keepDest"?`},
		{"missing paths", `fieldRules: [{policy: ignore}]`, "fieldRules[0].paths", "paths is required"},
		{"bad rule path", `fieldRules: [{paths: ["spec.c[name=a"], policy: ignore}]`, "fieldRules[0].paths[0]", "not closed"},
		{"positional selector", `fieldRules: [{paths: ["spec.args[1]"], policy: ignore}]`, "fieldRules[0].paths[0]", "positional selector"},
		{"bad labelSelector", `fieldRules: [{match: {labelSelector: "a in (b"}, paths: [x], policy: ignore}]`, "fieldRules[0].match.labelSelector", "labelSelector"},
		{"unknown match key", `fieldRules: [{match: {labels: {a: b}}, paths: [x], policy: ignore}]`, "fieldRules[0].match.labels", `unknown key "labels"`},
		{"apply mode", "mode: apply\nfieldRules: [{paths: [x], policy: ignore}]", "fieldRules", "does not apply in apply mode"},
	} {
		for _, form := range []string{"spec", "data"} {
			t.Run(c.name+" "+form, func(t *testing.T) {
				text := typed(c.body)
				if form == "data" {
					var kv []string
					for _, line := range strings.Split(c.body, "\n") {
						k, v, _ := strings.Cut(line, ": ")
						kv = append(kv, k, v)
					}
					text = cm(kv...)
				}
				_, err := Load(yaml.MustParse(text))
				var all Errors
				if !errors.As(err, &all) {
					t.Fatalf("got %v", err)
				}
				if all[0].Field != form+"."+c.field || !strings.Contains(all[0].Message, c.msg) {
					t.Errorf("got %s: %s\nwant %s.%s: ...%s...", all[0].Field, all[0].Message, form, c.field, c.msg)
				}
			})
		}
	}
	t.Run("ConfigMap value that is a YAML list, not a string", func(t *testing.T) {
		_, err := Load(yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  mergeKeys:\n  - {kind: A, path: x, listType: atomic}\n"))
		if err == nil || !strings.Contains(err.Error(), "write the table as YAML or JSON text, e.g. '[{group:") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("ConfigMap text that is not YAML", func(t *testing.T) {
		_, err := Load(yaml.MustParse(cm("fieldRules", "[{paths: [x]")))
		if err == nil || !strings.Contains(err.Error(), "fieldRules is not a YAML or JSON list") {
			t.Fatalf("got %v", err)
		}
	})
}
