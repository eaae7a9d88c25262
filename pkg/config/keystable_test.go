package config_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/config"
)

// updateDocs rewrites the generated functionConfig tables in the docs:
// go test ./pkg/config -run TestKeysTableInDocs -update-docs
var updateDocs = flag.Bool("update-docs", false, "rewrite the functionConfig tables in README.md and docs/*.md from config.Keys")

// Markers around a generated functionConfig table in a Markdown file.
const (
	keysTableBegin = "<!-- functionConfig keys: generated from config.Keys by `go test ./pkg/config -run TestKeysTableInDocs -update-docs` -->"
	keysTableEnd   = "<!-- end of functionConfig keys -->"
)

// keysTable renders config.Keys as the Markdown table the docs carry: the same keys,
// types, defaults, valid values and meanings `krm-merge --help` prints.
func keysTable() string {
	var b strings.Builder
	b.WriteString("| key | type | default | meaning |\n| --- | --- | --- | --- |\n")
	for _, k := range config.Keys() {
		typ := k.Type
		if k.TypedOnly {
			typ += " (typed form only)"
		}
		def := "unset"
		if k.Default != "" {
			def = "`" + k.Default + "`"
		}
		meaning := k.Meaning
		if len(k.Valid) > 0 {
			meaning = "One of `" + strings.Join(k.Valid, "`, `") + "`. " + meaning
		}
		meaning = strings.ReplaceAll(meaning, "|", `\|`)
		b.WriteString("| `" + k.Name + "` | " + typ + " | " + def + " | " + meaning + " |\n")
	}
	return b.String()
}

// TestKeysTableInDocs checks that every Markdown file carrying the generated-table
// markers (README.md, docs/*.md) holds exactly keysTable() between them, so the docs and
// --help cannot drift; with -update-docs it rewrites them. README.md and docs/function.md
// must carry one.
func TestKeysTableInDocs(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	want := keysTable()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		i, j := strings.Index(s, keysTableBegin), strings.Index(s, keysTableEnd)
		if i < 0 && j < 0 {
			if base := filepath.Base(f); base == "README.md" || base == "function.md" {
				t.Errorf("%s has no generated functionConfig table (markers %q ... %q)", f, keysTableBegin, keysTableEnd)
			}
			continue
		}
		if i < 0 || j < i {
			t.Errorf("%s: the functionConfig table markers are unbalanced", f)
			continue
		}
		start := i + len(keysTableBegin) + 1
		if got := s[start:j]; got != want {
			if *updateDocs {
				if err := os.WriteFile(f, []byte(s[:start]+want+s[j:]), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("rewrote the functionConfig table in %s", f)
				continue
			}
			t.Errorf("%s: the functionConfig table differs from config.Keys; run go test ./pkg/config -run TestKeysTableInDocs -update-docs\n--- got\n%s--- want\n%s", f, got, want)
		}
	}
}
