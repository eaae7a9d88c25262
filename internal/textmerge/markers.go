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
	var out, upd, base bytes.Buffer
	var m Marked
	lines := 0 // lines written so far
	write := func(ls [][]byte, needsCR, addNL bool, to ...*bytes.Buffer) {
		lines += len(ls)
		for _, w := range append(to, &out) {
			for _, x := range ls {
				w.Write(x)
			}
			if n := len(ls); addNL && n > 0 && !bytes.HasSuffix(ls[n-1], []byte("\n")) {
				if needsCR {
					w.WriteByte('\r')
				}
				w.WriteByte('\n')
			}
		}
	}
	marker := func(c byte, label string, withLabel, needsCR bool) {
		out.Write(bytes.Repeat([]byte{c}, MarkerSize))
		if withLabel {
			out.WriteByte(' ')
			out.WriteString(label)
		}
		if needsCR {
			out.WriteByte('\r')
		}
		out.WriteByte('\n')
		lines++
	}
	next := 0 // next dest line to copy
	for _, r := range l.Regions {
		write(l.Dest[next:r.Dest.Start], false, false, &upd, &base)
		next = r.Dest.End()
		ds, us, bs := l.Dest[r.Dest.Start:r.Dest.End()], l.Updated[r.Updated.Start:r.Updated.End()], l.Base[r.Base.Start:r.Base.End()]
		if !hunk(r) {
			if r.Kind == UpdatedChanged {
				write(us, false, false, &upd, &base)
			} else {
				write(ds, false, false, &upd, &base)
			}
			continue
		}
		cr := needsCR(l, r)
		h := Hunk{Base: Range{Start: r.Base.Start + 1, Lines: r.Base.Len}, Dest: Range{Start: r.Dest.Start + 1, Lines: r.Dest.Len},
			Updated: Range{Start: r.Updated.Start + 1, Lines: r.Updated.Len}, Marked: Range{Start: lines + 1}}
		marker('<', labels.Dest, true, cr)
		write(ds, cr, true)
		marker('|', labels.Base, true, cr)
		write(bs, cr, true, &base)
		marker('=', "", false, cr)
		write(us, cr, true, &upd)
		marker('>', labels.Updated, true, cr)
		h.Marked.Lines = lines + 1 - h.Marked.Start
		m.Hunks = append(m.Hunks, h)
	}
	write(l.Dest[next:], false, false, &upd, &base)
	m.Text, m.Updated, m.Base = orEmpty(out.Bytes()), orEmpty(upd.Bytes()), orEmpty(base.Bytes())
	return m
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
