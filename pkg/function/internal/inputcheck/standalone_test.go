package inputcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
)

// Files that neither start nor end with `---` must stay separate documents, in argument
// order, with stdin ("-") where it is named; kyaml's io.MultiReader would run them together.
func TestStandaloneInputSeparatesFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v") // no final newline
	b := write("b.yaml", "# head\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n---\n")
	c := write("c.yaml", "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
	stdin := strings.NewReader("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n")

	in, err := Standalone([]string{a, "-", b, c}, stdin)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := (&kio.ByteReader{Reader: in, OmitReaderAnnotations: true}).Read()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range nodes {
		names = append(names, n.GetName())
	}
	if got, want := strings.Join(names, ","), "a,s,b,c"; got != want {
		t.Fatalf("documents %s, want %s", got, want)
	}
}

func TestStandaloneInputErrorsNameTheFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	if _, err := Standalone([]string{missing}, strings.NewReader("")); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("error %v does not name %s", err, missing)
	}
	if _, err := Standalone([]string{"-", "-"}, strings.NewReader("")); err == nil || !strings.Contains(err.Error(), "stdin") {
		t.Fatalf("stdin named twice: error %v", err)
	}
}

// The items of a standalone run are checked as stdin's are (ResourceList): kyaml's
// reader failed on a malformed head with no place named ("wrong node kind") or dropped
// the field (annotations a scalar). The error names the file and the document in it.
func TestStandaloneInputRefusesMalformedItems(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n")
	for _, tc := range []struct{ body, want string }{
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: d, annotations: x}\n",
			`document 1 of BAD: metadata.annotations is a scalar ("x")`},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: [x]\n", "document 0 of BAD: metadata is a list"},
		{"- a\n- b\n", "document 0 of BAD: the item is a list"},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, annotations: {internal.config.kubernetes.io/path: a, config.kubernetes.io/path: b}}\n",
			"document 0 of BAD: internal.config.kubernetes.io/path \"a\" and config.kubernetes.io/path \"b\" differ"},
	} {
		bad := write("bad.yaml", tc.body)
		_, err := Standalone([]string{ok, bad}, strings.NewReader(""))
		want := strings.ReplaceAll(tc.want, "BAD", bad)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", tc.body, err, want)
		}
	}
	if _, err := Standalone([]string{ok, "-"}, strings.NewReader("apiVersion: v1\nkind: A\nmetadata: {name: s}\n")); err != nil {
		t.Errorf("well-formed items: %v", err)
	}
}
