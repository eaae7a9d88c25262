package textmerge

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestMergeCases(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		base, dest, updated   string
		wantUpdated, wantDest string
		conflicts             int
	}{
		{name: "upstream change only",
			base: "a\nb\nc\n", dest: "a\nb\nc\n", updated: "a\nB\nc\n",
			wantUpdated: "a\nB\nc\n", wantDest: "a\nB\nc\n"},
		{name: "local change only",
			base: "a\nb\nc\n", dest: "a\nb\nC\n", updated: "a\nb\nc\n",
			wantUpdated: "a\nb\nC\n", wantDest: "a\nb\nC\n"},
		{name: "changes a line apart merge",
			base: "a\nb\nc\nd\n", dest: "A\nb\nc\nd\n", updated: "a\nb\nc\nD\n",
			wantUpdated: "A\nb\nc\nD\n", wantDest: "A\nb\nc\nD\n"},
		{name: "adjacent changes conflict, as in git",
			base: "a\nb\nc\n", dest: "A\nb\nc\n", updated: "a\nB\nc\n",
			wantUpdated: "a\nB\nc\n", wantDest: "A\nb\nc\n", conflicts: 1},
		{name: "the same change on both sides",
			base: "a\nb\nc\n", dest: "a\nX\nc\n", updated: "a\nX\nc\n",
			wantUpdated: "a\nX\nc\n", wantDest: "a\nX\nc\n"},
		{name: "same line changed differently",
			base: "title\n\nbody\n", dest: "title (ours)\n\nbody\n", updated: "new title\n\nbody\n",
			wantUpdated: "new title\n\nbody\n", wantDest: "title (ours)\n\nbody\n", conflicts: 1},
		{name: "both append at the end",
			base: "a\n", dest: "a\nours\n", updated: "a\ntheirs\n",
			wantUpdated: "a\ntheirs\n", wantDest: "a\nours\n", conflicts: 1},
		{name: "deleted upstream, kept locally",
			base: "a\nb\nc\nd\ne\n", dest: "a\nb\nc\nd\nE\n", updated: "a\nc\nd\ne\n",
			wantUpdated: "a\nc\nd\nE\n", wantDest: "a\nc\nd\nE\n"},
		{name: "empty base: added on both sides",
			base: "", dest: "x\n", updated: "y\n",
			wantUpdated: "y\n", wantDest: "x\n", conflicts: 1},
		{name: "no final newline upstream",
			base: "a\nb\n", dest: "a\nb\n", updated: "a\nb",
			wantUpdated: "a\nb", wantDest: "a\nb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := Merge([]byte(tc.base), []byte(tc.dest), []byte(tc.updated), FavorUpdated)
			d := Merge([]byte(tc.base), []byte(tc.dest), []byte(tc.updated), FavorDest)
			if string(u.Merged) != tc.wantUpdated {
				t.Errorf("FavorUpdated: %q, want %q", u.Merged, tc.wantUpdated)
			}
			if string(d.Merged) != tc.wantDest {
				t.Errorf("FavorDest: %q, want %q", d.Merged, tc.wantDest)
			}
			if len(u.Conflicts) != tc.conflicts || len(d.Conflicts) != tc.conflicts {
				t.Errorf("conflicts %d and %d, want %d", len(u.Conflicts), len(d.Conflicts), tc.conflicts)
			}
		})
	}
}

func TestConflictRanges(t *testing.T) {
	base := "# Title\n\nintro\n\n## Usage\nrun it\n"
	dest := "# Title (ours)\n\nintro\n\n## Usage\nrun it\n"
	updated := "# New title\nsubtitle\n\nintro\n\n## Usage\nrun it\n"
	r := Merge([]byte(base), []byte(dest), []byte(updated), FavorUpdated)
	if len(r.Conflicts) != 1 {
		t.Fatalf("conflicts: %+v", r.Conflicts)
	}
	c := r.Conflicts[0]
	want := Conflict{Base: Range{1, 1}, Dest: Range{1, 1}, Updated: Range{1, 2}, Merged: Range{1, 2}}
	if c != want {
		t.Errorf("conflict %+v, want %+v", c, want)
	}
	if !strings.HasPrefix(string(r.Merged), "# New title\nsubtitle\n\nintro") {
		t.Errorf("merged %q", r.Merged)
	}
}

// A change inside a run of equal lines: git slides an insertion of a blank line to the
// end of the run; with the other side editing right after the run, the edits touch
// only if the insertion is placed where git places it.
func TestSlidesLikeGit(t *testing.T) {
	base := "a\n\n\nb\n"
	dest := "a\n\n\n\nb\n" // a blank line more
	updated := "a\n\n\nB\n"
	r := Merge([]byte(base), []byte(dest), []byte(updated), FavorUpdated)
	// xdiff puts dest's insertion last in the run, right before b: it touches updated's
	// change of b, so this is a conflict in git too.
	if len(r.Conflicts) != 1 {
		t.Errorf("conflicts %+v, want 1 (dest's blank line slid next to updated's change)", r.Conflicts)
	}
}

func TestUnified(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\n"
	new := "a\nB\nc\nd\ne\nf\ng\nh\ni"
	got := Unified([]byte(old), []byte(new), 1)
	want := "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -8 +8,2 @@\n h\n+i\n\\ No newline at end of file\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if Unified([]byte(old), []byte(old), 3) != "" {
		t.Error("equal texts have a diff")
	}
	// The hunks apply with git apply, which checks their ranges and context.
	if _, err := exec.LookPath("git"); err != nil {
		return
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	patch := "--- a/f\n+++ b/f\n" + Unified([]byte(old), []byte(new), 3)
	cmd := exec.Command("git", "apply", "--unidiff-zero", "-")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(patch)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s\n%s", err, out, patch)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != new {
		t.Errorf("applied: %q, want %q", b, new)
	}
}
