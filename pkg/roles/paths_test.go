package roles

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/vocab"
)

func TestCheckPath(t *testing.T) {
	for p, want := range map[string]PathFault{
		"":               "",
		".":              "",
		"a/b.yaml":       "",
		`a\b.yaml`:       "",
		"a/../b.yaml":    "",
		"./x":            "",
		"..x/y":          "", // a name that starts with two dots
		"..":             PathOutside,
		"../x":           PathOutside,
		"a/../../x":      PathOutside,
		`u\..\..`:        PathOutside,
		`..\x`:           PathOutside,
		`.\..\x`:         PathOutside,
		"/etc/x":         PathAbsolute,
		`\x`:             PathAbsolute,
		`\\host\share\x`: PathAbsolute,
		`C:\x`:           PathAbsolute,
		"C:x":            PathAbsolute,
		"a\x00b":         PathControl,
		"a\nb":           PathControl,
		"\x1b[31mx":      PathControl,
		"a\x7f":          PathControl,
		"a\u0085":        PathControl,
		"a\xffb":         PathControl, // not UTF-8
		"/a\x00":         PathControl, // the control character is named first
	} {
		if got := CheckPath(p); got != want {
			t.Errorf("CheckPath(%q) = %q, want %q", p, got, want)
		}
	}
}

// itemError runs Assign and returns its *vocab.ItemError, failing t on anything else.
func itemError(t *testing.T, items []*yaml.RNode, opts Options) *vocab.ItemError {
	t.Helper()
	_, err := Assign(items, opts)
	var ie *vocab.ItemError
	if !errors.As(err, &ie) {
		t.Fatalf("Assign: %v, want a *vocab.ItemError", err)
	}
	return ie
}

// A path annotation with a control character is refused on every item, with or without
// a role, under both annotation keys, naming the item, the annotation, and the value
// quoted (never the raw bytes, which a terminal would interpret).
func TestPathAnnotationControlCharacter(t *testing.T) {
	for _, key := range []string{"internal.config.kubernetes.io/path", "config.kubernetes.io/path"} {
		for _, role := range []string{"", "dest"} {
			for _, bad := range []string{"a\x00.yaml", "a\n.yaml", "\x1b]0;x\x07.yaml", "a\u009b.yaml"} {
				annos := key + ": " + strconv.Quote(bad)
				if role != "" {
					annos += ", config.kubernetes.io/merge-source: " + role
				}
				n := node(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, annotations: {"+annos+"}}\n")
				ie := itemError(t, []*yaml.RNode{n}, defaults())
				name := key + " " + strconv.Quote(bad) + " role " + role
				if ie.Field != "metadata.annotations."+key || ie.Resource == nil || ie.Resource.Name != "x" {
					t.Errorf("%s: field %q resource %+v", name, ie.Field, ie.Resource)
				}
				if !strings.Contains(ie.Msg, strconv.Quote(bad)) || !strings.Contains(ie.Msg, "control character") {
					t.Errorf("%s: message %q", name, ie.Msg)
				}
				if strings.ContainsFunc(ie.Error(), func(r rune) bool { return r < 0x20 || (r >= 0x7f && r < 0xa0) }) {
					t.Errorf("%s: the error holds a control character: %q", name, ie.Error())
				}
			}
		}
	}
}

// An item with a role whose path is absolute or leaves the package root (backslashes
// read as separators) is refused: its path would reach the output (an added item keeps
// its source's path when no directory rebases it) and kpt would fail or write outside
// the package. An item without a role passes through as the host gave it.
func TestPathAnnotationOutsideThePackage(t *testing.T) {
	for _, bad := range []string{"../x.yaml", "/etc/x.yaml", `u\..\..\x.yaml`, `C:\x.yaml`, "a/../../x.yaml"} {
		for _, key := range []string{"internal.config.kubernetes.io/path", "config.kubernetes.io/path"} {
			annos := key + ": " + strconv.Quote(bad)
			role := node(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, annotations: {"+annos+", config.kubernetes.io/merge-source: updated}}\n")
			ie := itemError(t, []*yaml.RNode{role}, defaults())
			if ie.Field != "metadata.annotations."+key || !strings.Contains(ie.Msg, strconv.Quote(bad)) ||
				!strings.Contains(ie.Msg, string(CheckPath(bad))) {
				t.Errorf("%s %q: field %q message %q", key, bad, ie.Field, ie.Msg)
			}
			none := node(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, annotations: {"+annos+"}}\n")
			if _, err := Assign([]*yaml.RNode{none}, defaults()); err != nil {
				t.Errorf("%s %q on an item without a role: %v", key, bad, err)
			}
		}
	}
	// Path selection with destPath "." takes every path, also one that leaves the root.
	opts := defaults()
	opts.OriginalDir, opts.UpdatedDir, opts.DestDir = "o", "u", "."
	ie := itemError(t, []*yaml.RNode{at(t, "ConfigMap", "x", "../x.yaml")}, opts)
	if ie.Field != "metadata.annotations.internal.config.kubernetes.io/path" || !strings.Contains(ie.Msg, "leaves the package root") {
		t.Errorf("dest by path ../x.yaml: %v", ie)
	}
}

// Inline sources are checked like input items with a role, and the error names the
// inline item (spec.<role>[i]) and the annotation: kpt fails the whole eval on an added
// item whose path leaves the package, so an inline item keeps no such path.
func TestInlinePathAnnotations(t *testing.T) {
	for _, bad := range []string{"../../x.yaml", "/x.yaml", `a\..\..\x.yaml`, "x\x00.yaml", `\\h\s\x.yaml`} {
		for _, role := range []vocab.Role{vocab.Original, vocab.Updated, vocab.Src} {
			opts := defaults()
			inline := []*yaml.RNode{
				node(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok, annotations: {config.kubernetes.io/path: app/ok.yaml}}\n"),
				node(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, annotations: {config.kubernetes.io/path: "+strconv.Quote(bad)+"}}\n"),
			}
			switch role {
			case vocab.Original:
				opts.Original, opts.Updated = inline, []*yaml.RNode{}
			case vocab.Updated:
				opts.Original, opts.Updated = []*yaml.RNode{}, inline
			case vocab.Src:
				opts.Mode, opts.Src = vocab.TwoWay, inline
			}
			ie := itemError(t, nil, opts)
			name := string(role) + " " + strconv.Quote(bad)
			if ie.File != "functionConfig spec."+string(role)+"[1]" || ie.Field != "metadata.annotations.config.kubernetes.io/path" ||
				ie.Resource == nil || ie.Resource.Name != "x" {
				t.Errorf("%s: file %q field %q resource %+v", name, ie.File, ie.Field, ie.Resource)
			}
			if !strings.Contains(ie.Msg, strconv.Quote(bad)) || !strings.Contains(ie.Msg, string(CheckPath(bad))) {
				t.Errorf("%s: message %q", name, ie.Msg)
			}
		}
	}
}
