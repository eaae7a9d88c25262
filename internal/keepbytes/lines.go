package keepbytes

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/krm-merge/krm-merge/internal/textmerge"
)

// Lines merges the change from base to theirs into ours as textmerge.Merge does
// (`git merge-file`), with two differences.
//
// It merges YAML lines rather than text lines: a line and the lines after it that
// continue it (more indented, and starting no key, list item or comment: the wrapped
// lines of a scalar, a block scalar's content, a flow collection's further lines) are
// one line to the diff. A wrapped description is then one line in each version, and
// its change does not run into the next field's.
//
// It looks into each conflict with the diffs of its region on each side:
//   - changes that only touch (no base line changed on both sides, no two insertions
//     at one place, no insertion where the other side's change begins or inside it)
//     are both taken, each where it is;
//   - a change that replaces n lines by n lines is taken line by line, and lines
//     both sides replaced (the same base lines) take favor's replacement;
//   - any other overlap takes favor's side for the whole region, as textmerge.Merge
//     does.
//
// git merge-file calls changes that touch a conflict because one side's edit may
// depend on the lines the other changed; here the result is checked as YAML
// afterwards, and dest's formatting of a line next to a changed one, or upstream's of
// the lines around a changed value, is worth keeping.
func Lines(base, ours, theirs []byte, favor textmerge.Favor) []byte {
	if bytes.IndexByte(base, joiner) >= 0 || bytes.IndexByte(ours, joiner) >= 0 || bytes.IndexByte(theirs, joiner) >= 0 {
		return mergeLines(base, ours, theirs, favor)
	}
	out := mergeLines(group(base), group(ours), group(theirs), favor)
	return bytes.ReplaceAll(out, []byte{joiner}, []byte("\n"))
}

// joiner stands for the line ends inside a grouped YAML line: NUL, which YAML does not
// allow in a file (a text holding one is merged by text lines).
const joiner = 0

// group joins each line that continues the line before it onto it (see Lines),
// replacing the "\n" between them by joiner.
func group(text []byte) []byte {
	out := make([]byte, 0, len(text))
	head := -1 // the indentation of the current YAML line's first line; -1 before any
	for _, l := range splitLines(text) {
		s := strings.TrimRight(string(l), "\r\n")
		rest := strings.TrimLeft(s, " ")
		ind := len(s) - len(rest)
		if head >= 0 && (rest == "" || ind > head && !startsLine(rest)) {
			out[len(out)-1] = joiner
		} else {
			head = ind
		}
		out = append(out, l...)
	}
	return out
}

// startsLine reports whether a line's text (after its indentation, not empty) starts
// a YAML line of its own: a comment, a list item, an explicit or quoted key, or a
// plain key without blanks followed by ":". (A line at or left of the indentation of
// the line before starts one anyway: see group.)
func startsLine(rest string) bool {
	switch {
	case rest[0] == '#', rest[0] == '-' && (len(rest) == 1 || rest[1] == ' '), rest[0] == '"', rest[0] == '\'', rest[0] == '?':
		return true
	}
	key := rest
	if i := strings.Index(rest, ": "); i >= 0 {
		key = rest[:i]
	} else if !strings.HasSuffix(rest, ":") {
		return false
	}
	return !strings.ContainsAny(strings.TrimSuffix(key, ":"), " \t")
}

// mergeLines is Lines on text lines.
func mergeLines(base, ours, theirs []byte, favor textmerge.Favor) []byte {
	r := textmerge.Merge(base, ours, theirs, favor)
	if len(r.Conflicts) == 0 {
		return r.Merged
	}
	bl, ol, tl, ml := splitLines(base), splitLines(ours), splitLines(theirs), splitLines(r.Merged)
	var out bytes.Buffer
	at := 0 // the next line of ml to copy
	for _, c := range r.Conflicts {
		m0, m1 := c.Merged.Start-1, c.Merged.Start-1+c.Merged.Lines
		writeLines(&out, ml[at:m0])
		if both, ok := combine(span(bl, c.Base), span(ol, c.Dest), span(tl, c.Updated), favor); ok {
			out.Write(both)
		} else {
			writeLines(&out, ml[m0:m1])
		}
		at = m1
	}
	writeLines(&out, ml[at:])
	return out.Bytes()
}

// combine applies both the change from base to ours and the change from base to
// theirs to base, as Lines resolves a conflict; false when they overlap otherwise.
func combine(base, ours, theirs []byte, favor textmerge.Favor) ([]byte, bool) {
	ho, ok := hunks(base, ours)
	if !ok {
		return nil, false
	}
	ht, ok := hunks(base, theirs)
	if !ok {
		return nil, false
	}
	ho, ht = byLine(ho), byLine(ht)
	dropO, dropT := make([]bool, len(ho)), make([]bool, len(ht))
	for i, o := range ho {
		for j, t := range ht {
			if o.a0 != t.a0 && (o.a0 >= t.a1 || t.a0 >= o.a1) {
				continue // apart, or touching
			}
			if o.a0 != t.a0 || o.a1 != t.a1 || o.a0 == o.a1 {
				return nil, false
			}
			if favor == textmerge.FavorDest {
				dropT[j] = true
			} else {
				dropO[i] = true
			}
		}
	}
	type change struct {
		hunk
		lines [][]byte
	}
	var all []change
	ol, tl := splitLines(ours), splitLines(theirs)
	for i, h := range ho {
		if !dropO[i] {
			all = append(all, change{h, ol[h.b0:h.b1]})
		}
	}
	for j, h := range ht {
		if !dropT[j] {
			all = append(all, change{h, tl[h.b0:h.b1]})
		}
	}
	// both lists are in base order and no two changes start at one line
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && all[j].a0 < all[j-1].a0; j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	bl := splitLines(base)
	var out bytes.Buffer
	at := 0
	for _, c := range all {
		writeLines(&out, bl[at:c.a0])
		writeLines(&out, c.lines)
		at = c.a1
	}
	writeLines(&out, bl[at:])
	return out.Bytes(), true
}

// hunk is a change from old to new: old's lines [a0, a1) become new's [b0, b1).
type hunk struct{ a0, a1, b0, b1 int }

// byLine splits each hunk that replaces n lines by n lines into n one-line hunks.
func byLine(hs []hunk) []hunk {
	var out []hunk
	for _, h := range hs {
		if n := h.a1 - h.a0; n > 1 && n == h.b1-h.b0 {
			for k := 0; k < n; k++ {
				out = append(out, hunk{h.a0 + k, h.a0 + k + 1, h.b0 + k, h.b0 + k + 1})
			}
			continue
		}
		out = append(out, h)
	}
	return out
}

// hunks returns the line diff from old to new, read from textmerge.Unified without
// context lines (its "@@ -l,s +l,s @@" headers); false when a header does not parse,
// a range lies outside the texts, or the hunks are not in order with a line between.
func hunks(old, new []byte) ([]hunk, bool) {
	nOld, nNew := len(splitLines(old)), len(splitLines(new))
	var hs []hunk
	for _, l := range strings.Split(textmerge.Unified(old, new, 0), "\n") {
		if !strings.HasPrefix(l, "@@ ") {
			continue // a changed line: "-", "+" or "\ No newline at end of file"
		}
		f := strings.Fields(l)
		if len(f) != 4 || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
			return nil, false
		}
		a0, a1, ok1 := parseRange(f[1][1:])
		b0, b1, ok2 := parseRange(f[2][1:])
		if !ok1 || !ok2 || a1 > nOld || b1 > nNew || (len(hs) > 0 && a0 <= hs[len(hs)-1].a1) {
			return nil, false
		}
		hs = append(hs, hunk{a0, a1, b0, b1})
	}
	return hs, true
}

// parseRange reads a unified diff range, "start,count" or "start" (count 1), as the
// 0-based lines [from, to); a count of 0 starts at the line before.
func parseRange(s string) (from, to int, ok bool) {
	start, count := s, "1"
	if i := strings.IndexByte(s, ','); i >= 0 {
		start, count = s[:i], s[i+1:]
	}
	st, err1 := strconv.Atoi(start)
	n, err2 := strconv.Atoi(count)
	if err1 != nil || err2 != nil || st < 0 || n < 0 {
		return 0, 0, false
	}
	if n == 0 {
		return st, st, true
	}
	if st < 1 {
		return 0, 0, false
	}
	return st - 1, st - 1 + n, true
}

// splitLines splits b after each "\n"; a last line without one is a line too.
func splitLines(b []byte) [][]byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func writeLines(out *bytes.Buffer, lines [][]byte) {
	for _, l := range lines {
		out.Write(l)
	}
}

// span is the lines r covers, joined.
func span(lines [][]byte, r textmerge.Range) []byte {
	var b bytes.Buffer
	writeLines(&b, lines[r.Start-1:r.Start-1+r.Lines])
	return b.Bytes()
}

// Moved counts the lines of dest that out does not keep, by their line diff: every
// line when the diff cannot be read.
func Moved(dest, out []byte) int {
	hs, ok := hunks(dest, out)
	if !ok {
		return len(splitLines(dest))
	}
	n := 0
	for _, h := range hs {
		n += h.a1 - h.a0
	}
	return n
}
