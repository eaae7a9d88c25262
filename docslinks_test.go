package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdLink matches a Markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestMarkdownLinksResolve checks every relative link in the repository's Markdown files
// (README.md, docs/, bench/, examples/, e2e/ READMEs): the file or directory exists, and
// a #fragment names a heading of the target (GitHub's anchor rules: lower case, spaces to
// hyphens, punctuation dropped). Links in the upstream packages copied under
// examples/blueprint/package and testdata/upstream are upstream's and are not checked.
func TestMarkdownLinksResolve(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); (strings.HasPrefix(n, ".") && path != ".") || n == "bin" || path == "examples/blueprint/package" || path == "testdata/upstream" {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".md") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			resolved := path
			if file != "" {
				resolved = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
				if _, err := os.Stat(resolved); err != nil {
					t.Errorf("%s: link %q: %s does not exist", path, target, resolved)
					continue
				}
			}
			if frag != "" && strings.HasSuffix(resolved, ".md") && !hasAnchor(t, resolved, frag) {
				t.Errorf("%s: link %q: %s has no heading with anchor #%s", path, target, resolved, frag)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// hasAnchor reports whether the Markdown file has a heading whose GitHub anchor is frag.
func hasAnchor(t *testing.T, file, frag string) bool {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	inFence := false
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(l, "#") {
			continue
		}
		if anchor(strings.TrimSpace(strings.TrimLeft(l, "#"))) == frag {
			return true
		}
	}
	return false
}

// anchor is GitHub's anchor for a heading: lower case, spaces to hyphens, every
// character other than letters, digits, hyphens and underscores dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}
