package testsupport

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

// GitMergeFile writes base, dest and updated into dir (files of those names; a
// directory the caller reuses across cases) and runs `git merge-file -p <args> dest
// base updated` there, args being git's options (flags such as --diff3 or --theirs,
// and -L labels). It returns git's output and its exit code, the number of conflicts (0
// for a clean merge, or under --ours and --theirs). t fails on any other failure of
// git, and is skipped when git is not on PATH.
func GitMergeFile(t testing.TB, dir string, base, dest, updated []byte, args ...string) ([]byte, int) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	for name, b := range map[string][]byte{"base": base, "dest": dest, "updated": updated} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	full := append(append([]string{"merge-file", "-p"}, args...),
		filepath.Join(dir, "dest"), filepath.Join(dir, "base"), filepath.Join(dir, "updated"))
	cmd := exec.Command("git", full...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out, 0
	case errors.As(err, &exit) && exit.ExitCode() > 0 && exit.ExitCode() < 128:
		return out, exit.ExitCode()
	}
	t.Fatalf("git %s: %v\n%s", strings.Join(full, " "), err, stderr.String())
	return nil, 0
}

// SameSides returns git's --diff3 output s (labels dest, base and updated) with each
// conflict hunk whose dest and updated sides hold the same lines replaced by those
// lines: --diff3 keeps such a hunk (it shows base), git's default style and krm-merge's
// merges drop it (xdl_refine_conflicts).
func SameSides(s string) string {
	const head, base, sep, tail = "<<<<<<< dest\n", "||||||| base\n", "=======\n", ">>>>>>> updated\n"
	var out strings.Builder
	for {
		i := strings.Index(s, head)
		if i < 0 {
			return out.String() + s
		}
		out.WriteString(s[:i])
		hunk := s[i:]
		end := strings.Index(hunk, tail) + len(tail)
		hunk, s = hunk[:end], hunk[end:]
		ours := hunk[len(head):strings.Index(hunk, base)]
		theirs := hunk[strings.Index(hunk, sep)+len(sep) : len(hunk)-len(tail)]
		if ours == theirs {
			out.WriteString(ours)
		} else {
			out.WriteString(hunk)
		}
	}
}

// Mutate returns a copy of items with n random edits (delete one, replace one with
// fresh(), insert fresh() anywhere); with blocks, one edit in four instead replaces a
// run of items with a new paragraph of 8 to 19 ("new <n>", every sixth one empty).
func Mutate(r *rand.Rand, items []string, n int, fresh func() string, blocks bool) []string {
	out := append([]string(nil), items...)
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
