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
// a layer, and a package may import only packages of lower layers. The leaf utilities
// of internal/ are under everything (internal/render shows values in messages); the
// vocabulary (vocab) and field paths are under every concept; the role layer (roles, identity) sits
// under the field engines and knows nothing of them; the field engines (merge, apply)
// know nothing of resources, the functionConfig or hosts; the resource layer knows
// nothing of the functionConfig (package function turns it into options); only the
// embedding packages and the binary's commands (cmd/) sit above the function. The
// machinery of one package (pkg/X/internal/...) sits in the layers of what it uses.
var layers = [][]string{
	{"internal/yamlnull"},
	{"internal/bounds", "internal/jsonvalue", "internal/metanode", "internal/parallel", "internal/render", "internal/scrub",
		"internal/testsupport", "internal/textmerge"},
	{"internal/keepbytes"},
	{"pkg/fieldpath", "pkg/apply/patchmeta", "pkg/pkgupdate/internal/gitpath", "pkg/function/internal/yamlenc"},
	{"pkg/vocab", "pkg/apply/patchmeta/internal/kubescheme", "pkg/pkgupdate/internal/gitfetch", "pkg/pkgupdate/internal/stage"},
	{"pkg/roles", "pkg/schema", "pkg/fieldrules", "pkg/pkgupdate/internal/kptfile", "pkg/pkgupdate/internal/kptprep",
		"pkg/pkgupdate/internal/pkgio"},
	{"pkg/identity", "pkg/plan", "pkg/apply/patchmeta/gen", "pkg/function/internal/resourcelist", "pkg/pkgupdate/internal/keepfile"},
	{"pkg/merge"},
	{"pkg/results", "pkg/resources/internal/host"},
	{"pkg/apply"},
	{"pkg/resources", "pkg/config", "pkg/function/internal/inputcheck"},
	{"pkg/function"},
	{"pkg/filter", "pkg/pkgupdate"},
	{"pkg/kptsdk", "cmd/fncmd", "cmd/pkgcmd"},
	{"."},
}

// folders are the module's top folders, bottom up: internal/ holds the leaf utilities
// several layers use, pkg/ what a Go user may import (each package's own machinery in
// its internal/), cmd/ the binary's commands, and the root main.go's wiring. No import
// runs from a folder to a higher one.
var folders = []string{"internal", "pkg", "cmd", "."}

// folderOf is the index in folders of the top folder that holds package p.
func folderOf(p string) int {
	top, _, _ := strings.Cut(p, "/")
	for i, f := range folders {
		if f == top {
			return i
		}
	}
	return len(folders) - 1
}

const module = "github.com/krm-merge/krm-merge"

// bottom are the packages every layer may speak, with the only packages of this module
// each may import: neither the vocabulary nor field paths import any package of this
// module (a conflict, at a field path, is the engine's: package merge).
var bottom = map[string][]string{
	"pkg/fieldpath": nil,
	"pkg/vocab":     nil,
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
	for _, top := range []string{"cmd", "pkg", "internal", "."} {
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
			if folderOf(im) > folderOf(p) {
				t.Errorf("%s imports %s: an import may not run from %s/ up to %s/", p, im, folders[folderOf(p)], folders[folderOf(im)])
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
	checkInternal(t, imports)
	if _, err := os.Stat("main.go"); err != nil {
		t.Fatal("run from the module root:", err)
	}
}

// checkInternal fails on a package of internal/ that is not a shared leaf: one that
// imports a package outside internal/, that only one package tree (pkg/X, cmd/X, or
// internal/) uses and so belongs under that tree's internal/, or, for
// internal/testsupport, that a non-test file imports. imports maps each package to what
// its non-test files import.
func checkInternal(t *testing.T, imports map[string]map[string]bool) {
	users := map[string]map[string]bool{}
	for p, ims := range imports {
		parts := strings.SplitN(p, "/", 3)
		tree := strings.Join(parts[:min(2, len(parts))], "/")
		for im := range ims {
			if users[im] == nil {
				users[im] = map[string]bool{}
			}
			users[im][tree] = true
		}
	}
	for p, ims := range imports {
		if folderOf(p) != 0 {
			continue
		}
		for im := range ims {
			if folderOf(im) != 0 {
				t.Errorf("%s imports %s: a package of internal/ imports only internal/", p, im)
			}
		}
		switch n := len(users[p]); {
		case p == "internal/testsupport" && n > 0:
			t.Errorf("internal/testsupport is imported by %v: only tests may import it", keys(users[p]))
		case p != "internal/testsupport" && n < 2:
			t.Errorf("%s is used by %v only: move it under that package's internal/", p, keys(users[p]))
		}
	}
}

// keys returns m's keys in order.
func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
