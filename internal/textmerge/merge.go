package textmerge

import "bytes"

// Favor says which side a conflicting region takes in the merged text.
type Favor int

const (
	// FavorUpdated takes updated's lines (git merge-file --theirs, with updated as
	// "theirs").
	FavorUpdated Favor = iota
	// FavorDest takes dest's lines (git merge-file --ours, with dest as "ours").
	FavorDest
)

// Range is a run of lines: Start is 1-based, Lines may be 0 (then Start is the line
// before which the run would sit).
type Range struct {
	Start, Lines int
}

// Conflict is a region both sides changed differently.
type Conflict struct {
	// Base, Dest and Updated are the region in each input.
	Base, Dest, Updated Range
	// Merged is where the favoured side's lines are in the merged text.
	Merged Range
}

// Result is a 3-way merge.
type Result struct {
	// Merged is the merged text: dest with updated's changes, each conflict resolved
	// by the Favor given.
	Merged []byte
	// Conflicts lists the conflicting regions in order; empty when the merge is clean.
	Conflicts []Conflict
}

// region is one entry of xdiff's merge list (xdmerge_t): lines [i0, i0+chg0) of base,
// [i1, i1+chg1) of dest and [i2, i2+chg2) of updated. mode 1 takes dest's lines, 2
// updated's, 0 is a conflict.
type region struct {
	mode               int
	i0, chg0, i1, chg1 int
	i2, chg2           int
}

// Merge merges the change from base to updated into dest, line by line, as
// `git merge-file -p dest base updated` does, resolving conflicts towards favor as
// `--theirs` (FavorUpdated) or `--ours` (FavorDest) do. Texts are compared byte for
// byte, line terminators included (a last line without "\n" differs from the same line
// with one). It never fails; binary input is merged as lines too (callers decide
// whether to).
func Merge(base, dest, updated []byte, favor Favor) Result {
	lb, ld, lu := splitLines(base), splitLines(dest), splitLines(updated)
	in := interner{}
	ib, id, iu := in.ids(lb), in.ids(ld), in.ids(lu)
	d1, d2 := diff(ib, id), diff(ib, iu)

	// xdl_do_merge: walk both change lists in base order.
	var list []region
	appendRegion := func(r region) {
		if n := len(list); n > 0 {
			m := &list[n-1]
			if r.i1 <= m.i1+m.chg1 || r.i2 <= m.i2+m.chg2 {
				if r.mode != m.mode {
					m.mode = 0
				}
				m.chg0 = r.i0 + r.chg0 - m.i0
				m.chg1 = r.i1 + r.chg1 - m.i1
				m.chg2 = r.i2 + r.chg2 - m.i2
				return
			}
		}
		list = append(list, r)
	}
	equalLines := func(x [][]byte, xi int, y [][]byte, yi, n int) bool {
		for k := 0; k < n; k++ {
			if !bytes.Equal(x[xi+k], y[yi+k]) {
				return false
			}
		}
		return true
	}
	p, q := 0, 0
	for p < len(d1) && q < len(d2) {
		x1, x2 := d1[p], d2[q]
		if x1.a1 < x2.a0 { // dest's change ends before updated's starts, with a line between
			appendRegion(region{mode: 1, i0: x1.a0, chg0: x1.a1 - x1.a0, i1: x1.b0, chg1: x1.b1 - x1.b0,
				i2: x2.b0 - x2.a0 + x1.a0, chg2: x1.a1 - x1.a0})
			p++
			continue
		}
		if x2.a1 < x1.a0 {
			appendRegion(region{mode: 2, i0: x2.a0, chg0: x2.a1 - x2.a0, i1: x1.b0 - x1.a0 + x2.a0, chg1: x2.a1 - x2.a0,
				i2: x2.b0, chg2: x2.b1 - x2.b0})
			q++
			continue
		}
		if x1.a0 != x2.a0 || x1.a1 != x2.a1 || x1.b1-x1.b0 != x2.b1-x2.b0 ||
			!equalLines(ld, x1.b0, lu, x2.b0, x1.b1-x1.b0) {
			off := x1.a0 - x2.a0
			ffo := off + (x1.a1 - x1.a0) - (x2.a1 - x2.a0)
			i0, i1, i2 := x1.a0, x1.b0, x2.b0
			if off > 0 {
				i0 -= off
				i1 -= off
			} else {
				i2 += off
			}
			chg0 := x1.a1 - i0
			chg1 := x1.b1 - i1
			chg2 := x2.b1 - i2
			if ffo < 0 {
				chg0 -= ffo
				chg1 -= ffo
			} else {
				chg2 += ffo
			}
			appendRegion(region{mode: 0, i0: i0, chg0: chg0, i1: i1, chg1: chg1, i2: i2, chg2: chg2})
		}
		e1, e2 := x1.a1, x2.a1
		if e1 >= e2 {
			q++
		}
		if e2 >= e1 {
			p++
		}
	}
	// What is left of one list lies after every change of the other, so the other
	// side's lines there sit at the base position shifted by its whole length change.
	for ; p < len(d1); p++ {
		x1 := d1[p]
		appendRegion(region{mode: 1, i0: x1.a0, chg0: x1.a1 - x1.a0, i1: x1.b0, chg1: x1.b1 - x1.b0,
			i2: x1.a0 + len(lu) - len(lb), chg2: x1.a1 - x1.a0})
	}
	for ; q < len(d2); q++ {
		x2 := d2[q]
		appendRegion(region{mode: 2, i0: x2.a0, chg0: x2.a1 - x2.a0, i1: x2.a0 + len(ld) - len(lb), chg1: x2.a1 - x2.a0,
			i2: x2.b0, chg2: x2.b1 - x2.b0})
	}

	// xdl_refine_conflicts, as far as it decides conflicts: a conflict whose two sides
	// hold the same lines is no conflict.
	for i := range list {
		r := &list[i]
		if r.mode == 0 && r.chg1 > 0 && r.chg2 > 0 && r.chg1 == r.chg2 && equalLines(ld, r.i1, lu, r.i2, r.chg1) {
			r.mode = 1
		}
	}

	// xdl_fill_merge_buffer: dest's lines, with each region replaced.
	var out bytes.Buffer
	var res Result
	line, at := 0, 1 // next dest line to copy; next line number of the output
	write := func(lines [][]byte) {
		for _, l := range lines {
			out.Write(l)
		}
		at += len(lines)
	}
	for _, r := range list {
		write(ld[line:r.i1])
		line = r.i1 + r.chg1
		switch {
		case r.mode == 1:
			write(ld[r.i1 : r.i1+r.chg1])
		case r.mode == 2:
			write(lu[r.i2 : r.i2+r.chg2])
		default:
			c := Conflict{
				Base:    Range{Start: r.i0 + 1, Lines: r.chg0},
				Dest:    Range{Start: r.i1 + 1, Lines: r.chg1},
				Updated: Range{Start: r.i2 + 1, Lines: r.chg2},
				Merged:  Range{Start: at},
			}
			if favor == FavorDest {
				write(ld[r.i1 : r.i1+r.chg1])
			} else {
				write(lu[r.i2 : r.i2+r.chg2])
			}
			c.Merged.Lines = at - c.Merged.Start
			res.Conflicts = append(res.Conflicts, c)
		}
	}
	write(ld[line:])
	res.Merged = out.Bytes()
	if res.Merged == nil {
		res.Merged = []byte{}
	}
	return res
}
