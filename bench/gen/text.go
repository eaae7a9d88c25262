package gen

import (
	"bytes"
	"fmt"
	"math/rand/v2"
)

// TextOptions choose a generated 3-way text merge (TextMerge).
type TextOptions struct {
	// Lines is the length of the base text in lines (about; whole sections are kept).
	Lines int
	// Moved is the percentage (0-100) of base's sections that upstream moves to another
	// place; 100 reshuffles the whole file.
	Moved int
	// LocalEvery is how sparse dest's edits are: about one line in LocalEvery (100
	// when 0; large values leave a few edits, which often merge cleanly).
	LocalEvery int
	// Repetitive makes most lines repeat (blank lines, fences, braces and a small pool
	// of phrases) instead of about half of them.
	Repetitive bool
	// Seed varies the content; the same options give the same bytes.
	Seed uint64
}

// frequentLines are lines that recur throughout a README or a script.
var frequentLines = []string{"```", "}", "fi", "done", "---", "  - name: value", "\t};", "end", "</details>", "| --- | --- |"}

// TextMerge returns a base text of about opts.Lines lines, shaped like a long README or
// script (sections with a unique heading, blank lines, recurring lines, a pool of
// phrases that recur a few times each, unique lines), and two edited copies: updated,
// in which upstream moves opts.Moved percent of the sections elsewhere and edits about
// one line in 40 (replaced, inserted or deleted lines, new paragraphs, a dropped
// section), and dest, in which the user edits about one line in opts.LocalEvery the
// same ways. All texts end with a newline. The same options give the same bytes.
func TextMerge(opts TextOptions) (base, dest, updated []byte) {
	r := rand.New(rand.NewPCG(opts.Seed, 0x746578746d657267))
	pool := make([]string, 300)
	for i := range pool {
		pool[i] = fmt.Sprintf("%s %s %s.", word(r), word(r), word(r))
	}
	unique := 0
	line := func() string {
		x := r.IntN(100)
		if opts.Repetitive {
			x /= 2 // no unique lines: three quarters from the pool and the frequent lines
		}
		switch {
		case x < 25:
			return ""
		case x < 37:
			return frequentLines[r.IntN(len(frequentLines))]
		case x < 55:
			return pool[r.IntN(len(pool))]
		default:
			unique++
			return fmt.Sprintf("%s %s %s %d", word(r), word(r), word(r), unique)
		}
	}
	var sections [][]string
	for n := 0; n < opts.Lines; {
		unique++
		s := []string{fmt.Sprintf("## %s %d", word(r), unique), ""}
		for k := between(r, 2, 60); k > 0; k-- {
			s = append(s, line())
		}
		sections = append(sections, s)
		n += len(s)
	}
	// edit replaces, inserts or deletes lines of s at about one line in every, and
	// sometimes puts in a new paragraph.
	edit := func(s []string, every int) []string {
		out := make([]string, 0, len(s)+len(s)/every+8)
		for _, l := range s {
			if r.IntN(every) != 0 {
				out = append(out, l)
				continue
			}
			switch r.IntN(5) {
			case 0: // deleted
			case 1: // a line inserted before
				out = append(out, line(), l)
			case 2: // a new paragraph after
				out = append(out, l, "")
				for k := between(r, 2, 8); k > 0; k-- {
					out = append(out, line())
				}
			default: // replaced
				out = append(out, line())
			}
		}
		return out
	}
	order := make([]int, len(sections))
	for i := range order {
		order[i] = i
	}
	// upstream moves a share of the sections: each picked one is taken out and put back
	// at a random place.
	for i := range sections {
		if r.IntN(100) >= opts.Moved {
			continue
		}
		from := -1
		for k, s := range order {
			if s == i {
				from = k
				break
			}
		}
		order = append(order[:from], order[from+1:]...)
		to := r.IntN(len(order) + 1)
		order = append(order[:to], append([]int{i}, order[to:]...)...)
	}
	local := opts.LocalEvery
	if local <= 0 {
		local = 100
	}
	var b, u, d []string
	for _, s := range sections {
		b = append(b, s...)
		if r.IntN(2*local) != 0 { // the user drops one section in 2*local
			d = append(d, edit(s, local)...)
		}
	}
	for _, i := range order {
		if r.IntN(100) != 0 { // upstream drops one section in 100
			u = append(u, edit(sections[i], 40)...)
		}
	}
	return joinLines(b), joinLines(d), joinLines(u)
}

func joinLines(lines []string) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.Bytes()
}
