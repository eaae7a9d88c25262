package textmerge

import (
	"bytes"
	"fmt"
	"math/rand"
	"os/exec"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/bench/gen"
	"github.com/krm-merge/krm-merge/internal/testsupport"
)

func join(lines []string, finalNewline bool) []byte {
	s := strings.Join(lines, "\n")
	if finalNewline && len(lines) > 0 {
		s += "\n"
	}
	return []byte(s)
}

// The families of generated cases.
const (
	// uniqueLines: every line distinct, so every minimal diff is the same.
	uniqueLines = iota
	// fewLines: short texts from a small alphabet with blank lines and braces, as in
	// prose and code, where diffs are ambiguous and the choice among them (xdiff's)
	// decides conflicts.
	fewLines
	// longRepetitive: longer texts, mostly blank lines and braces with unique lines
	// among them, so that lines repeated more often than xdiff's limit sit in runs of
	// unmatched lines (its multiple-match discards).
	longRepetitive
)

// genCase makes a base and two edited copies of the family's kind.
func genCase(r *rand.Rand, family int) (base, dest, updated []byte) {
	n := 0
	fresh := func() string {
		n++
		switch family {
		case uniqueLines:
			return fmt.Sprintf("line %d", n)
		case fewLines:
			return []string{"", "a", "b", "c", "}", "  x", "", "a"}[r.Intn(8)]
		default:
			if r.Intn(3) == 0 {
				return fmt.Sprintf("text %d", n)
			}
			return []string{"", "", "", "}", "{", ""}[r.Intn(6)]
		}
	}
	size, edits := r.Intn(12), 4
	if family == longRepetitive {
		size, edits = 20+r.Intn(50), 12
	}
	var lines []string
	for i := 0; i < size; i++ {
		lines = append(lines, fresh())
	}
	blocks := family == longRepetitive
	d := testsupport.Mutate(r, lines, r.Intn(edits), fresh, blocks)
	u := testsupport.Mutate(r, lines, r.Intn(edits), fresh, blocks)
	if r.Intn(5) == 0 { // the same change on both sides
		u = append([]string(nil), d...)
		u = testsupport.Mutate(r, u, r.Intn(2), fresh, blocks)
	}
	// mostly a final newline; sometimes one side drops it
	nl := func() bool { return r.Intn(8) != 0 }
	return join(lines, nl()), join(d, nl()), join(u, nl())
}

// compareWithGit merges base, dest and updated (git works in dir) with Merge and with
// git merge-file, and returns how the two disagree, each difference of texts shown by
// show(git's, Merge's), and git's number of conflicts: the verdict (clean or
// conflicting) must be the same, the text the same when clean, and the texts the same
// as git's --theirs with FavorUpdated and as git's --ours with FavorDest.
func compareWithGit(t *testing.T, dir string, base, dest, updated []byte, show func(want, got []byte) string) ([]string, int) {
	t.Helper()
	gitPlain, gitConflicts := testsupport.GitMergeFile(t, dir, base, dest, updated)
	gitTheirs, _ := testsupport.GitMergeFile(t, dir, base, dest, updated, "--theirs")
	gitOurs, _ := testsupport.GitMergeFile(t, dir, base, dest, updated, "--ours")
	theirs := Merge(base, dest, updated, FavorUpdated)
	ours := Merge(base, dest, updated, FavorDest)
	var problems []string
	if (gitConflicts > 0) != (len(theirs.Conflicts) > 0) {
		problems = append(problems, fmt.Sprintf("git reports %d conflicts, Merge %d", gitConflicts, len(theirs.Conflicts)))
	}
	if gitConflicts == 0 && len(theirs.Conflicts) == 0 && !bytes.Equal(gitPlain, theirs.Merged) {
		problems = append(problems, "clean merge differs: "+show(gitPlain, theirs.Merged))
	}
	if !bytes.Equal(gitTheirs, theirs.Merged) {
		problems = append(problems, "--theirs differs: "+show(gitTheirs, theirs.Merged))
	}
	if !bytes.Equal(gitOurs, ours.Merged) {
		problems = append(problems, "--ours differs: "+show(gitOurs, ours.Merged))
	}
	return problems, gitConflicts
}

// TestDifferentialAgainstGitMergeFile compares Merge with git merge-file on generated
// cases: the same verdict (clean or conflicting), the same text when clean, and the
// same text as --theirs and --ours with each Favor.
func TestDifferentialAgainstGitMergeFile(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	cases := 200
	if testing.Short() {
		cases = 60
	}
	dir := t.TempDir()
	for family := uniqueLines; family <= longRepetitive; family++ {
		r := rand.New(rand.NewSource(int64(family + 1)))
		failures, conflicting := 0, 0
		for i := 0; i < cases && failures < 5; i++ {
			base, dest, updated := genCase(r, family)
			problems, gitConflicts := compareWithGit(t, dir, base, dest, updated, func(want, got []byte) string {
				return fmt.Sprintf("\ngit:   %q\nMerge: %q", want, got)
			})
			if gitConflicts > 0 {
				conflicting++
			}
			if len(problems) > 0 {
				failures++
				t.Errorf("family %d case %d:\nbase:    %q\ndest:    %q\nupdated: %q\n%s", family, i, base, dest, updated,
					strings.Join(problems, "\n"))
			}
		}
		// The generator must give both outcomes, or the comparison proves little.
		if conflicting == 0 || conflicting == cases {
			t.Errorf("family %d: %d of %d cases conflict in git; the generator needs both outcomes", family, conflicting, cases)
		}
	}
}

// TestDifferentialLargeAgainstGitMergeFile compares Merge with git merge-file on long
// generated texts (bench/gen.TextMerge: 5,000 to 50,000 lines, upstream moving some or
// all sections, both sides editing, many repeated lines), where a diff costs far more
// than xdiff's 256-edit limits, so that its cost heuristics decide the diff: the
// --theirs and --ours texts byte for byte, the clean text byte for byte when git's
// merge is clean, and the verdict (clean or conflicting). The number of conflicts is
// not compared: git also splits a conflict where its two sides share lines and joins
// conflicts fewer than four lines apart or apart by lines without a letter or digit
// (xdl_refine_conflicts, xdl_simplify_non_conflicts), which changes the count and not
// the merged text; Merge does neither.
func TestDifferentialLargeAgainstGitMergeFile(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	cases := []gen.TextOptions{
		{Lines: 5000, Moved: 100, Seed: 1},
		{Lines: 5000, Moved: 20, Repetitive: true, Seed: 2},
		{Lines: 5000, Moved: 0, Seed: 3},
		{Lines: 20000, Moved: 100, Seed: 4},
		{Lines: 20000, Moved: 100, LocalEvery: 20000, Seed: 8},
		{Lines: 20000, Moved: 40, Repetitive: true, Seed: 5},
		{Lines: 50000, Moved: 100, Repetitive: true, Seed: 6},
		{Lines: 50000, Moved: 10, Seed: 7},
		{Lines: 50000, Moved: 100, LocalEvery: 50000, Seed: 9},
	}
	// and smaller ones of every shape, whose boxes still pass the heuristics' limits
	r := rand.New(rand.NewSource(10))
	for i := 0; i < 12; i++ {
		cases = append(cases, gen.TextOptions{Lines: 2000 + r.Intn(8000), Moved: r.Intn(101),
			LocalEvery: []int{0, 30, 1000, 5000}[r.Intn(4)], Repetitive: r.Intn(2) == 0, Seed: uint64(100 + i)})
	}
	if testing.Short() {
		cases = append(cases[:5:5], cases[len(cases)-4:]...)
	}
	clean := 0
	dir := t.TempDir()
	for _, opts := range cases {
		name := fmt.Sprintf("%d lines, %d%% moved, local 1 in %d, repetitive %v, seed %d", opts.Lines, opts.Moved,
			opts.LocalEvery, opts.Repetitive, opts.Seed)
		t.Run(name, func(t *testing.T) {
			base, dest, updated := gen.TextMerge(opts)
			problems, gitConflicts := compareWithGit(t, dir, base, dest, updated, firstDifference)
			if gitConflicts == 0 {
				clean++
			}
			for _, p := range problems {
				t.Error(p)
			}
		})
	}
	// Both outcomes, or the comparison of clean texts proves little.
	if clean == 0 || clean == len(cases) {
		t.Errorf("%d of %d cases merge cleanly in git; the cases need both outcomes", clean, len(cases))
	}
}

// firstDifference describes where got first departs from want: the line number and a
// few lines of each from there.
func firstDifference(want, got []byte) string {
	w, g := splitLines(want), splitLines(got)
	i := 0
	for i < len(w) && i < len(g) && bytes.Equal(w[i], g[i]) {
		i++
	}
	excerpt := func(lines [][]byte) string {
		return fmt.Sprintf("%q", bytes.Join(lines[i:min(i+4, len(lines))], nil))
	}
	return fmt.Sprintf("line %d (of %d in git's, %d in Merge's):\ngit:   %s\nMerge: %s", i+1, len(w), len(g), excerpt(w), excerpt(g))
}
