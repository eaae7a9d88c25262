package textmerge

import "bytes"

// Sides are the inputs of MarkDifferences: three versions of one merged text that
// differ only where the merge met a conflict (each conflict decided for dest, for
// updated and for base), and the files updated's and base's sides of a hunk are taken
// from.
type Sides struct {
	// Dest, Updated and Base are the three versions.
	Dest, Updated, Base []byte
	// UpdatedText and BaseText are the texts the updated and base versions stand for
	// (the releases' files as fetched, in their own formatting and comments); nil (no
	// such file) takes that side's lines from its version.
	UpdatedText, BaseText []byte
}

// MarkDifferences writes every run of lines where s.Dest and s.Updated differ as a
// hunk of markers, in MergeMarked's format, and every other line as Dest has it. Only
// where they differ is a hunk, so that each hunk surrounds a conflict's lines and no
// line the two versions share (a block's header, a neighbouring field) is in one.
//
// A hunk's dest side is Dest's lines, so that choosing every dest side gives Dest byte
// for byte. Its updated side is the lines of UpdatedText that Updated's lines there
// stand for, found by aligning Updated with UpdatedText (alignment: their line diff,
// changed lines paired by their YAML keys): the updated file's own lines, comments
// and styles, as `git merge-file --diff3` shows them from the three files. Its base
// side is likewise BaseText's lines for Base's (aligned with Dest); where that
// alignment cannot say (Base writes the conflict's value in another style, a block
// as one double-quoted line), BaseText's lines for the updated side's, through the
// diff of UpdatedText and BaseText. A side holds the lines its text has inserted at
// the hunk's ends, as git's hunks hold the changes that touch them. An end of a hunk
// that falls inside a change the alignment cannot split (lines replaced by a different
// number of lines) widens the hunk to the whole change, and hunks that then touch are
// one. Lines all three sides begin or end with are left out of the hunk. A side whose version has lines there but whose text has none (no such
// text, or the lines are elsewhere in it) is its version's lines.
//
// Choosing every updated side gives Dest with UpdatedText's lines in each hunk;
// whether that parses as the file must is for the caller to check (a release indented
// otherwise than Dest does not), and Marked.Updated and Marked.Base are those texts.
func MarkDifferences(s Sides, labels Labels) Marked {
	d, u, b := splitLines(s.Dest), splitLines(s.Updated), splitLines(s.Base)
	ut, bt := splitLines(s.UpdatedText), splitLines(s.BaseText)
	in := interner{}
	locs := diff(in.ids(d), in.ids(u))
	du, db := &alignment{pieces: locs}, align(d, b) // a hunk holds whole changes of dest to updated
	ud := du.inverse()
	var uu, bb, ub *alignment
	if s.UpdatedText != nil {
		uu = align(u, ut)
	}
	if s.BaseText != nil {
		bb = align(b, bt)
		if s.UpdatedText != nil {
			ub = align(ut, bt)
		}
	}
	var hs []sideHunk
	for i := 0; i < len(locs); {
		h := sideHunk{dest: Span{locs[i].a0, locs[i].a1 - locs[i].a0}}
		i++
		for {
			// hunks that touch are one: the changes after this one, and the hunk before,
			// when this one grew to reach it
			for i < len(locs) && locs[i].a0 <= h.dest.End() {
				h.dest = spanOf(h.dest.Start, max(h.dest.End(), locs[i].a1))
				i++
			}
			if n := len(hs) - 1; n >= 0 && h.dest.Start <= hs[n].end {
				h.dest = spanOf(hs[n].start, h.dest.End())
				hs = hs[:n]
			}
			c0, c1, done := h.fill(du, ud, db, uu, bb, ub, u, b, ut, bt)
			if done {
				break
			}
			h.dest = spanOf(min(h.dest.Start, c0), max(h.dest.End(), c1))
		}
		h.start, h.end = h.dest.Start, h.dest.End()
		h.trim(d)
		hs = append(hs, h)
	}
	return writeHunks(d, hs, labels)
}

// sideHunk is a hunk of MarkDifferences: its lines in dest, and each other side's
// lines with the text they are from.
type sideHunk struct {
	dest              Span
	updated, base     Span
	updFrom, baseFrom [][]byte
	start, end        int // the dest lines the hunk was found for, before trim
}

func spanOf(start, end int) Span { return Span{start, end - start} }

// fill finds h's updated and base sides for its dest lines (see MarkDifferences):
// du and db align dest with updated and base (ud the other way), uu and bb updated
// and base with their texts (nil: none), ub the updated text with the base text. When
// an end of the hunk falls inside a change the alignments cannot split, done is false
// and [c0, c1) is where in dest the hunk must reach.
func (h *sideHunk) fill(du, ud, db, uu, bb, ub *alignment, u, b, ut, bt [][]byte) (c0, c1 int, done bool) {
	u0, u1, ok, _, _ := du.span(h.dest.Start, h.dest.End())
	if !ok { // not reached: hunks begin and end where dest and updated agree
		return h.dest.Start, h.dest.End(), true
	}
	h.updated, h.updFrom = spanOf(u0, u1), u
	fromText := false
	if uu != nil {
		t0, t1, ok, x0, x1 := uu.span(u0, u1)
		if !ok {
			c0, c1 := back(ud, x0, x1)
			return c0, c1, false
		}
		if t1 > t0 || u1 == u0 {
			h.updated, h.updFrom, fromText = spanOf(t0, t1), ut, true
		}
	}
	b0, b1, okb, y0, y1 := db.span(h.dest.Start, h.dest.End())
	if okb {
		h.base, h.baseFrom = spanOf(b0, b1), b
		if bb == nil {
			return 0, 0, true
		}
		if t0, t1, ok, _, _ := bb.span(b0, b1); ok && (t1 > t0 || b1 == b0) {
			h.base, h.baseFrom = spanOf(t0, t1), bt
			return 0, 0, true
		}
	}
	if ub != nil && fromText {
		if t0, t1, ok, _, _ := ub.span(h.updated.Start, h.updated.End()); ok {
			h.base, h.baseFrom = spanOf(t0, t1), bt
			return 0, 0, true
		}
	}
	if okb {
		return 0, 0, true // the base version's own lines
	}
	return y0, y1, false
}

// back maps the run [x0, x1) of a version to dest through al (the version aligned
// with dest), widened until both its ends map.
func back(al *alignment, x0, x1 int) (int, int) {
	for {
		d0, d1, ok, c0, c1 := al.span(x0, x1)
		if ok {
			return d0, d1
		}
		x0, x1 = c0, c1
	}
}

// trim leaves out of h the lines all three of its sides begin or end with (d: dest's
// lines).
func (h *sideHunk) trim(d [][]byte) {
	same := func(i, j, k int) bool {
		return bytes.Equal(d[i], h.updFrom[j]) && bytes.Equal(d[i], h.baseFrom[k])
	}
	for h.dest.Len > 0 && h.updated.Len > 0 && h.base.Len > 0 && same(h.dest.Start, h.updated.Start, h.base.Start) {
		h.dest.Start, h.updated.Start, h.base.Start = h.dest.Start+1, h.updated.Start+1, h.base.Start+1
		h.dest.Len, h.updated.Len, h.base.Len = h.dest.Len-1, h.updated.Len-1, h.base.Len-1
	}
	for h.dest.Len > 0 && h.updated.Len > 0 && h.base.Len > 0 && same(h.dest.End()-1, h.updated.End()-1, h.base.End()-1) {
		h.dest.Len, h.updated.Len, h.base.Len = h.dest.Len-1, h.updated.Len-1, h.base.Len-1
	}
}

// writeHunks writes dest's lines d with each hunk of hs written with markers.
func writeHunks(d [][]byte, hs []sideHunk, labels Labels) Marked {
	w := markedWriter{labels: labels}
	next := 0
	for _, h := range hs {
		w.same(d[next:h.dest.Start])
		next = h.dest.End()
		cr := needsCR(Lines{Dest: d, Updated: h.updFrom, Base: h.baseFrom}, Region{Dest: h.dest, Updated: h.updated})
		w.hunk(Hunk{Base: Range{Start: h.base.Start + 1, Lines: h.base.Len}, Dest: Range{Start: h.dest.Start + 1, Lines: h.dest.Len},
			Updated: Range{Start: h.updated.Start + 1, Lines: h.updated.Len}},
			d[h.dest.Start:h.dest.End()], h.baseFrom[h.base.Start:h.base.End()], h.updFrom[h.updated.Start:h.updated.End()], cr)
	}
	w.same(d[next:])
	return w.done()
}

func orEmpty(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
