package apply

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// mustApply applies config onto live (YAML texts) and fails the test on error.
func mustApply(t *testing.T, live, config string) *Result {
	t.Helper()
	res, err := Apply(yaml.MustParse(live), yaml.MustParse(config), Options{})
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return res
}

// jsonOf prints n and reads it back as kubectl would read the file (sigs.k8s.io/yaml),
// so a test sees what the output means, not how the projection built it.
func jsonOf(t *testing.T, n *yaml.RNode) map[string]interface{} {
	t.Helper()
	b, err := sigsyaml.YAMLToJSON([]byte(n.MustString()))
	if err != nil {
		t.Fatalf("output is not YAML: %v\n%s", err, n.MustString())
	}
	var m map[string]interface{}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// get walks a decoded JSON value along map keys; list elements by "name=value" or
// by position "#i".
func get(v interface{}, path ...string) (interface{}, bool) {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]interface{}:
			var ok bool
			if v, ok = x[p]; !ok {
				return nil, false
			}
		case []interface{}:
			found := false
			if k, val, ok := strings.Cut(p, "="); ok {
				for _, e := range x {
					if m, isMap := e.(map[string]interface{}); isMap && scalarText(m[k]) == val {
						v, found = e, true
						break
					}
				}
			}
			if !found {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return v, true
}

func mustGet(t *testing.T, v interface{}, path ...string) interface{} {
	t.Helper()
	got, ok := get(v, path...)
	if !ok {
		t.Fatalf("%s: absent", strings.Join(path, "."))
	}
	return got
}

func wantAbsent(t *testing.T, v interface{}, path ...string) {
	t.Helper()
	if got, ok := get(v, path...); ok {
		t.Errorf("%s: want absent, got %v", strings.Join(path, "."), got)
	}
}

func wantValue(t *testing.T, v interface{}, want interface{}, path ...string) {
	t.Helper()
	got := mustGet(t, v, path...)
	// compare through JSON so that numbers and nested values compare by meaning
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	var g, w interface{}
	_ = json.Unmarshal(gb, &g)
	_ = json.Unmarshal(wb, &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: got %s, want %s", strings.Join(path, "."), gb, wb)
	}
}

// names lists the name fields of a list of maps.
func names(t *testing.T, v interface{}, path ...string) []string {
	t.Helper()
	l, ok := mustGet(t, v, path...).([]interface{})
	if !ok {
		t.Fatalf("%s is not a list", strings.Join(path, "."))
	}
	var out []string
	for _, e := range l {
		out = append(out, scalarText(e.(map[string]interface{})["name"]))
	}
	return out
}

// planLines renders a plan as "op path" lines.
func planLines(p Plan) []string {
	var out []string
	for _, c := range p {
		out = append(out, string(c.Op)+" "+c.Path.String())
	}
	return out
}
