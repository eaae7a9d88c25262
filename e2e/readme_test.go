package e2e

import (
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

// The READMEs of the cases, the examples and the test data say how to run a test with
// `go test ./e2e -run '...'`. These tests keep them honest without kpt: every case and
// example has a README, and every -run pattern in a README under e2e/ or examples/
// selects a test that exists (for TestHostCases, a case that exists too), so none of
// them silently runs nothing.

// TestEveryCaseAndExampleHasReadme checks that each directory directly under e2e/cases/
// and examples/ has a README.md.
func TestEveryCaseAndExampleHasReadme(t *testing.T) {
	dirs := map[string][]string{"e2e/cases": caseNames(t)}
	entries, err := os.ReadDir(filepath.Join(repoRoot, "examples"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			dirs["examples"] = append(dirs["examples"], e.Name())
		}
	}
	if len(dirs["e2e/cases"]) == 0 || len(dirs["examples"]) == 0 {
		t.Fatalf("found no cases or no examples: %v", dirs)
	}
	for parent, names := range dirs {
		for _, name := range names {
			p := filepath.Join(repoRoot, filepath.FromSlash(parent), name, "README.md")
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s/%s has no README.md (what it shows, how to run it, what to expect)", parent, name)
			}
		}
	}
}

// runFlagRE finds the -run pattern of a `go test` command line: quoted or bare.
var runFlagRE = regexp.MustCompile(`go test\b[^\n]*?\s-run[= ](?:'([^']*)'|"([^"]*)"|(\S+))`)

// TestReadmeRunPatternsNameTests checks every `go test ... -run PATTERN` in the READMEs
// under e2e/ and examples/: each alternative of the pattern's top level must match a
// test function of package e2e, and a TestHostCases subtest pattern must match a case.
func TestReadmeRunPatternsNameTests(t *testing.T) {
	tests := e2eTestFunctions(t)
	cases := caseNames(t)
	var readmes []string
	for _, dir := range []string{"e2e", "examples"} {
		err := filepath.WalkDir(filepath.Join(repoRoot, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == ".work" || d.Name() == ".expected") {
				return filepath.SkipDir
			}
			if !d.IsDir() && d.Name() == "README.md" {
				readmes = append(readmes, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	checked := 0
	for _, p := range readmes {
		rel, _ := filepath.Rel(repoRoot, p)
		for i, line := range strings.Split(readFile(t, p), "\n") {
			for _, m := range runFlagRE.FindAllStringSubmatch(line, -1) {
				pattern := m[1] + m[2] + m[3]
				checked++
				for _, problem := range runPatternProblems(pattern, tests, cases) {
					t.Errorf("%s:%d: go test -run %q: %s", filepath.ToSlash(rel), i+1, pattern, problem)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no `go test ... -run` line in any README under e2e/ or examples/; the case READMEs should each have one")
	}
	t.Logf("%d -run patterns in %d READMEs checked against %d test functions", checked, len(readmes), len(tests))
}

// runPatternProblems says what is wrong with a -run pattern: a top-level alternative
// that matches no test function, or a TestHostCases subtest pattern that matches no case.
func runPatternProblems(pattern string, tests, cases []string) []string {
	var problems []string
	levels := splitTop(pattern, '/')
	matching := func(re string, names []string) ([]string, error) {
		r, err := regexp.Compile(re)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, n := range names {
			if r.MatchString(n) {
				out = append(out, n)
			}
		}
		return out, nil
	}
	var selected []string
	for _, alt := range splitTop(levels[0], '|') {
		got, err := matching(alt, tests)
		switch {
		case err != nil:
			problems = append(problems, "not a regexp: "+err.Error())
		case len(got) == 0:
			problems = append(problems, "no test function in e2e/*.go matches "+alt)
		}
		selected = append(selected, got...)
	}
	if len(levels) > 1 && len(selected) == 1 && selected[0] == "TestHostCases" {
		if got, err := matching(levels[1], cases); err == nil && len(got) == 0 {
			problems = append(problems, "no directory under e2e/cases matches "+levels[1])
		}
	}
	return problems
}

// splitTop splits p at each sep outside brackets and parentheses: a -run pattern at its
// slashes into one regexp per level, as go test does, or a level at its top-level |.
func splitTop(p string, sep rune) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range p {
		switch c {
		case '[', '(':
			depth++
		case ']', ')':
			if depth > 0 {
				depth--
			}
		case sep:
			if depth == 0 {
				out = append(out, p[start:i])
				start = i + 1
			}
		}
	}
	return append(out, p[start:])
}

// e2eTestFunctions lists the top-level Test functions declared in e2e/*.go.
func e2eTestFunctions(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "e2e", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var out []string
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") && fn.Name.Name != "TestMain" {
				out = append(out, fn.Name.Name)
			}
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Fatal("found no test functions in e2e/*.go")
	}
	return out
}
