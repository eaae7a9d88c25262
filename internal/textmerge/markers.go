package textmerge

import "bytes"

// Labels name the three sides in conflict markers, as git merge-file's -L options
// do: "<<<<<<< Dest", "||||||| Base", ">>>>>>> Updated".
type Labels struct {
	Dest, Base, Updated string
}

// Hunk is one conflict written with markers.
type Hunk struct {
	// Base, Dest and Updated are the region in each input (for MarkDifferences, in the
	// text each side was taken from).
	Base, Dest, Updated Range
	// Marked is where the hunk is in the marked text: from its "<<<<<<<" line to its
	// ">>>>>>>" line, both included.
	Marked Range
}

// Marked is a 3-way merge with each conflict written as a hunk of markers.
type Marked struct {
	// Text is the merged text with the hunks.
	Text []byte
	// Hunks lists the hunks in order; empty when the merge is clean.
	Hunks []Hunk
	// Updated and Base are Text with every hunk resolved to its updated side, and to
	// its base side (as a person deleting the other sides and the markers would).
	Updated, Base []byte
}

// MarkerSize is the length of a conflict marker: "<<<<<<<" (git's default,
// DEFAULT_CONFLICT_MARKER_SIZE).
const MarkerSize = 7

// MergeMarked merges the change from base to updated into dest as Merge does and
// writes each conflicting region with markers and the base's lines, byte for byte as
// `git merge-file -p --diff3 -L <Dest> -L <Base> -L <Updated> dest base updated`
// writes it:
//
//	<<<<<<< Dest
//	dest's lines
//	||||||| Base
//	base's lines
//	=======
//	updated's lines
//	>>>>>>> Updated
//
// Git's --diff3 leaves its regions as the diffs give them (it does not refine them to
// the lines that differ, which its default output does), so a region whose two sides
// hold the same lines is still a hunk; a side whose last line has no line end gets
// one; the markers end in "\r\n" where the lines around them do (git's
// is_cr_needed). Choosing the dest side of every hunk gives Merge's FavorDest text,
// the updated side Merge's FavorUpdated text (up to that added line end).
func MergeMarked(base, dest, updated []byte, labels Labels) Marked {
	return mark(mergeLines(base, dest, updated, false), labels, func(r Region) bool { return r.Kind == Conflicting })
}

// mark writes the merge l with each region hunk says is one written as a hunk (git's
// xdl_fill_merge_buffer and fill_conflict_hunk), the others as Merge writes them.
func mark(l Lines, labels Labels, hunk func(Region) bool) Marked {
	w := markedWriter{labels: labels}
	next := 0 // next dest line to copy
	for _, r := range l.Regions {
		w.same(l.Dest[next:r.Dest.Start])
		next = r.Dest.End()
		ds, us, bs := l.Dest[r.Dest.Start:r.Dest.End()], l.Updated[r.Updated.Start:r.Updated.End()], l.Base[r.Base.Start:r.Base.End()]
		if !hunk(r) {
			if r.Kind == UpdatedChanged {
				w.same(us)
			} else {
				w.same(ds)
			}
			continue
		}
		w.hunk(Hunk{Base: Range{Start: r.Base.Start + 1, Lines: r.Base.Len}, Dest: Range{Start: r.Dest.Start + 1, Lines: r.Dest.Len},
			Updated: Range{Start: r.Updated.Start + 1, Lines: r.Updated.Len}}, ds, bs, us, needsCR(l, r))
	}
	w.same(l.Dest[next:])
	return w.done()
}

// markedWriter builds a Marked: the text with markers (out), and the text with every
// hunk resolved to its updated side (upd) and to its base side (base).
type markedWriter struct {
	out, upd, base bytes.Buffer
	labels         Labels
	hunks          []Hunk
	lines          int // lines written to out so far
}

// same writes lines that every resolution holds (outside the hunks).
func (w *markedWriter) same(ls [][]byte) {
	w.put(ls, false, false, &w.out, &w.upd, &w.base)
}

// hunk writes one hunk with markers: dest's lines ds, base's bs, updated's us, the
// markers ending in "\r\n" when cr; h holds the sides' ranges, and gets its Marked range.
func (w *markedWriter) hunk(h Hunk, ds, bs, us [][]byte, cr bool) {
	h.Marked = Range{Start: w.lines + 1}
	w.marker('<', w.labels.Dest, cr)
	w.put(ds, cr, true, &w.out)
	w.marker('|', w.labels.Base, cr)
	w.put(bs, cr, true, &w.out, &w.base)
	w.marker('=', "", cr)
	w.put(us, cr, true, &w.out, &w.upd)
	w.marker('>', w.labels.Updated, cr)
	h.Marked.Lines = w.lines + 1 - h.Marked.Start
	w.hunks = append(w.hunks, h)
}

// put writes ls to each of to (out's lines counted), ending the last line with a line
// end (CRLF when needsCR) where addNL and it has none: a side inside markers.
func (w *markedWriter) put(ls [][]byte, needsCR, addNL bool, to ...*bytes.Buffer) {
	w.lines += len(ls)
	for _, b := range to {
		for _, x := range ls {
			b.Write(x)
		}
		if n := len(ls); addNL && n > 0 && !bytes.HasSuffix(ls[n-1], []byte("\n")) {
			if needsCR {
				b.WriteByte('\r')
			}
			b.WriteByte('\n')
		}
	}
}

// marker writes a marker line of c, with label where it is not "" (the "=======" line
// has none).
func (w *markedWriter) marker(c byte, label string, needsCR bool) {
	w.out.Write(bytes.Repeat([]byte{c}, MarkerSize))
	if label != "" || c != '=' {
		w.out.WriteByte(' ')
		w.out.WriteString(label)
	}
	if needsCR {
		w.out.WriteByte('\r')
	}
	w.out.WriteByte('\n')
	w.lines++
}

// done is the Marked written.
func (w *markedWriter) done() Marked {
	return Marked{Text: orEmpty(w.out.Bytes()), Hunks: w.hunks, Updated: orEmpty(w.upd.Bytes()), Base: orEmpty(w.base.Bytes())}
}

// needsCR decides whether the markers of region r end in "\r\n", as git's
// is_cr_needed does: when the line before the region (or the first line) in dest,
// then in updated, then the first line of base, ends in "\r\n"; a side that cannot
// tell (no lines, or a last line without a line end that is its only one) leaves the
// decision to the next, and undecided is "\n".
func needsCR(l Lines, r Region) bool {
	before := func(i int) int {
		if i > 0 {
			return i - 1
		}
		return 0
	}
	v := eolCRLF(l.Dest, before(r.Dest.Start))
	if v != 0 {
		v = eolCRLF(l.Updated, before(r.Updated.Start))
	}
	if v != 0 {
		v = eolCRLF(l.Base, 0)
	}
	return v > 0
}

// eolCRLF is git's is_eol_crlf: 1 when line i of lines ends in "\r\n", 0 when in "\n"
// alone, -1 when it cannot tell (no lines; the only line, without a line end); a last
// line without a line end takes the line before it.
func eolCRLF(lines [][]byte, i int) int {
	crlf := func(x []byte) int {
		if len(x) > 1 && x[len(x)-2] == '\r' {
			return 1
		}
		return 0
	}
	switch {
	case i < len(lines)-1:
		return crlf(lines[i])
	case len(lines) == 0:
		return -1
	case bytes.HasSuffix(lines[i], []byte("\n")):
		return crlf(lines[i])
	case i == 0:
		return -1
	}
	return crlf(lines[i-1])
}

// IsMarker reports whether line (with its line end, if it has one) is a conflict
// marker line as git's conflict checks see it (is_conflict_marker): seven times one of
// '<', '|', '=' and '>' at its start, then white space (a label's space, or the line
// end). "========" and a "=======" last line without a line end are not.
func IsMarker(line []byte) bool {
	if len(line) < MarkerSize+1 {
		return false
	}
	switch line[0] {
	case '<', '|', '=', '>':
	default:
		return false
	}
	for _, c := range line[1:MarkerSize] {
		if c != line[0] {
			return false
		}
	}
	switch line[MarkerSize] {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	return false
}
