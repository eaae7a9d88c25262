package main

import (
	"bufio"
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
