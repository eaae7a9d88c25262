package textmerge

// Span is a run of items of one sequence: Start is 0-based; Len may be 0, and then
// Start is the position before which the run would sit.
type Span struct {
	Start, Len int
}

// End is the position after the run: Start + Len.
func (s Span) End() int { return s.Start + s.Len }

// RegionKind says who changed a Region of a 3-way sequence merge and how the merge
// decides it.
type RegionKind int

const (
	// DestChanged: only dest changed the run; the merge keeps dest's items (git's
	// xdmerge mode 1).
	DestChanged RegionKind = iota + 1
	// UpdatedChanged: only updated changed the run; the merge takes updated's items
	// (mode 2).
	UpdatedChanged
	// SameChange: both sides changed the run to the same items, which the merge keeps
	// (as dest has them); never a conflict.
	SameChange
	// Conflicting: both sides changed the run, differently, or changed runs that touch
	// (git merge-file's conflict, mode 0); the caller decides it (Favor).
	Conflicting
)

// Region is a run of the merge that one or both sides changed: Base, Dest and Updated
// are the run in each input.
type Region struct {
	Kind                RegionKind
	Base, Dest, Updated Span
}

// MergeSeq merges the change from base to updated into dest, item by item, where items
// are ids (equal ids are equal items, e.g. interned lines or values), with the
// semantics of `git merge-file` (git's xdiff, xdl_do_merge): each side's change is the
// diff of base to that side as git computes it (diff); a change of one side merges
// cleanly when at least one unchanged base item separates it from every change of the
// other side; changes that overlap or touch (adjacent items, or an insertion next to a
// changed item) are one Conflicting region, unless both sides made exactly the same
// change there (SameChange). A Conflicting region whose two sides end up holding the
// same items is SameChange too, as git's default merge level decides it
// (xdl_refine_conflicts).
//
// Output: the regions in order (each span starts at or after the end of the previous
// region's span in its input). Between two regions, before the first and after the
// last, base, dest and updated hold the same items in the same number: the runs nobody
// changed. The Conflicting regions are exactly the conflict hunks of
// `git merge-file --diff3` (which shows base and so does not refine them), except that
// a hunk whose dest and updated sides hold the same items is SameChange. Cost: the two
// diffs (O((N+M)·D), N and M the sequence lengths, D the edits), then linear.
func MergeSeq(base, dest, updated []int) []Region {
	return mergeSeq(base, dest, updated, true)
}

// mergeSeq is MergeSeq; refine false leaves out its last step (xdl_refine_conflicts),
// as git merge-file --diff3 does, so that a Conflicting region whose two sides hold the
// same items stays Conflicting.
func mergeSeq(base, dest, updated []int, refine bool) []Region {
	d1, d2 := diff(base, dest), diff(base, updated)

	// xdl_do_merge: walk both change lists in base order. SameChange regions for
	// identical changes are kept in the list for the caller, but git does not have
	// them (it skips identical changes), so the merging of touching regions looks at
	// the last region of the other kinds only; SameChange regions that a merge spans
	// are dropped.
	var list []Region
	last := -1 // index in list of the last region that is not SameChange
	appendRegion := func(r Region) {
		if r.Kind != SameChange && last >= 0 {
			m := &list[last]
			if r.Dest.Start <= m.Dest.End() || r.Updated.Start <= m.Updated.End() {
				if r.Kind != m.Kind {
					m.Kind = Conflicting
				}
				m.Base.Len = r.Base.End() - m.Base.Start
				m.Dest.Len = r.Dest.End() - m.Dest.Start
				m.Updated.Len = r.Updated.End() - m.Updated.Start
				list = list[:last+1]
				return
			}
		}
		list = append(list, r)
		if r.Kind != SameChange {
			last = len(list) - 1
		}
	}
	equalRun := func(x []int, xi int, y []int, yi, n int) bool {
		for k := 0; k < n; k++ {
			if x[xi+k] != y[yi+k] {
				return false
			}
		}
		return true
	}
	p, q := 0, 0
	for p < len(d1) && q < len(d2) {
		x1, x2 := d1[p], d2[q]
		if x1.a1 < x2.a0 { // dest's change ends before updated's starts, with an item between
			appendRegion(Region{Kind: DestChanged, Base: Span{x1.a0, x1.a1 - x1.a0}, Dest: Span{x1.b0, x1.b1 - x1.b0},
				Updated: Span{x2.b0 - x2.a0 + x1.a0, x1.a1 - x1.a0}})
			p++
			continue
		}
		if x2.a1 < x1.a0 {
			appendRegion(Region{Kind: UpdatedChanged, Base: Span{x2.a0, x2.a1 - x2.a0},
				Dest: Span{x1.b0 - x1.a0 + x2.a0, x2.a1 - x2.a0}, Updated: Span{x2.b0, x2.b1 - x2.b0}})
			q++
			continue
		}
		if x1.a0 == x2.a0 && x1.a1 == x2.a1 && x1.b1-x1.b0 == x2.b1-x2.b0 &&
			equalRun(dest, x1.b0, updated, x2.b0, x1.b1-x1.b0) {
			appendRegion(Region{Kind: SameChange, Base: Span{x1.a0, x1.a1 - x1.a0}, Dest: Span{x1.b0, x1.b1 - x1.b0},
				Updated: Span{x2.b0, x2.b1 - x2.b0}})
		} else {
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
			appendRegion(Region{Kind: Conflicting, Base: Span{i0, chg0}, Dest: Span{i1, chg1}, Updated: Span{i2, chg2}})
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
	// side's items there sit at the base position shifted by its whole length change.
	for ; p < len(d1); p++ {
		x1 := d1[p]
		appendRegion(Region{Kind: DestChanged, Base: Span{x1.a0, x1.a1 - x1.a0}, Dest: Span{x1.b0, x1.b1 - x1.b0},
			Updated: Span{x1.a0 + len(updated) - len(base), x1.a1 - x1.a0}})
	}
	for ; q < len(d2); q++ {
		x2 := d2[q]
		appendRegion(Region{Kind: UpdatedChanged, Base: Span{x2.a0, x2.a1 - x2.a0},
			Dest: Span{x2.a0 + len(dest) - len(base), x2.a1 - x2.a0}, Updated: Span{x2.b0, x2.b1 - x2.b0}})
	}

	// xdl_refine_conflicts, as far as it decides conflicts: a conflict whose two sides
	// hold the same items is no conflict.
	for i := range list {
		r := &list[i]
		if refine && r.Kind == Conflicting && r.Dest.Len > 0 && r.Dest.Len == r.Updated.Len &&
			equalRun(dest, r.Dest.Start, updated, r.Updated.Start, r.Dest.Len) {
			r.Kind = SameChange
		}
	}
	return list
}

// Lines is a 3-way merge of texts by lines: the lines of each text, each with its "\n"
// (the last without one when its text does not end with one), and MergeSeq's regions
// over them, in line indexes.
type Lines struct {
	Base, Dest, Updated [][]byte
	Regions             []Region
}

// MergeLines merges texts line by line as Merge does, but returns the lines and the
// regions instead of a merged text, for callers that assemble the text themselves (per
// region, with their own choice for each conflict) or report its parts.
func MergeLines(base, dest, updated []byte) Lines {
	return mergeLines(base, dest, updated, true)
}

// mergeLines is MergeLines, with mergeSeq's refine.
func mergeLines(base, dest, updated []byte, refine bool) Lines {
	l := Lines{Base: splitLines(base), Dest: splitLines(dest), Updated: splitLines(updated)}
	in := interner{}
	l.Regions = mergeSeq(in.ids(l.Base), in.ids(l.Dest), in.ids(l.Updated), refine)
	return l
}
