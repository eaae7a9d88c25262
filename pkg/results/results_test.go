package results

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestValueOfADeepValue: a value nested 9,990 levels deep (valid YAML, under the
// parser's 10,000) is not put into a result as is, where the result's own levels would
// take it past the limit and fail the whole output; shallow values are shown.
func TestValueOfADeepValue(t *testing.T) {
	deep := yaml.MustParse(strings.Repeat("[", 9990) + strings.Repeat("]", 9990))
	if v, ok := Value(deep).(string); !ok || !strings.Contains(v, "not shown") {
		t.Fatalf("deep value shown: %T", Value(deep))
	}
	edge := yaml.MustParse(strings.Repeat("[", MaxValueDepth) + strings.Repeat("]", MaxValueDepth))
	if _, ok := Value(edge).([]interface{}); !ok {
		t.Fatalf("value %d levels deep not shown: %v", MaxValueDepth, Value(edge))
	}
	if v := Value(yaml.MustParse("{a: [1, {b: c}]}")); v == nil {
		t.Fatal("shallow value lost")
	}
	r := Conflict("warning", nil, "", 0, "spec", "changed on both sides", Value(deep), "x")
	b, err := yaml.Marshal(r)
	if err == nil {
		_, err = yaml.Parse(string(b))
	}
	if err != nil {
		t.Fatalf("result with a deep value does not round-trip: %v", err)
	}
}

// A conflict on a whole resource names no field: its result has no `field` (an empty
// `field: {}` said nothing and looked like a field whose path was lost); a field
// conflict keeps its path and values.
func TestResourceConflictHasNoField(t *testing.T) {
	ref := &yaml.ResourceIdentifier{TypeMeta: yaml.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, NameMeta: yaml.NameMeta{Name: "x"}}
	r := Conflict("warning", ref, "cm.yaml", 0, "", "ConfigMap x was deleted upstream but changed locally; updated wins", nil, nil)
	if r.Field != nil {
		t.Errorf("resource-level conflict has a field: %+v", r.Field)
	}
	b, err := yaml.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "field") {
		t.Errorf("resource-level conflict result mentions a field:\n%s", b)
	}
	f := Conflict("warning", ref, "cm.yaml", 0, "data.a", "changed on both sides", "1", "2")
	if f.Field == nil || f.Field.Path != "data.a" || f.Field.CurrentValue != "1" || f.Field.ProposedValue != "2" {
		t.Errorf("field conflict: %+v", f.Field)
	}
}
