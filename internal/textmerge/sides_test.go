package textmerge

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

// hunkText is one hunk of a marked text as MarkDifferences writes it with labels.
func hunkText(dest, base, updated string) string {
	return "<<<<<<< local\n" + dest + "||||||| v1\n" + base + "=======\n" + updated + ">>>>>>> v2\n"
}

// MarkDifferences with the releases' texts: each hunk where dest and updated differ,
// its base and updated sides the texts' own lines.
func TestMarkDifferencesSidesFromTexts(t *testing.T) {
	for _, c := range []struct {
		name                string
		dest, updated, base string
		updText, baseText   string
		want                string
	}{
		{
			name:     "each side's own comment",
			dest:     "a: 1\nb: 3 # mine\nc: 1\n",
			updated:  "a: 1\nb: 2 # mine\nc: 1\n",
			base:     "a: 1\nb: 1 # mine\nc: 1\n",
			updText:  "a: 1\nb: 2 # theirs\nc: 1\n",
			baseText: "a: 1\nb: 1\nc: 1\n",
			want:     "a: 1\n" + hunkText("b: 3 # mine\n", "b: 1\n", "b: 2 # theirs\n") + "c: 1\n",
		},
		{
			name:     "lines the local copy added next to the conflict pair by key",
			dest:     "m: # kpt\n  n: x\n  ann:\n    id: x\nd:\n  k: 3 # mine\n",
			updated:  "m: # kpt\n  n: x\n  ann:\n    id: x\nd:\n  k: 2 # mine\n",
			base:     "m: # kpt\n  n: x\n  ann:\n    id: x\nd:\n  k: 1 # mine\n",
			updText:  "m:\n  n: x\nd:\n  k: 2\n",
			baseText: "m:\n  n: x\nd:\n  k: 1\n",
			want:     "m: # kpt\n  n: x\n  ann:\n    id: x\nd:\n" + hunkText("  k: 3 # mine\n", "  k: 1\n", "  k: 2\n"),
		},
		{
			name:     "a field upstream added: no base",
			dest:     "a: 1\nt: 300 # keep\n---\n",
			updated:  "a: 1\nt: 0 # keep\n---\n",
			base:     "a: 1\n---\n",
			updText:  "a: 1\nt: 0\n---\n",
			baseText: "a: 1\n---\n",
			want:     "a: 1\n" + hunkText("t: 300 # keep\n", "", "t: 0\n") + "---\n",
		},
		{
			name:     "a value the base writes in another style: the base from the updated text",
			dest:     "f: |\n  uno\n  two\ng: x\n",
			updated:  "f: |\n  ONE\n  two\ng: x\n",
			base:     "f: \"one  \\ntwo\\n\"\ng: x\n",
			updText:  "f: |\n  ONE\n  two\ng: x\n",
			baseText: "f: |\n  one  \n  two\ng: x\n",
			want:     "f: |\n" + hunkText("  uno\n", "  one  \n", "  ONE\n") + "  two\ng: x\n",
		},
		{
			name:     "a change the alignment cannot split widens the hunk",
			dest:     "a: 1\nb: 3\nc: 1\n",
			updated:  "a: 1\nb: 2\nc: 1\n",
			base:     "a: 1\nb: 1\nc: 1\n",
			updText:  "a: 1\nb: [\n  2]\nc: 1\n",
			baseText: "a: 1\nb: 1\nc: 1\n",
			want:     "a: 1\n" + hunkText("b: 3\n", "b: 1\n", "b: [\n  2]\n") + "c: 1\n",
		},
		{
			name:    "no text: the versions' lines",
			dest:    "a: 1\nb: 3 # mine\n",
			updated: "a: 1\nb: 2 # mine\n",
			base:    "a: 1\nb: 1 # mine\n",
			want:    "a: 1\n" + hunkText("b: 3 # mine\n", "b: 1 # mine\n", "b: 2 # mine\n"),
		},
		{
			name:     "lines the text lacks: the version's",
			dest:     "a: 1\nb: 3\n",
			updated:  "a: 1\nb: 2\n",
			base:     "a: 1\nb: 1\n",
			updText:  "a: 1\n",
			baseText: "a: 1\nb: 1\n",
			want:     "a: 1\n" + hunkText("b: 3\n", "b: 1\n", "b: 2\n"),
		},
		{
			name:     "deleted upstream: the base's lines",
			dest:     "x: 1\n---\nk: ours\nv: 1\n",
			updated:  "x: 1\n",
			base:     "x: 1\n---\nk: base # kpt\nv: 1\n",
			updText:  "x: 1\n",
			baseText: "x: 1\n---\nk: base\nv: 1\n",
			want:     "x: 1\n" + hunkText("---\nk: ours\nv: 1\n", "---\nk: base\nv: 1\n", ""),
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Sides{Dest: []byte(c.dest), Updated: []byte(c.updated), Base: []byte(c.base)}
			if c.updText != "" {
				s.UpdatedText = []byte(c.updText)
			}
			if c.baseText != "" {
				s.BaseText = []byte(c.baseText)
			}
			m := MarkDifferences(s, labels)
			if string(m.Text) != c.want {
				t.Errorf("marked:\n%s\nwant:\n%s", m.Text, c.want)
			}
			checkMarked(t, m, s)
		})
	}
}

// checkMarked checks what holds of every MarkDifferences result m of s: every dest
// side chosen gives s.Dest, m.Updated and m.Base are the text with every updated and
// base side chosen, each hunk's lines are where its ranges say, and its dest and
// updated sides differ unless taken from different texts.
func checkMarked(t *testing.T, m Marked, s Sides) {
	t.Helper()
	if got := resolve(t, m.Text, 'd'); !bytes.Equal(got, s.Dest) {
		t.Errorf("every dest side:\n%q\nwant dest:\n%q", got, s.Dest)
	}
	if got := resolve(t, m.Text, 'u'); !bytes.Equal(got, m.Updated) {
		t.Errorf("every updated side %q, Marked.Updated %q", got, m.Updated)
	}
	if got := resolve(t, m.Text, 'b'); !bytes.Equal(got, m.Base) {
		t.Errorf("every base side %q, Marked.Base %q", got, m.Base)
	}
	lines := splitLines(m.Text)
	for _, h := range m.Hunks {
		if !bytes.HasPrefix(lines[h.Marked.Start-1], []byte("<<<<<<< ")) || !bytes.HasPrefix(lines[h.Marked.Start+h.Marked.Lines-2], []byte(">>>>>>> ")) {
			t.Errorf("hunk %+v is not on its markers", h)
		}
		if got := join2(lines[h.Marked.Start : h.Marked.Start+h.Dest.Lines]); !bytes.Equal(got, join2(splitLines(s.Dest)[h.Dest.Start-1:h.Dest.Start-1+h.Dest.Lines])) {
			t.Errorf("hunk %+v: its dest side %q is not dest's lines", h, got)
		}
	}
	if (len(m.Hunks) == 0) != bytes.Equal(s.Dest, s.Updated) {
		t.Errorf("%d hunks for dest %q and updated %q", len(m.Hunks), s.Dest, s.Updated)
	}
}

// Random versions (updated: lines of dest replaced, inserted, deleted; base: each run
// where they differ its own) and texts: what checkMarked checks holds; and where the
// texts are the versions themselves, every updated side gives updated and every base
// side base.
func TestMarkDifferencesRandom(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	fresh := func() string { return fmt.Sprintf("k%d: %d # c%d", r.Intn(5), r.Intn(4), r.Intn(3)) }
	var items []string
	for i := 0; i < 12; i++ {
		items = append(items, fmt.Sprintf("k%d: %d", i, i))
	}
	for i := 0; i < 400; i++ {
		d := testsupport.Mutate(r, items, 1+r.Intn(3), fresh, false)
		u := testsupport.Mutate(r, d, 1+r.Intn(3), fresh, false)
		var b []string // d with each run where d and u differ replaced by 0 to 2 lines of its own
		in := interner{}
		next := 0
		for _, h := range diff(in.ids(splitLines(join(d, true))), in.ids(splitLines(join(u, true)))) {
			b = append(b, d[next:h.a0]...)
			for n := r.Intn(3); n > 0; n-- {
				b = append(b, fresh())
			}
			next = h.a1
		}
		b = append(b, d[next:]...)
		s := Sides{Dest: join(d, true), Updated: join(u, true), Base: join(b, true)}
		if i%2 == 0 {
			s.UpdatedText = join(testsupport.Mutate(r, u, r.Intn(3), fresh, false), true)
			s.BaseText = join(testsupport.Mutate(r, b, r.Intn(3), fresh, false), true)
		} else {
			s.UpdatedText, s.BaseText = s.Updated, s.Base
		}
		m := MarkDifferences(s, labels)
		checkMarked(t, m, s)
		if i%2 == 1 && (!bytes.Equal(m.Updated, s.Updated) || !bytes.Equal(m.Base, s.Base)) {
			t.Fatalf("case %d: with each version as its own text, every updated side %q, want %q; every base side %q, want %q\n%s",
				i, m.Updated, s.Updated, m.Base, s.Base, m.Text)
		}
		if t.Failed() {
			t.Fatalf("case %d: %+v\n%s", i, s, m.Text)
		}
	}
}

func TestLineKey(t *testing.T) {
	for line, want := range map[string]string{
		"  ttlSecondsAfterFinished: 300 # keep\n": "  ttlSecondsAfterFinished:",
		"metadata: # kpt-merge: /web\n":           "metadata:",
		"- name: app\n":                           "- name:",
		"    uno  \n":                             "    uno",
		"  'a: b': c\n":                           "  'a: b':",
		"  url: http://x\n":                       "  url:",
		"  - http://x#y # z\r\n":                  "  - http://x#y",
		"# a comment\n":                           "",
	} {
		if got := lineKey([]byte(line)); got != want {
			t.Errorf("lineKey(%q) = %q, want %q", line, got, want)
		}
	}
}
