package function

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

	in, err := StandaloneInput([]string{a, "-", b, c}, stdin)
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
	if _, err := StandaloneInput([]string{missing}, strings.NewReader("")); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("error %v does not name %s", err, missing)
	}
	if _, err := StandaloneInput([]string{"-", "-"}, strings.NewReader("")); err == nil || !strings.Contains(err.Error(), "stdin") {
		t.Fatalf("stdin named twice: error %v", err)
	}
}
