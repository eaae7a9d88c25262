package textmerge

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitMergeFile runs `git merge-file -p [flag] dest base updated` and returns its output
// and exit code (without a flag, the number of conflicts).
func gitMergeFile(t *testing.T, dir string, flag string) ([]byte, int) {
	t.Helper()
	args := []string{"merge-file", "-p"}
	if flag != "" {
		args = append(args, flag)
	}
	args = append(args, filepath.Join(dir, "dest"), filepath.Join(dir, "base"), filepath.Join(dir, "updated"))
	cmd := exec.Command("git", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out, 0
	case errors.As(err, &exit) && exit.ExitCode() > 0 && exit.ExitCode() < 128:
		return out, exit.ExitCode()
	default:
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		return nil, 0
	}
}

// mutate applies n random line edits (delete, replace, insert) to lines, new lines
// drawn from fresh(); with blocks, also replaces runs of lines with new paragraphs
// (new lines with a blank line among them).
func mutate(r *rand.Rand, lines []string, n int, fresh func() string, blocks bool) []string {
	out := append([]string(nil), lines...)
	for k := 0; k < n; k++ {
		op := r.Intn(3)
		if blocks && r.Intn(4) == 0 {
			i := r.Intn(len(out) + 1)
			j := i + r.Intn(len(out)-i+1)
			var para []string
			for m := 0; m < 8+r.Intn(12); m++ {
				if m%6 == 5 {
					para = append(para, "")
				} else {
					para = append(para, fmt.Sprintf("new %d", r.Int()))
				}
			}
			out = append(out[:i], append(para, out[j:]...)...)
			continue
		}
		switch {
		case op == 0 && len(out) > 0:
			i := r.Intn(len(out))
			out = append(out[:i], out[i+1:]...)
		case op == 1 && len(out) > 0:
			out[r.Intn(len(out))] = fresh()
		default:
			i := r.Intn(len(out) + 1)
			out = append(out[:i], append([]string{fresh()}, out[i:]...)...)
		}
	}
	return out
}

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
	d := mutate(r, lines, r.Intn(edits), fresh, blocks)
	u := mutate(r, lines, r.Intn(edits), fresh, blocks)
	if r.Intn(5) == 0 { // the same change on both sides
		u = append([]string(nil), d...)
		u = mutate(r, u, r.Intn(2), fresh, blocks)
	}
	// mostly a final newline; sometimes one side drops it
	nl := func() bool { return r.Intn(8) != 0 }
	return join(lines, nl()), join(d, nl()), join(u, nl())
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
			for name, b := range map[string][]byte{"base": base, "dest": dest, "updated": updated} {
				if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			gitPlain, gitConflicts := gitMergeFile(t, dir, "")
			gitTheirs, _ := gitMergeFile(t, dir, "--theirs")
			gitOurs, _ := gitMergeFile(t, dir, "--ours")
			theirs := Merge(base, dest, updated, FavorUpdated)
			ours := Merge(base, dest, updated, FavorDest)
			if gitConflicts > 0 {
				conflicting++
			}
			var problems []string
			if (gitConflicts > 0) != (len(theirs.Conflicts) > 0) {
				problems = append(problems, fmt.Sprintf("git reports %d conflicts, Merge %d", gitConflicts, len(theirs.Conflicts)))
			}
			if gitConflicts == 0 && len(theirs.Conflicts) == 0 && !bytes.Equal(gitPlain, theirs.Merged) {
				problems = append(problems, fmt.Sprintf("clean merge differs:\ngit:   %q\nMerge: %q", gitPlain, theirs.Merged))
			}
			if !bytes.Equal(gitTheirs, theirs.Merged) {
				problems = append(problems, fmt.Sprintf("--theirs differs:\ngit:   %q\nMerge: %q", gitTheirs, theirs.Merged))
			}
			if !bytes.Equal(gitOurs, ours.Merged) {
				problems = append(problems, fmt.Sprintf("--ours differs:\ngit:   %q\nMerge: %q", gitOurs, ours.Merged))
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
