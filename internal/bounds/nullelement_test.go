package bounds

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestHasNullElement: a null element counts only in a list of primitives, at any depth;
// a list with an alias element is not one, as for the merges.
func TestHasNullElement(t *testing.T) {
	for src, want := range map[string]bool{
		"a: [1, null, 2]\n":          true,
		"a: {b: [x, ~]}\n":           true,
		"a: [1, {b: null}]\n":        false,
		"a: null\nb: [1, 2]\n":       false,
		"n: &n null\nl: [1, *n]\n":   false,
		"l: [[null], 1]\n":           true,
		"l:\n- name: x\n  v: null\n": false,
	} {
		if got := HasNullElement(yaml.MustParse(src).YNode()); got != want {
			t.Errorf("%q: %v, want %v", src, got, want)
		}
	}
	if HasNullElement(nil) {
		t.Error("nil holds a null element")
	}
}
