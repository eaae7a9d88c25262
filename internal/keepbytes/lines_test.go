package keepbytes

import (
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/internal/textmerge"
)

func TestMerge3(t *testing.T) {
	for _, tc := range []struct {
		name, base, ours, theirs string
		favor                    textmerge.Favor
		want                     string
	}{
		{"clean, as git merge-file", "a\nb\nc\nd\ne\n", "A\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n", textmerge.FavorUpdated, "A\nb\nc\nd\nE\n"},
		{"changes that touch: both", "a\nb\nc\nd\n", "a\nB\nc\nd\n", "a\nb\nC\nd\n", textmerge.FavorUpdated, "a\nB\nC\nd\n"},
		{"a deletion touching a change: both", "a\nb\nc\nd\n", "a\nc\nd\n", "a\nb\nC\nd\n", textmerge.FavorDest, "a\nC\nd\n"},
		{"an insertion after the other's change: both", "a\nb\nc\n", "a\nB\nc\n", "a\nb\nx\nc\n", textmerge.FavorUpdated, "a\nB\nx\nc\n"},
		{"touching at the first and last line", "a\nb\n", "A\nb\n", "a\nB", textmerge.FavorUpdated, "A\nB"},
		{"lines replaced one for one: line by line, favor's where both replaced one", "a\nb\nc\nd\n", "a\nB1\nc\nd\n", "a\nB2\nC\nd\n", textmerge.FavorDest, "a\nB1\nC\nd\n"},
		{"lines replaced one for one, favor updated", "a\nb\nc\nd\ne\n", "a\nB1\nc\nD1\ne\n", "a\nB2\nC\nd\ne\n", textmerge.FavorUpdated, "a\nB2\nC\nD1\ne\n"},
		{"overlapping otherwise: favor's side", "a\nb\nc\nd\n", "a\nB1\nc\nd\n", "a\nX\nY\nZ\nd\n", textmerge.FavorUpdated, "a\nX\nY\nZ\nd\n"},
		{"overlapping otherwise: favor dest", "a\nb\nc\nd\n", "a\nB1\nc\nd\n", "a\nX\nY\nZ\nd\n", textmerge.FavorDest, "a\nB1\nc\nd\n"},
		{"two insertions at one place: favor's side", "a\nb\n", "a\nx\nb\n", "a\ny\nb\n", textmerge.FavorUpdated, "a\ny\nb\n"},
		{"an insertion where the other's change begins: favor's side", "a\nb\nc\n", "a\nx\nb\nc\n", "a\nB\nc\n", textmerge.FavorDest, "a\nx\nb\nc\n"},
		{"equal changes: one", "a\nb\nc\n", "a\nB\nc\n", "a\nB\nc\n", textmerge.FavorUpdated, "a\nB\nc\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(Lines([]byte(tc.base), []byte(tc.ours), []byte(tc.theirs), tc.favor)); got != tc.want {
				t.Errorf("Lines = %q, want %q", got, tc.want)
			}
		})
	}
}

// hunks reads textmerge.Unified's headers back into line ranges: applying them to old
// gives new, for changes at the start, in the middle and at the end, with and without a
// final newline.
func TestHunks(t *testing.T) {
	texts := []string{"", "a\n", "a", "a\nb\nc\n", "x\na\nb\nc\n", "a\nc\n", "a\nb\nc\nd\n", "b\nc", "a\nB\nc\nD\n"}
	for _, old := range texts {
		for _, new := range texts {
			hs, ok := hunks([]byte(old), []byte(new))
			if !ok {
				t.Fatalf("hunks(%q, %q) failed", old, new)
			}
			ol, nl := splitLines([]byte(old)), splitLines([]byte(new))
			var b strings.Builder
			at := 0
			for _, h := range hs {
				for _, l := range ol[at:h.a0] {
					b.Write(l)
				}
				for _, l := range nl[h.b0:h.b1] {
					b.Write(l)
				}
				at = h.a1
			}
			for _, l := range ol[at:] {
				b.Write(l)
			}
			if b.String() != new {
				t.Errorf("hunks(%q, %q) = %+v rebuild %q", old, new, hs, b.String())
			}
		}
	}
	for _, s := range []string{"x", "1,x", "-1", "0", "2,-1"} {
		if _, _, ok := parseRange(s); ok {
			t.Errorf("parseRange(%q) ok", s)
		}
	}
}

func TestGroup(t *testing.T) {
	in := "a: b\n" +
		"description: a wrapped\n  plain scalar\n" +
		"script: |\n  line one\n\n  line two\n" +
		"args: [ --a,\n    --b ]\n" +
		"list:\n- name: x\n  value: y\n  # a comment\n" +
		"  \"quoted key\": v\n" +
		"  text: \"a quoted\n    scalar: with a colon\"\n" +
		"---\n"
	want := "a: b\n" +
		"description: a wrapped|  plain scalar\n" +
		"script: ||  line one||  line two\n" +
		"args: [ --a,|    --b ]\n" +
		"list:\n- name: x\n  value: y\n  # a comment\n" +
		"  \"quoted key\": v\n" +
		"  text: \"a quoted\n    scalar: with a colon\"\n" +
		"---\n"
	if got := strings.ReplaceAll(string(group([]byte(in))), "\x00", "|"); got != want {
		t.Errorf("group:\n%s\nwant\n%s", got, want)
	}
	// a wrapped scalar changed on one side, the next field on the other: one line each
	base := "a: x\ndescription: one two\n  three\nb: 1\n"
	ours := "a: x\ndescription: one two\n  four\nb: 1\n"
	theirs := "a: x\ndescription: one two\n  three\nb: 2\n"
	if got, want := string(Lines([]byte(base), []byte(ours), []byte(theirs), textmerge.FavorUpdated)), "a: x\ndescription: one two\n  four\nb: 2\n"; got != want {
		t.Errorf("Lines = %q, want %q", got, want)
	}
	// NUL in a text: merged by text lines
	if got := string(Lines([]byte("a\x00\nb\n"), []byte("a\x00\nB\n"), []byte("a\x00\nb\n"), textmerge.FavorUpdated)); got != "a\x00\nB\n" {
		t.Errorf("merge3 with NUL = %q", got)
	}
}
