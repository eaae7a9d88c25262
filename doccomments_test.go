package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// root is the module root: this package's directory, where go test runs.
const root = "."

// forbidden are the references a comment may not make: the workspace outside the
// repository and issue numbers (cite docs/function.md or docs/merge-semantics.md by
// heading instead).
var forbidden = regexp.MustCompile(`\.\./shared|shared/spec|(?i:\bissues?\s+#?\d+)`)

// pkgFiles is one package directory's parsed non-test files.
type pkgFiles struct {
	dir   string // slash-separated, relative to the module root ("." for the root)
	files map[string]*ast.File
}

// TestDocs checks krm-merge's documentation as code: it parses every non-test Go file
// of the module's root package (the krm-merge command) and of every package under cmd/,
// pkg/ and internal/ with go/parser and go/ast, and fails with one line per finding:
//
//   - an exported identifier without a doc comment: a top-level func, a method on an
//     exported type, a type, a const or a var (a const or var in a parenthesized group
//     may be documented by the group's comment, as go doc shows it). Struct fields and
//     interface methods are not checked;
//   - a package under cmd/, pkg/ or internal/ whose package comment is not in doc.go,
//     or that has more than one file carrying a package comment (the root package: more than
//     one, or none);
//   - a comment (doc comment or not) that points outside this repository, at the
//     workspace's shared directory beside it or its spec (the patterns are in the test:
//     forbidden), or at an issue by its number. Such pointers rot and mean nothing
//     to a user of the module; comments cite the project's own docs by file and
//     heading instead, e.g. (docs/merge-semantics.md, "Conflict").

func TestDocs(t *testing.T) {
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found at %s: %v", root, err)
	}
	fset := token.NewFileSet()
	pkgs, err := load(fset)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages under %s: the walk is broken", len(pkgs), root)
	}
	var findings []finding
	for _, p := range pkgs {
		findings = append(findings, check(fset, p)...)
	}
	sort.Slice(findings, func(i, j int) bool {
		a, b := findings[i], findings[j]
		if a.file != b.file {
			return a.file < b.file
		}
		return a.line < b.line
	})
	for _, f := range findings {
		t.Errorf("%s:%d: %s", f.file, f.line, f.msg)
	}
}

// load parses the non-test .go files of the root package and of every directory under
// cmd/, pkg/ and internal/ (testdata and directories starting with "." or "_" skipped, as the
// go command skips them), grouped by directory.
func load(fset *token.FileSet) ([]*pkgFiles, error) {
	byDir := map[string]*pkgFiles{}
	add := func(path string) error {
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		p := byDir[rel]
		if p == nil {
			p = &pkgFiles{dir: rel, files: map[string]*ast.File{}}
			byDir[rel] = p
		}
		p.files[filepath.Base(path)] = f
		return nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !e.IsDir() {
			if err := add(filepath.Join(root, e.Name())); err != nil {
				return nil, err
			}
		}
	}
	for _, top := range []string{"cmd", "pkg", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				n := d.Name()
				if n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
					return filepath.SkipDir
				}
				return nil
			}
			return add(path)
		})
		if err != nil {
			return nil, err
		}
	}
	var out []*pkgFiles
	for _, p := range byDir {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dir < out[j].dir })
	return out, nil
}

// finding is one problem: where (file relative to the module root, slash-separated;
// line) and what.
type finding struct {
	file string
	line int
	msg  string
}

// check returns the findings of one package.
func check(fset *token.FileSet, p *pkgFiles) []finding {
	var out []finding
	add := func(pos token.Pos, format string, args ...interface{}) {
		position := fset.Position(pos)
		rel, err := filepath.Rel(root, position.Filename)
		if err != nil {
			rel = position.Filename
		}
		out = append(out, finding{filepath.ToSlash(rel), position.Line, fmt.Sprintf(format, args...)})
	}

	// The package comment: in doc.go, in one file only.
	var names, carriers []string
	for name := range p.files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if p.files[name].Doc != nil {
			carriers = append(carriers, name)
		}
	}
	first := p.files[names[0]]
	switch {
	case p.dir == ".":
		if len(carriers) != 1 {
			add(first.Package, "package %s: %d files carry a package comment (%s), want exactly one",
				first.Name.Name, len(carriers), strings.Join(carriers, ", "))
		}
	case len(carriers) != 1 || carriers[0] != "doc.go":
		add(first.Package, "package %s (%s): the package comment must be in doc.go and only there; files carrying one: [%s]",
			first.Name.Name, p.dir, strings.Join(carriers, ", "))
	}

	for _, name := range names {
		f := p.files[name]
		// Forbidden references, in every comment of the file.
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if m := forbidden.FindString(c.Text); m != "" {
					add(c.Slash, "comment refers to %q: cite docs/function.md or docs/merge-semantics.md by heading instead", m)
				}
			}
		}
		// Exported identifiers without a doc comment.
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || d.Doc != nil {
					continue
				}
				if d.Recv == nil {
					add(d.Name.Pos(), "exported func %s has no doc comment", d.Name.Name)
				} else if recv := receiverType(d.Recv); ast.IsExported(recv) {
					add(d.Name.Pos(), "exported method %s.%s has no doc comment", recv, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						// go doc shows the declaration's comment for a lone type in a group too.
						if s.Name.IsExported() && s.Doc == nil && (d.Doc == nil || len(d.Specs) != 1) {
							add(s.Name.Pos(), "exported type %s has no doc comment", s.Name.Name)
						}
					case *ast.ValueSpec:
						// A lone const or var takes the declaration's comment; one in a
						// group its own or the group's, which go doc shows above it.
						if s.Doc != nil || d.Doc != nil {
							continue
						}
						for _, n := range s.Names {
							if n.IsExported() {
								add(n.Pos(), "exported %s %s has no doc comment", d.Tok, n.Name)
							}
						}
					}
				}
			}
		}
	}
	return out
}

// receiverType is the name of a method's receiver type, without pointer and type
// parameters.
func receiverType(recv *ast.FieldList) string {
	if recv == nil || len(recv.List) == 0 {
		return ""
	}
	x := recv.List[0].Type
	for {
		switch t := x.(type) {
		case *ast.StarExpr:
			x = t.X
		case *ast.IndexExpr:
			x = t.X
		case *ast.IndexListExpr:
			x = t.X
		case *ast.ParenExpr:
			x = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}
