package results

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
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
	r := withValues(At{Path: "spec"}.result("warning", "conflict: changed on both sides"), Value(deep), "x")
	b, err := yaml.Marshal(r)
	if err == nil {
		_, err = yaml.Parse(string(b))
	}
	if err != nil {
		t.Fatalf("result with a deep value does not round-trip: %v", err)
	}
}

// A result about a whole resource names no field: no `field: {}` in the output.
func TestWholeResourceResultsNameNoField(t *testing.T) {
	for _, r := range []*framework.Result{
		DeletedUpstreamChangedLocally(At{File: "dest/a.yaml"}, "ConfigMap a", UpdatedWins),
		StayedDeleted(At{Path: "spec"}, "ConfigMap a"),
		PlanAdd(At{Path: "spec"}, "3way"),
		PlanDelete(At{}, "3way"),
		ApplyRefusedObject(At{Path: "x"}, "kubectl says no"),
		ApplyCreate(At{}),
	} {
		if r.Field != nil {
			t.Errorf("%q names a field: %+v", r.Message, r.Field)
		}
		b, err := yaml.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "field: {}") {
			t.Errorf("%q is written with an empty field:\n%s", r.Message, b)
		}
	}
}
