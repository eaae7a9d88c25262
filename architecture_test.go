package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// layers is the architecture docs/architecture.md draws: each package of this module in
// a layer, and a package may import only packages of lower layers. The vocabulary
// (vocab, with the field paths it names conflicts by) is under everything; the role
// layer (roles, identity) sits under the field engines and knows nothing of them; the
// field engines (merge, apply) know nothing of resources, the functionConfig or hosts;
// the resource layer knows nothing of the functionConfig (package function turns it
// into options); only the embedding packages and the command sit above the function.
var layers = [][]string{
	{"internal/gitpath", "internal/gittest"},
	{"pkg/fieldpath", "pkg/apply/patchmeta", "internal/bounds", "internal/checked", "internal/jsonvalue", "internal/parallel", "internal/metanode",
		"internal/yamlenc", "internal/nodediff", "internal/fuzzseed", "internal/gitfetch", "internal/pkgio",
		"internal/stage", "internal/textmerge", "internal/lintdoc", "internal/fuzzguard", "internal/scrub"},
	{"pkg/vocab", "pkg/apply/patchmeta/internal/kubescheme", "internal/keepbytes"},
	{"pkg/roles", "pkg/schema", "pkg/fieldrules", "internal/kptfile", "internal/kptprep"},
	{"pkg/identity", "pkg/plan", "pkg/apply/patchmeta/gen"},
	{"pkg/merge"},
	{"pkg/results", "internal/host", "internal/resourcelist"},
	{"pkg/apply"},
	{"pkg/resources", "pkg/config", "internal/inputcheck"},
	{"pkg/function"},
	{"pkg/filter", "pkg/pkgupdate"},
	{"pkg/kptsdk", "internal/cli/pkgcmd", "internal/cli/help"},
	{"."},
}

const module = "github.com/krm-merge/krm-merge"

// bottom are the packages every layer may speak, with the only packages of this module
// each may import: the vocabulary names conflicts by field path, and field paths import
// nothing.
var bottom = map[string][]string{
	"pkg/fieldpath": nil,
	"pkg/vocab":     {"pkg/fieldpath"},
}

// TestArchitectureLayers reads every non-test Go file of pkg/, internal/ and the root
// package and fails on an import of this module's packages that goes sideways or up a
// layer, or on a package missing from layers.
func TestArchitectureLayers(t *testing.T) {
	layerOf := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			layerOf[p] = i
		}
	}
	imports := map[string]map[string]bool{}
	for _, top := range []string{"pkg", "internal", "."} {
		err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if top == "." && path != "." {
					return fs.SkipDir
				}
				if name := d.Name(); name == "testdata" || (strings.HasPrefix(name, ".") && path != ".") {
					return fs.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			pkg := filepath.ToSlash(filepath.Dir(path))
			if imports[pkg] == nil {
				imports[pkg] = map[string]bool{}
			}
			for _, im := range f.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				if p == module {
					imports[pkg]["."] = true
				} else if strings.HasPrefix(p, module+"/") {
					imports[pkg][strings.TrimPrefix(p, module+"/")] = true
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var pkgs []string
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		from, ok := layerOf[p]
		if !ok {
			t.Errorf("%s is in no layer: add it to layers in architecture_test.go and to docs/architecture.md", p)
			continue
		}
		for im := range imports[p] {
			to, ok := layerOf[im]
			switch {
			case !ok:
				t.Errorf("%s imports %s, which is in no layer", p, im)
			case to >= from:
				t.Errorf("%s (layer %d) imports %s (layer %d): a package may import only lower layers", p, from, im, to)
			}
		}
	}
	for p, allowed := range bottom {
		for im := range imports[p] {
			ok := false
			for _, a := range allowed {
				ok = ok || im == a
			}
			if !ok {
				t.Errorf("%s imports %s: the vocabulary imports no package of this module but %v", p, im, allowed)
			}
		}
	}
	if _, err := os.Stat("main.go"); err != nil {
		t.Fatal("run from the module root:", err)
	}
}
