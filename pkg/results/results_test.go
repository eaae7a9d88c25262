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
