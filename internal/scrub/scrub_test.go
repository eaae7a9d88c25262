package scrub

import (
	"fmt"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Control characters but the newline, and bytes that are not UTF-8, are written as Go
// escapes; other text, non-ASCII letters included, is kept.
func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"plain: ü\nnext line":    "plain: ü\nnext line",
		"key \x1b[31mred":        `key \x1b[31mred`,
		"tab\there\r":            `tab\there\r`,
		"bad \xff byte":          `bad \xff byte`,
		"del \u007f, nel \u0085": `del \x7f, nel \u0085`,
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

// Results scrubs message, file and field paths in place, drops a resourceRef holding a
// control character, keeps a clean one, and skips nil entries.
func TestResults(t *testing.T) {
	clean := &yaml.ResourceIdentifier{TypeMeta: yaml.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, NameMeta: yaml.NameMeta{Name: "a"}}
	rs := framework.Results{
		nil,
		{Message: "m\x1b", File: &framework.File{Path: "f\x07.yaml"}, Field: &framework.Field{Path: "data.k\x1b"},
			ResourceRef: &yaml.ResourceIdentifier{TypeMeta: yaml.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, NameMeta: yaml.NameMeta{Name: "a\x1b"}}},
		{Message: "ok", ResourceRef: clean},
	}
	Results(rs)
	if r := rs[1]; r.Message != `m\x1b` || r.File.Path != `f\a.yaml` || r.Field.Path != `data.k\x1b` || r.ResourceRef != nil {
		t.Errorf("scrubbed: %+v", r)
	}
	if r := rs[2]; r.Message != "ok" || r.ResourceRef != clean {
		t.Errorf("clean result changed: %+v", r)
	}
}

// Characters that are not graphic, though not control characters, act on a terminal or
// on how a person reads it: bidi overrides (U+202E turns the rest of a line around), the
// line and paragraph separators (U+2028, U+2029), tag characters (U+E0041...); they are
// escaped as `pkg update` escapes its output (Escape). So are the
// strings of a result's values and a resourceRef's fields.
func TestNonGraphicCharacters(t *testing.T) {
	for in, want := range map[string]string{
		"a\u202eb":                `a\u202eb`,
		"line\u2028sep\u2029":     `line\u2028sep\u2029`,
		"tag\U000E0041\U000E007F": `tag\U000e0041\U000e007f`,
		"keep: é, 漢字, 🙂, a b\n":   "keep: é, 漢字, 🙂, a b\n",
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	rs := framework.Results{{Message: "m",
		ResourceRef: &yaml.ResourceIdentifier{TypeMeta: yaml.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, NameMeta: yaml.NameMeta{Name: "a\u202eb"}},
		Field:       &framework.Field{Path: "data.k", CurrentValue: "x\u202ey", ProposedValue: map[string]interface{}{"k\u2028": []interface{}{"v\x1b", 1}}}}}
	Results(rs)
	r := rs[0]
	if r.ResourceRef == nil || r.ResourceRef.Name != `a\u202eb` {
		t.Errorf("resourceRef %+v", r.ResourceRef)
	}
	if r.Field.CurrentValue != `x\u202ey` {
		t.Errorf("currentValue %q", r.Field.CurrentValue)
	}
	if p, ok := r.Field.ProposedValue.(map[string]interface{}); !ok || fmt.Sprint(p[`k\u2028`]) != `[v\x1b 1]` {
		t.Errorf("proposedValue %#v", r.Field.ProposedValue)
	}
}
