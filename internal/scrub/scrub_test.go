package scrub

import (
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
