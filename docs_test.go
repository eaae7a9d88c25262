package main

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// citation matches a doc comment's reference to a section of the project's docs:
// docs/<file>.md, "Heading" (and "Other heading")...; the comment's lines are joined
// first, so a heading may be cited across a line break.
var citation = regexp.MustCompile(`docs/([A-Za-z0-9_.-]+\.md),\s*"([^"]+)"((?:\s+and\s+"[^"]+")*)`)

var quoted = regexp.MustCompile(`"([^"]+)"`)

// TestDocCitations: every `docs/<file>.md, "Heading"` citation in a Go comment of the
// module names a file in docs/ and a heading in it (Markdown `#` lines outside code
// blocks; case-insensitive; the cited text may be the start of the heading, e.g.
// "Conflict" for "Conflicts").
func TestDocCitations(t *testing.T) {
	headings := map[string][]string{} // file -> lower-case headings; nil: file missing
	read := func(file string) ([]string, bool) {
		if h, ok := headings[file]; ok {
			return h, h != nil
		}
		h, err := docHeadings(filepath.Join("docs", file))
		if err != nil {
			headings[file] = nil
			return nil, false
		}
		headings[file] = h
		return h, true
	}

	found := 0
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%v", err)
			return nil
		}
		for _, cg := range f.Comments {
			text := strings.Join(strings.Fields(cg.Text()), " ")
			for _, m := range citation.FindAllStringSubmatch(text, -1) {
				file := m[1]
				cited := []string{m[2]}
				for _, q := range quoted.FindAllStringSubmatch(m[3], -1) {
					cited = append(cited, q[1])
				}
				where := fset.Position(cg.Pos())
				h, ok := read(file)
				if !ok {
					t.Errorf("%s:%d: cites docs/%s, which does not exist", where.Filename, where.Line, file)
					continue
				}
				for _, c := range cited {
					found++
					if !hasHeading(h, c) {
						t.Errorf("%s:%d: cites docs/%s, %q: no such heading (headings: %s)",
							where.Filename, where.Line, file, c, strings.Join(h, "; "))
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no citations found: the pattern or the walk is broken")
	}
}

// docHeadings returns the headings of a Markdown file, lower-case, without backquotes,
// skipping fenced code blocks.
func docHeadings(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	fenced := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "```"):
			fenced = !fenced
		case !fenced && strings.HasPrefix(line, "#"):
			h := strings.TrimSpace(strings.TrimLeft(line, "#"))
			out = append(out, strings.ToLower(strings.ReplaceAll(h, "`", "")))
		}
	}
	return out, sc.Err()
}

// hasHeading reports whether one of headings starts with cited, ignoring case.
func hasHeading(headings []string, cited string) bool {
	c := strings.ToLower(strings.TrimSpace(cited))
	for _, h := range headings {
		if strings.HasPrefix(h, c) {
			return true
		}
	}
	return false
}

// identRef matches a reference to an identifier of a package: pkg.Name, with an
// optional .Member after it.
var identRef = regexp.MustCompile(`\b([a-z][a-z0-9]*)\.([A-Za-z_][A-Za-z0-9_]*)`)

// backticked matches a Markdown or comment code span.
var backticked = regexp.MustCompile("`([^`\n]+)`")

// notIdent are what follows a package-like word and a dot in file names and versions
// (merge.go, function.md, yaml.v3), never an identifier.
var notIdent = map[string]bool{"go": true, "md": true, "yaml": true, "yml": true, "json": true, "sh": true,
	"mod": true, "sum": true, "txt": true, "tsv": true, "v1": true, "v2": true, "v3": true, "io": true, "dev": true}

// TestDocIdentifiers: every identifier a comment or a doc names by its package
// (merge.ThreeWay, `roles.Clean`) exists in that package of the module. In
// Go comments every pkg.Exported is checked, and any pkg.name in a code span; in the
// Markdown docs (docs/, the READMEs), pkg.name in code spans. Only the module's own
// package names are read as packages; a file name (merge.go) is not an identifier.
func TestDocIdentifiers(t *testing.T) {
	decls := moduleDecls(t)
	check := func(where string, line int, text string, exportedOnly bool) {
		for _, m := range identRef.FindAllStringSubmatchIndex(text, -1) {
			pkg, name := text[m[2]:m[3]], text[m[4]:m[5]]
			idents, ok := decls[pkg]
			if !ok || notIdent[name] || (exportedOnly && !(name[0] >= 'A' && name[0] <= 'Z')) {
				continue
			}
			// part of a longer dotted name: a domain (config.kubernetes.io), a field
			// path (spec.resources.requests) or an annotation key
			if before := m[0] - 1; before >= 0 && strings.ContainsRune("./-", rune(text[before])) {
				continue
			}
			if after := m[1]; after < len(text) && (strings.ContainsRune("/-", rune(text[after])) ||
				text[after] == '.' && after+1 < len(text) && text[after+1] >= 'a' && text[after+1] <= 'z') {
				continue
			}
			if !idents[name] {
				t.Errorf("%s:%d: %s.%s names nothing in package %s", where, line, pkg, name, pkg)
			}
		}
	}
	var mds []string
	for _, glob := range []string{"docs/*.md", "*.md", "*/README.md", "examples/*/README.md", "e2e/*/README.md"} {
		found, _ := filepath.Glob(glob)
		mds = append(mds, found...)
	}
	for _, md := range mds {
		b, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(b), "\n") {
			for _, span := range backticked.FindAllStringSubmatch(l, -1) {
				check(md, i+1, span[1], false)
			}
		}
	}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != "." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				line := fset.Position(c.Pos()).Line
				check(p, line, c.Text, true)
				for _, span := range backticked.FindAllStringSubmatch(c.Text, -1) {
					check(p, line, span[1], false)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// moduleDecls maps each package name of the module (pkg/, internal/, bench/, the root)
// to the names it declares at top level (funcs, types, vars, consts, in test files too)
// and its methods.
func moduleDecls(t *testing.T) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != "." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "bin" || n == "e2e") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		name := strings.TrimSuffix(f.Name.Name, "_test")
		if name == "main" {
			return nil
		}
		if out[name] == nil {
			out[name] = map[string]bool{}
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				out[name][d.Name.Name] = true
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						out[name][s.Name.Name] = true
					case *ast.ValueSpec:
						for _, n := range s.Names {
							out[name][n.Name] = true
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
