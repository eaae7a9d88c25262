package render

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestRender: each form, for nodes and plain values.
func TestRender(t *testing.T) {
	long := strings.Repeat("x", 100)
	list := yaml.MustParse("- a # c\n- {b: 1}\n")
	var absent *yaml.RNode
	for _, c := range []struct {
		name string
		v    interface{}
		f    Form
		want string
	}{
		{"absent node", absent, Whole, "<absent>"},
		{"absent node, short", absent, Short, "<absent>"},
		{"scalar node", yaml.NewScalarRNode("1.0"), Long, "1.0"},
		{"list node whole: folded YAML", list, Whole, "- a # c - {b: 1}"},
		{"list node short: JSON", list, Short, `["a",{"b":1}]`},
		{"long scalar node short: cut at 60", yaml.NewScalarRNode(long), Short, long[:57] + "..."},
		{"plain nil", nil, Whole, "null"},
		{"plain number", 1.5, Whole, "1.5"},
		{"plain map", map[string]interface{}{"b": []interface{}{1, "x"}, "a": true}, Whole, `{"a":true,"b":[1,"x"]}`},
		{"plain string long: cut at 80", long, Long, long[:77] + "..."},
		{"plain string whole: not cut", long, Whole, long},
		{"plain string short: cut inside no rune", strings.Repeat("é", 40), Short, strings.Repeat("é", 28) + "..."},
	} {
		if got := Render(c.v, c.f); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
