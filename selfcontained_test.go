package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// upstreamData is where the real upstream releases the tests read are committed: one
// folder per project, each with the project's LICENSE, described by its README.md.
const upstreamData = "testdata/upstream"

// outsideAllowed are the path-shaped string literals of test sources that resolve
// outside the module and are not read by the test: file (slash-separated, from the
// module root) and literal, each with the reason.
var outsideAllowed = map[[2]string]string{
	{"pkg/pkgupdate/internal/gitfetch/fuzz_test.go", strings.Repeat("../", 8) + "tmp"}: "a symlink target a hostile upstream plants; the test checks nothing follows it",
}

// sharedData is the data directory of the workspace around a checkout, which a fresh
// clone does not have (spelled in two parts so that this file does not name it).
const sharedData = "shared" + "/data"

// escapingPath matches a string literal that is a relative path climbing out of its
// directory: "../" first, no spaces (a message mentioning a path is not a read).
var escapingPath = regexp.MustCompile(`^(\.\./)+[^\s]*$`)

// TestTestsReadOnlyTheModule: a fresh clone tests itself. No test source (a *_test.go
// file, or any Go file under bench/) holds a relative path that, resolved from its
// package directory (where go test runs it), names something outside the module root,
// neither as one string literal ("../../../x/y") nor as the literal arguments of
// filepath.Join or path.Join after a base the test knows (its package directory, or the
// e2e harness's repoRoot); and no test source, bench file, hack/ script or the Makefile
// names the workspace's shared data directory (sharedData). The real upstream releases
// the tests read are in testdata/upstream.
func TestTestsReadOnlyTheModule(t *testing.T) {
	var problems []string
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
		slash := filepath.ToSlash(p)
		switch {
		case strings.HasSuffix(p, "_test.go"), strings.HasPrefix(slash, "bench/") && strings.HasSuffix(p, ".go"):
			problems = append(problems, outsidePaths(t, slash)...)
		case strings.HasPrefix(slash, "hack/") || slash == "Makefile":
		default:
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, sharedData) {
				problems = append(problems, slash+":"+strconv.Itoa(i+1)+": names the workspace's shared data; use "+upstreamData)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// outsidePaths parses the Go file at file (slash-separated, from the module root) and
// returns one line per relative path in it that escapes the module root: a string
// literal matching escapingPath, or a filepath.Join/path.Join whose base is the file's
// directory (a first argument that is a literal) or the module root (an identifier
// named repoRoot) and whose following literal arguments climb out.
func outsidePaths(t *testing.T, file string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(filepath.FromSlash(file))
	var out []string
	report := func(pos token.Pos, what string) {
		out = append(out, fset.Position(pos).String()+": "+what+" resolves outside the module; copy the data into "+upstreamData+" (or a testdata directory)")
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BasicLit:
			s, ok := stringLit(n)
			if ok && escapingPath.MatchString(s) && escapes(filepath.Join(dir, filepath.FromSlash(s)), true) {
				if _, allowed := outsideAllowed[[2]string{file, s}]; !allowed {
					report(n.Pos(), strconv.Quote(s))
				}
			}
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Join" || len(n.Args) < 2 {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || (pkg.Name != "filepath" && pkg.Name != "path") {
				return true
			}
			base, rest := "", n.Args[1:]
			switch first := n.Args[0].(type) {
			case *ast.Ident:
				if first.Name != "repoRoot" {
					return true
				}
			case *ast.BasicLit:
				s, ok := stringLit(first)
				if !ok {
					return true
				}
				base = filepath.Join(dir, filepath.FromSlash(s))
			default:
				return true
			}
			elems := []string{base}
			for _, a := range rest {
				lit, ok := a.(*ast.BasicLit)
				if !ok {
					break
				}
				s, ok := stringLit(lit)
				if !ok {
					break
				}
				elems = append(elems, filepath.FromSlash(s))
			}
			if len(elems) > 1 && escapes(filepath.Join(elems...), false) {
				report(n.Pos(), "filepath.Join of "+strconv.Quote(filepath.ToSlash(filepath.Join(elems[1:]...))))
			}
		}
		return true
	})
	return out
}

// stringLit returns the value of a string literal.
func stringLit(l *ast.BasicLit) (string, bool) {
	if l.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(l.Value)
	return s, err == nil
}

// escapes reports whether p (cleaned, relative to the module root) lies outside the
// module root; with named, only when it also names something there (a path of ".."
// elements alone names no file, as attack tests use it for a hostile ref).
func escapes(p string, named bool) bool {
	p = filepath.ToSlash(filepath.Clean(p))
	if p != ".." && !strings.HasPrefix(p, "../") {
		return false
	}
	if !named {
		return true
	}
	for _, e := range strings.Split(p, "/") {
		if e != ".." {
			return true
		}
	}
	return false
}

// TestUpstreamDataIsComplete: every folder of testdata/upstream carries its project's
// LICENSE and at least one release directory, and testdata/upstream/README.md names
// each folder (the origin of what the tests read is on record).
func TestUpstreamDataIsComplete(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(upstreamData, "README.md"))
	if err != nil {
		t.Fatalf("%s/README.md: %v (the origin of the upstream test data)", upstreamData, err)
	}
	entries, err := os.ReadDir(upstreamData)
	if err != nil {
		t.Fatal(err)
	}
	folders := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		folders++
		dir := filepath.Join(upstreamData, e.Name())
		if st, err := os.Stat(filepath.Join(dir, "LICENSE")); err != nil || st.Size() == 0 {
			t.Errorf("%s has no LICENSE file", dir)
		}
		sub, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		releases := 0
		for _, s := range sub {
			if s.IsDir() {
				releases++
			}
		}
		if releases == 0 {
			t.Errorf("%s holds no release directory", dir)
		}
		if !strings.Contains(string(readme), "`"+e.Name()+"/`") {
			t.Errorf("%s/README.md does not describe `%s/`", upstreamData, e.Name())
		}
	}
	if folders == 0 {
		t.Fatalf("%s holds no upstream release", upstreamData)
	}
}
