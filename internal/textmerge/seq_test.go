package textmerge

import (
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

// diff3 renders a sequence merge as `git merge-file -p --diff3 -L dest -L base -L
// updated` prints it: dest's lines with each region replaced, each Conflicting region
// as a conflict hunk showing dest's, base's and updated's lines.
func diff3(lb, ld, lu [][]byte, list []Region) string {
	var b strings.Builder
	write := func(lines [][]byte) {
		for _, l := range lines {
			b.Write(l)
		}
	}
	line := 0
	for _, r := range list {
		write(ld[line:r.Dest.Start])
		line = r.Dest.End()
		switch r.Kind {
		case DestChanged, SameChange:
			write(ld[r.Dest.Start:r.Dest.End()])
		case UpdatedChanged:
			write(lu[r.Updated.Start:r.Updated.End()])
		case Conflicting:
			b.WriteString("<<<<<<< dest\n")
			write(ld[r.Dest.Start:r.Dest.End()])
			b.WriteString("||||||| base\n")
			write(lb[r.Base.Start:r.Base.End()])
			b.WriteString("=======\n")
			write(lu[r.Updated.Start:r.Updated.End()])
			b.WriteString(">>>>>>> updated\n")
		}
	}
	write(ld[line:])
	return b.String()
}

// TestMergeSeqAgainstGitDiff3 compares MergeSeq's regions with git merge-file's
// conflict hunks on generated texts (lines interned as ids): git's --diff3 output,
// conflict hunks with their dest, base and updated lines included, must equal the same
// output rendered from MergeSeq's regions. Every text ends with a newline (git adds one
// to a conflict hunk's side that lacks it; TestDifferentialAgainstGitMergeFile covers
// texts without one).
func TestMergeSeqAgainstGitDiff3(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	cases := 200
	if testing.Short() {
		cases = 60
	}
	dir := t.TempDir()
	for family := uniqueLines; family <= longRepetitive; family++ {
		r := rand.New(rand.NewSource(int64(family + 11)))
		failures, conflicting := 0, 0
		for i := 0; i < cases && failures < 5; i++ {
			base, dest, updated := genCase(r, family)
			texts := map[string][]byte{"base": base, "dest": dest, "updated": updated}
			for name, b := range texts {
				if len(b) > 0 && b[len(b)-1] != '\n' {
					b = append(b, '\n')
				}
				texts[name] = b
				if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command("git", "merge-file", "-p", "--diff3", "-L", "dest", "-L", "base", "-L", "updated",
				filepath.Join(dir, "dest"), filepath.Join(dir, "base"), filepath.Join(dir, "updated"))
			gitOut, err := cmd.Output()
			if err != nil {
				if _, ok := err.(*exec.ExitError); !ok {
					t.Fatal(err)
				}
			}
			lb, ld, lu := splitLines(texts["base"]), splitLines(texts["dest"]), splitLines(texts["updated"])
			in := interner{}
			list := MergeSeq(in.ids(lb), in.ids(ld), in.ids(lu))
			got := diff3(lb, ld, lu, list)
			want := testsupport.SameSides(string(gitOut))
			if strings.Contains(want, "<<<<<<< dest") {
				conflicting++
			}
			if got != want {
				failures++
				t.Errorf("family %d case %d:\nbase:    %q\ndest:    %q\nupdated: %q\ngit:       %q\nMergeSeq: %q\nregions: %+v",
					family, i, texts["base"], texts["dest"], texts["updated"], want, got, list)
			}
			checkRegions(t, list, len(lb), len(ld), len(lu))
		}
		if conflicting == 0 || conflicting == cases {
			t.Errorf("family %d: %d of %d cases conflict in git; the generator needs both outcomes", family, conflicting, cases)
		}
	}
}

// checkRegions checks MergeSeq's promise on the shape of its output: regions in order
// in each input, the runs between them of one length in all three.
func checkRegions(t *testing.T, list []Region, nb, nd, nu int) {
	t.Helper()
	b, d, u := 0, 0, 0
	for _, r := range list {
		gb, gd, gu := r.Base.Start-b, r.Dest.Start-d, r.Updated.Start-u
		if gb < 0 || gb != gd || gb != gu {
			t.Errorf("regions %+v: the run before %+v is %d, %d, %d long in base, dest, updated", list, r, gb, gd, gu)
			return
		}
		b, d, u = r.Base.End(), r.Dest.End(), r.Updated.End()
	}
	if nb-b != nd-d || nb-b != nu-u {
		t.Errorf("regions %+v: the tail is %d, %d, %d long", list, nb-b, nd-d, nu-u)
	}
}

func TestMergeSeqCases(t *testing.T) {
	ids := func(s string) []int {
		var out []int
		for _, f := range strings.Fields(s) {
			out = append(out, int(f[0]))
		}
		return out
	}
	for _, tc := range []struct {
		name                string
		base, dest, updated string
		want                []Region
	}{
		{"one change a side, an item apart", "a b c", "A b c", "a b C", []Region{
			{Kind: DestChanged, Base: Span{0, 1}, Dest: Span{0, 1}, Updated: Span{0, 1}},
			{Kind: UpdatedChanged, Base: Span{2, 1}, Dest: Span{2, 1}, Updated: Span{2, 1}}}},
		{"adjacent changes conflict", "a b c", "A b c", "a B c", []Region{
			{Kind: Conflicting, Base: Span{0, 2}, Dest: Span{0, 2}, Updated: Span{0, 2}}}},
		{"an insertion next to a change conflicts", "a b", "a b X", "a B", []Region{
			{Kind: Conflicting, Base: Span{1, 1}, Dest: Span{1, 2}, Updated: Span{1, 1}}}},
		{"an insertion an item away merges", "a b", "a b X", "A b", []Region{
			{Kind: UpdatedChanged, Base: Span{0, 1}, Dest: Span{0, 1}, Updated: Span{0, 1}},
			{Kind: DestChanged, Base: Span{2, 0}, Dest: Span{2, 1}, Updated: Span{2, 0}}}},
		{"the same change on both sides", "a b c", "a X c", "a X c", []Region{
			{Kind: SameChange, Base: Span{1, 1}, Dest: Span{1, 1}, Updated: Span{1, 1}}}},
		{"insertions at both ends", "a b", "X a b", "a b Y", []Region{
			{Kind: DestChanged, Base: Span{0, 0}, Dest: Span{0, 1}, Updated: Span{0, 0}},
			{Kind: UpdatedChanged, Base: Span{2, 0}, Dest: Span{3, 0}, Updated: Span{2, 1}}}},
		{"both insert at one place", "a", "a X", "a Y", []Region{
			{Kind: Conflicting, Base: Span{1, 0}, Dest: Span{1, 1}, Updated: Span{1, 1}}}},
		{"empty base", "", "X", "X", []Region{
			{Kind: SameChange, Base: Span{0, 0}, Dest: Span{0, 1}, Updated: Span{0, 1}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := MergeSeq(ids(tc.base), ids(tc.dest), ids(tc.updated))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			checkRegions(t, got, len(ids(tc.base)), len(ids(tc.dest)), len(ids(tc.updated)))
		})
	}
}
