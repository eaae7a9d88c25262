package textmerge

import (
	"bytes"
	"fmt"
	"math/rand"
	"os/exec"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

var labels = Labels{Dest: "local", Base: "v1", Updated: "v2"}

// resolve takes one side of every hunk of a marked text ('d' dest, 'b' base, 'u'
// updated) and drops the markers; it fails on a hunk that is not well formed.
func resolve(t *testing.T, text []byte, side byte) []byte {
	t.Helper()
	var out bytes.Buffer
	state := byte(0) // 0 outside a hunk, else the section being read
	for _, line := range splitLines(text) {
		if IsMarker(line) {
			switch {
			case line[0] == '<' && state == 0:
				state = 'd'
			case line[0] == '|' && state == 'd':
				state = 'b'
			case line[0] == '=' && state == 'b':
				state = 'u'
			case line[0] == '>' && state == 'u':
				state = 0
			default:
				t.Fatalf("marker %q out of place in:\n%s", line, text)
			}
			continue
		}
		if state == 0 || state == side {
			out.Write(line)
		}
	}
	if state != 0 {
		t.Fatalf("unterminated hunk in:\n%s", text)
	}
	return out.Bytes()
}

// crlf turns every "\n" of b into "\r\n".
func crlf(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) }

// TestMergeMarkedAgainstGit compares MergeMarked with `git merge-file -p --diff3 -L
// local -L v1 -L v2` on the generated families of TestDifferentialAgainstGitMergeFile,
// also with "\r\n" line ends: the same text byte for byte, as many hunks as git counts
// conflicts, each hunk's Marked range on its marker lines, and choosing every dest
// (updated) side gives Merge's FavorDest (FavorUpdated) text.
func TestMergeMarkedAgainstGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	cases := 150
	if testing.Short() {
		cases = 40
	}
	dir := t.TempDir()
	hunks, sameSides := 0, 0
	check := func(name string, base, dest, updated []byte) bool {
		want, conflicts := testsupport.GitMergeFile(t, dir, base, dest, updated, "--diff3", "-L", "local", "-L", "v1", "-L", "v2")
		got := MergeMarked(base, dest, updated, labels)
		var problems []string
		if !bytes.Equal(got.Text, want) {
			problems = append(problems, fmt.Sprintf("text differs:\ngit:          %q\nMergeMarked:  %q", want, got.Text))
		}
		if len(got.Hunks) != conflicts {
			problems = append(problems, fmt.Sprintf("%d hunks, git counts %d conflicts", len(got.Hunks), conflicts))
		}
		lines := splitLines(got.Text)
		for _, h := range got.Hunks {
			first, last := h.Marked.Start-1, h.Marked.Start+h.Marked.Lines-2
			if last >= len(lines) || !bytes.HasPrefix(lines[first], []byte("<<<<<<< local")) || !bytes.HasPrefix(lines[last], []byte(">>>>>>> v2")) {
				problems = append(problems, fmt.Sprintf("hunk %+v: its Marked range is not on its markers", h))
			}
			hunks++
			if h.Dest.Lines > 0 && bytes.Equal(join2(splitLines(dest)[h.Dest.Start-1:h.Dest.Start-1+h.Dest.Lines]),
				join2(splitLines(updated)[h.Updated.Start-1:h.Updated.Start-1+h.Updated.Lines])) {
				sameSides++
			}
		}
		if endsInNewline(dest) && endsInNewline(updated) && endsInNewline(base) {
			if d := Merge(base, dest, updated, FavorDest).Merged; !bytes.Equal(resolve(t, got.Text, 'd'), d) {
				problems = append(problems, fmt.Sprintf("every dest side: %q, FavorDest: %q", resolve(t, got.Text, 'd'), d))
			}
			if u := Merge(base, dest, updated, FavorUpdated).Merged; !bytes.Equal(resolve(t, got.Text, 'u'), u) {
				problems = append(problems, fmt.Sprintf("every updated side: %q, FavorUpdated: %q", resolve(t, got.Text, 'u'), u))
			}
		}
		if len(problems) > 0 {
			t.Errorf("%s:\nbase:    %q\ndest:    %q\nupdated: %q\n%s", name, base, dest, updated, strings.Join(problems, "\n"))
		}
		return len(problems) == 0
	}
	// A region whose two sides end up alike: --diff3 keeps it as a hunk.
	check("same sides", []byte("a\nb\nb\n"), []byte("d\na\na\nb\n"), []byte("d\na\nb\n"))
	for family := uniqueLines; family <= longRepetitive; family++ {
		for _, eol := range []string{"lf", "crlf", "mixed"} {
			r := rand.New(rand.NewSource(int64(100*family + len(eol))))
			failures := 0
			for i := 0; i < cases && failures < 5; i++ {
				base, dest, updated := genCase(r, family)
				switch eol {
				case "crlf":
					base, dest, updated = crlf(base), crlf(dest), crlf(updated)
				case "mixed": // one side only
					updated = crlf(updated)
				}
				if !check(fmt.Sprintf("family %d %s case %d", family, eol, i), base, dest, updated) {
					failures++
				}
			}
		}
	}
	// The generator must give hunks, and hunks whose sides hold the same lines (which
	// --diff3 keeps and the default output refines away), or the comparison proves little.
	if hunks == 0 || sameSides == 0 {
		t.Errorf("%d hunks, %d with the same lines on both sides: the generator needs both", hunks, sameSides)
	}
}

func join2(lines [][]byte) []byte { return bytes.Join(lines, nil) }

func endsInNewline(b []byte) bool { return len(b) == 0 || b[len(b)-1] == '\n' }

// TestMarkDifferences: three versions of one merge that differ only at its conflicts
// (dest's and updated's decisions, and base's), generated by deciding random regions
// of a text each way: every run where dest and updated differ is a hunk with base's
// lines in the middle; choosing every dest side gives dest byte for byte, every
// updated side updated, every base side base.
func TestMarkDifferences(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for i := 0; i < 300; i++ {
		var b, d, u []string
		for k := 0; k < 3+r.Intn(12); k++ {
			common := fmt.Sprintf("line %d", r.Intn(6))
			if r.Intn(3) > 0 {
				b, d, u = append(b, common), append(d, common), append(u, common)
				continue
			}
			// a conflict: each side its own run of 0 to 2 lines
			run := func(tag string) []string {
				var out []string
				for n := r.Intn(3); n > 0; n-- {
					out = append(out, fmt.Sprintf("%s %d", tag, r.Intn(3)))
				}
				return out
			}
			b, d, u = append(b, run("base")...), append(d, run("dest")...), append(u, run("updated")...)
		}
		base, dest, updated := join(b, true), join(d, true), join(u, true)
		m := MarkDifferences(Sides{Dest: dest, Updated: updated, Base: base}, labels)
		if got := resolve(t, m.Text, 'd'); !bytes.Equal(got, dest) {
			t.Fatalf("case %d: every dest side %q, want %q\nmarked:\n%s", i, got, dest, m.Text)
		}
		if got := resolve(t, m.Text, 'u'); !bytes.Equal(got, updated) {
			t.Fatalf("case %d: every updated side %q, want %q\nmarked:\n%s", i, got, updated, m.Text)
		}
		if (len(m.Hunks) == 0) != bytes.Equal(dest, updated) {
			t.Fatalf("case %d: %d hunks for dest %q and updated %q", i, len(m.Hunks), dest, updated)
		}
		for _, h := range m.Hunks {
			bl := join2(splitLines(base)[h.Base.Start-1 : h.Base.Start-1+h.Base.Lines])
			dl := join2(splitLines(dest)[h.Dest.Start-1 : h.Dest.Start-1+h.Dest.Lines])
			ul := join2(splitLines(updated)[h.Updated.Start-1 : h.Updated.Start-1+h.Updated.Lines])
			if bytes.Equal(dl, ul) {
				t.Fatalf("case %d: hunk %+v holds the same lines on both sides", i, h)
			}
			if !strings.Contains(string(m.Text), "||||||| v1\n"+string(bl)+"=======\n") {
				t.Fatalf("case %d: hunk %+v lacks base's lines %q:\n%s", i, h, bl, m.Text)
			}
		}
	}
}

// A marker line is what git's conflict check takes for one.
func TestIsMarker(t *testing.T) {
	for line, want := range map[string]bool{
		"<<<<<<< local\n": true, "||||||| v1\n": true, "=======\n": true, ">>>>>>> v2\n": true,
		"=======\r\n": true, "<<<<<<<\n": true, "=======": false, "========\n": false,
		"<<<<<<\n": false, " =======\n": false, "<<<<<<<x\n": false, "=====\n": false, "-------\n": false,
	} {
		if got := IsMarker([]byte(line)); got != want {
			t.Errorf("IsMarker(%q) = %v, want %v", line, got, want)
		}
	}
}
