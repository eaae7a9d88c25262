package testsupport

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// SeedRoot returns the module root (the directory holding go.mod), found by walking up from
// the test's working directory. It fails tb when there is none.
func SeedRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("testsupport: no go.mod above the working directory")
		}
		dir = parent
	}
}

// seedDirs are the directories, relative to the module root, whose YAML files seed.
var seedDirs = []string{"e2e/cases", "examples", "fn-config-examples"}

// SeedFiles returns the path of every YAML file (and Kptfile) under the seed directories,
// sorted, without the goldens under .expected directories. It fails tb when a directory
// cannot be walked.
func SeedFiles(tb testing.TB) []string {
	tb.Helper()
	root := SeedRoot(tb)
	var out []string
	for _, d := range seedDirs {
		err := filepath.WalkDir(filepath.Join(root, d), func(p string, e os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() && e.Name() == ".expected" {
				return filepath.SkipDir
			}
			if !e.IsDir() && (strings.HasSuffix(p, ".yaml") || e.Name() == "Kptfile") {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	sort.Strings(out)
	return out
}

// read returns a file's text, failing tb on an error.
func read(tb testing.TB, p string) string {
	tb.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// SeedDocs returns each YAML document (split at `---` lines) of every file of SeedFiles, as
// text, in file order; empty documents are left out.
func SeedDocs(tb testing.TB) []string {
	tb.Helper()
	var out []string
	for _, p := range SeedFiles(tb) {
		out = append(out, split(read(tb, p))...)
	}
	return out
}

// split cuts a multi-document YAML text at its `---` lines.
func split(s string) []string {
	var out []string
	for _, d := range strings.Split("\n"+s, "\n---") {
		if strings.TrimSpace(d) != "" {
			out = append(out, strings.TrimPrefix(d, "\n"))
		}
	}
	return out
}

// SeedFnConfigs returns the text of every functionConfig in the seed directories: the
// fn-config-examples, the case packages' fn-config.yaml and merge-upstream.yaml, and the
// examples' fn-config.yaml.
func SeedFnConfigs(tb testing.TB) []string {
	tb.Helper()
	var out []string
	for _, p := range SeedFiles(tb) {
		b := filepath.Base(p)
		if strings.Contains(p, "fn-config-examples") || b == "fn-config.yaml" || b == "merge-upstream.yaml" {
			out = append(out, read(tb, p))
		}
	}
	return out
}

// triples are the 3-way directory triples (original, updated, dest) of the case
// packages and examples, relative to the module root.
var triples = [][3]string{
	{"e2e/cases/eval-3way-paths-args/upstream-v1", "e2e/cases/eval-3way-paths-args/upstream-v2", "e2e/cases/eval-3way-paths-args/local"},
	{"e2e/cases/eval-conflict-error/original", "e2e/cases/eval-conflict-error/updated", "e2e/cases/eval-conflict-error/dest"},
	{"e2e/cases/pipe-source-sink/v1", "e2e/cases/pipe-source-sink/v2", "e2e/cases/pipe-source-sink/mine"},
	{"e2e/cases/render-pipeline-configpath/upstream/v1", "e2e/cases/render-pipeline-configpath/upstream/v2", "e2e/cases/render-pipeline-configpath/overlay"},
	{"e2e/cases/render-selectors/base-old", "e2e/cases/render-selectors/base-new", "e2e/cases/render-selectors/site"},
	{"examples/storefront/package/upstream-v1", "examples/storefront/package/upstream-v2", "examples/storefront/package/local"},
	{"examples/blueprint/package/upstream-v0.4.0", "examples/blueprint/package/upstream-v0.4.4", "examples/blueprint/package/project"},
	{"examples/blueprint/package/upstream-v0.4.0/kcc-namespace", "examples/blueprint/package/upstream-v0.4.4/kcc-namespace", "examples/blueprint/package/project/kcc-namespace"},
	// apply: the last-applied annotation of live holds the original; the config is updated
	{"examples/apply/package/live", "examples/apply/package/config", "examples/apply/package/live"},
}

// SeedTriples returns (original, updated, dest) documents of one resource from the 3-way
// directory triples: the first document of files of the same name in the three
// directories. A file absent from original (a resource added upstream) gives an empty
// original.
func SeedTriples(tb testing.TB) [][3]string {
	tb.Helper()
	root := SeedRoot(tb)
	var out [][3]string
	for _, t := range triples {
		names, err := filepath.Glob(filepath.Join(root, t[2], "*.yaml"))
		if err != nil {
			tb.Fatal(err)
		}
		for _, dest := range names {
			var docs [3]string
			for i, d := range t {
				b, err := os.ReadFile(filepath.Join(root, d, filepath.Base(dest)))
				if err != nil {
					continue
				}
				if s := split(string(b)); len(s) > 0 {
					docs[i] = s[0]
				}
			}
			out = append(out, docs)
		}
	}
	return out
}

// SeedPackages returns the package directories a host reads as one ResourceList, with the
// functionConfig file that goes with each ("" for none): every case package with its
// fn-config.yaml, and the examples.
func SeedPackages(tb testing.TB) [][2]string {
	tb.Helper()
	root := SeedRoot(tb)
	cases, err := filepath.Glob(filepath.Join(root, "e2e/cases/*"))
	if err != nil {
		tb.Fatal(err)
	}
	var out [][2]string
	for _, c := range cases {
		fc := filepath.Join(c, "fn-config.yaml")
		if _, err := os.Stat(fc); err != nil {
			fc = ""
		}
		out = append(out, [2]string{c, fc})
	}
	return append(out,
		[2]string{filepath.Join(root, "examples/storefront/package"), filepath.Join(root, "examples/storefront/fn-config.yaml")},
		[2]string{filepath.Join(root, "examples/blueprint/package"), filepath.Join(root, "examples/blueprint/fn-config.yaml")},
		[2]string{filepath.Join(root, "examples/apply/package"), filepath.Join(root, "examples/apply/fn-config.yaml")})
}
