package textmerge

import (
	"bytes"
	"sort"
	"strings"
)

// alignment pairs the lines of two texts a and b as their diff does, for mapping a run
// of a's lines to the run of b's lines it stands for. Its pieces are the diff's
// changes, in order, each one line for one (a line of a replaced by a line of b) or
// indivisible (lines replaced by a different number of lines, or inserted, or
// deleted). A change of n lines for n is n pieces of one for one; any other change is
// aligned again by its lines' keys (lineKey: a YAML line without its comment, or its
// mapping key), so that a line whose value or comment changed pairs with its
// counterpart even when lines were inserted or deleted next to it; lines on one side
// that continue such a pair (indented under it: a block, a wrapped value) are one
// indivisible piece with it.
type alignment struct {
	pieces []hunk
}

// align aligns the lines a and b.
func align(a, b [][]byte) *alignment {
	in := interner{}
	al := &alignment{}
	for _, h := range diff(in.ids(a), in.ids(b)) {
		al.add(h, a, b)
	}
	return al
}

// add adds the change h of the diff of a and b as pieces.
func (al *alignment) add(h hunk, a, b [][]byte) {
	na, nb := h.a1-h.a0, h.b1-h.b0
	if na == nb {
		for k := 0; k < na; k++ {
			al.pieces = append(al.pieces, hunk{h.a0 + k, h.a0 + k + 1, h.b0 + k, h.b0 + k + 1})
		}
		return
	}
	if na == 0 || nb == 0 {
		al.pieces = append(al.pieces, h)
		return
	}
	keys := interner{}
	ka, kb := keyIDs(keys, a[h.a0:h.a1]), keyIDs(keys, b[h.b0:h.b1])
	i, j := 0, 0 // next lines of the change in a and b
	pair := func(n int) {
		for k := 0; k < n; k++ {
			al.pieces = append(al.pieces, hunk{h.a0 + i + k, h.a0 + i + k + 1, h.b0 + j + k, h.b0 + j + k + 1})
		}
		i, j = i+n, j+n
	}
	for _, s := range diff(ka, kb) {
		pair(s.a0 - i) // lines whose keys match
		if s.a1-s.a0 == s.b1-s.b0 {
			pair(s.a1 - s.a0)
			continue
		}
		p := hunk{h.a0 + s.a0, h.a0 + s.a1, h.b0 + s.b0, h.b0 + s.b1}
		if n := len(al.pieces) - 1; i > 0 && continues(a, b, al.pieces[n], p) {
			al.pieces[n].a1, al.pieces[n].b1 = p.a1, p.b1 // the lines that continue a paired line are one with it
		} else {
			al.pieces = append(al.pieces, p)
		}
		i, j = s.a1, s.b1
	}
	pair(na - i)
}

// continues reports whether the lines of p (of a and of b) continue the line before
// them, q, a line of a paired with one of b: each is blank, indented more than q's
// line on its side, or an item of a sequence ("- ") at its indentation under a line
// that is none (kyaml writes a mapping's sequence so).
func continues(a, b [][]byte, q, p hunk) bool {
	if q.a1 != p.a0 || q.b1 != p.b0 || q.a1-q.a0 != 1 || q.b1-q.b0 != 1 {
		return false
	}
	under := func(head []byte, lines [][]byte) bool {
		hi, hs := indent(head)
		for _, l := range lines {
			if len(bytes.TrimSpace(l)) == 0 {
				continue
			}
			li, ls := indent(l)
			if li < hi || li == hi && (!bytes.HasPrefix(ls, []byte("- ")) || bytes.HasPrefix(hs, []byte("- "))) {
				return false
			}
		}
		return true
	}
	return under(a[q.a0], a[p.a0:p.a1]) && under(b[q.b0], b[p.b0:p.b1])
}

// indent is line's indentation in spaces and the rest of it.
func indent(line []byte) (int, []byte) {
	rest := bytes.TrimLeft(line, " ")
	return len(line) - len(rest), rest
}

// keyIDs numbers the keys of lines (lineKey) in keys.
func keyIDs(keys interner, lines [][]byte) []int {
	out := make([]int, len(lines))
	for i, l := range lines {
		k := lineKey(l)
		id, ok := keys[k]
		if !ok {
			id = len(keys)
			keys[k] = id
		}
		out[i] = id
	}
	return out
}

// lineKey is what a YAML line is aligned by when it changed: its indentation and its
// mapping key ("  image:", "- name:"), or, for a line that has none, the line without
// its comment and trailing white space. A '#' starts a comment at the line's start or
// after white space, outside quotes.
func lineKey(line []byte) string {
	s := strings.TrimRight(string(line), "\r\n")
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			s = s[:i]
		case c == ':' && (i+1 == len(s) || s[i+1] == ' '):
			return s[:i+1]
		}
	}
	return strings.TrimRight(s, " \t")
}

// at maps the position p of a (the place before a's line p) to b. A run of b's lines
// inserted at p is after the position when high is true, before it otherwise. When p
// is inside an indivisible piece, ok is false and h is that piece.
func (al *alignment) at(p int, high bool) (q int, h hunk, ok bool) {
	ps := al.pieces
	i := sort.Search(len(ps), func(i int) bool { return ps[i].a1 > p || ps[i].a1 == p && ps[i].a0 == p })
	off := 0
	if i > 0 {
		off = ps[i-1].b1 - ps[i-1].a1
	}
	if i == len(ps) {
		return p + off, hunk{}, true
	}
	switch h := ps[i]; {
	case h.a0 == p && h.a1 == p && high:
		return h.b1, h, true
	case h.a0 == p && h.a1 == p:
		return h.b0, h, true
	case h.a0 < p:
		return 0, h, false
	}
	return p + off, hunk{}, true
}

// span maps the run of a's lines [s, e) to b's, lines of b inserted at its ends
// included (as git's conflict hunks hold the changes that touch them; for an empty run,
// they are what replaced nothing there). When an end of the run is inside an
// indivisible piece, ok is false and [c0, c1) is the run widened to hold every such
// piece.
func (al *alignment) span(s, e int) (t0, t1 int, ok bool, c0, c1 int) {
	t0, h0, ok0 := al.at(s, false)
	t1, h1, ok1 := al.at(e, true)
	if ok0 && ok1 {
		return t0, t1, true, s, e
	}
	c0, c1 = s, e
	if !ok0 {
		c0 = h0.a0
	}
	if !ok1 {
		c1 = h1.a1
	}
	return 0, 0, false, c0, c1
}

// inverse is the alignment of b to a.
func (al *alignment) inverse() *alignment {
	inv := &alignment{pieces: make([]hunk, len(al.pieces))}
	for i, h := range al.pieces {
		inv.pieces[i] = hunk{h.b0, h.b1, h.a0, h.a1}
	}
	return inv
}
