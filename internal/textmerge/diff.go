package textmerge

import "bytes"

// hunk is one change of a diff: lines [a0, a1) of the old text replaced by lines
// [b0, b1) of the new one (0-based, end exclusive).
type hunk struct{ a0, a1, b0, b1 int }

// splitLines cuts b into lines, each with its "\n"; the last line lacks it when b does
// not end with one. nil for empty input.
func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

// interner numbers distinct lines (xdiff's record classes), so that diffs compare ints.
type interner map[string]int

func (in interner) ids(lines [][]byte) []int {
	out := make([]int, len(lines))
	for i, l := range lines {
		id, ok := in[string(l)]
		if !ok {
			id = len(in)
			in[string(l)] = id
		}
		out[i] = id
	}
	return out
}

// xdiff's constants (xdiff/xdiffi.h, xprepare.c).
const (
	maxEqLimit     = 1024 // XDL_MAX_EQLIMIT
	simscanWindow  = 100  // XDL_SIMSCAN_WINDOW
	kpdisRun       = 4    // XDL_KPDIS_RUN
	lineMax        = 1 << 62
	discardNoMatch = 0
	keepOneMatch   = 1
	manyMatches    = 2
)

// diff returns the hunks that turn a into b (line class ids from one interner), in order.
func diff(a, b []int) []hunk {
	// Change marks with a sentinel on each side (xdiff's rchg layout): ca[i+1] is line i.
	ca := make([]bool, len(a)+2)
	cb := make([]bool, len(b)+2)
	ra, rb := ca[1:len(a)+1], cb[1:len(b)+1]

	// xdl_trim_ends: the common head and tail take no part.
	start := 0
	for start < len(a) && start < len(b) && a[start] == b[start] {
		start++
	}
	tail := 0
	for tail < len(a)-start && tail < len(b)-start && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	// xdl_cleanup_records: count each class on both sides, over the whole files.
	count := func(x []int) map[int]int {
		m := make(map[int]int, len(x))
		for _, id := range x {
			m[id]++
		}
		return m
	}
	inA, inB := count(a), count(b)
	fa, ia := cleanup(a, start, len(a)-tail, inB, ra)
	fb, ib := cleanup(b, start, len(b)-tail, inA, rb)

	m := myers{a: fa, b: fb, ra: ra, rb: rb, ia: ia, ib: ib}
	n := len(fa) + len(fb) + 3
	m.vf = make([]int, 2*n+2)
	m.vb = make([]int, 2*n+2)
	m.off = len(fb) + 1
	m.compare(0, len(fa), 0, len(fb))

	compact(a, ca, cb)
	compact(b, cb, ca)
	return hunks(ca, cb)
}

// cleanup is xdl_cleanup_records for one side: between start and end, lines whose class
// the other side lacks are marked changed and set aside, and so are lines whose class
// the other side holds often (at least the bogus square root of this side's length,
// capped) when they sit in a run dominated by such lines (cleanMMatch). It returns the
// classes that take part in the diff and their line indexes.
func cleanup(x []int, start, end int, other map[int]int, changed []bool) ([]int, []int) {
	limit := bogosqrt(len(x))
	if limit > maxEqLimit {
		limit = maxEqLimit
	}
	dis := make([]byte, len(x)+1)
	for i := start; i < end; i++ {
		switch nm := other[x[i]]; {
		case nm == 0:
			dis[i] = discardNoMatch
		case nm >= limit:
			dis[i] = manyMatches
		default:
			dis[i] = keepOneMatch
		}
	}
	var ids, idx []int
	for i := start; i < end; i++ {
		if dis[i] == keepOneMatch || (dis[i] == manyMatches && !cleanMMatch(dis, i, start, end-1)) {
			ids = append(ids, x[i])
			idx = append(idx, i)
		} else {
			changed[i] = true
		}
	}
	return ids, idx
}

// bogosqrt is xdl_bogosqrt: a power of two near the square root of n.
func bogosqrt(n int) int {
	i := 1
	for ; n > 0; n >>= 2 {
		i <<= 1
	}
	return i
}

// cleanMMatch is xdl_clean_mmatch: whether the often-matched line i sits in a run of
// unmatched and often-matched lines (within e.g. 100 lines each way) that unmatched
// lines dominate, in which case it is set aside too.
func cleanMMatch(dis []byte, i, s, e int) bool {
	if i-s > simscanWindow {
		s = i - simscanWindow
	}
	if e-i > simscanWindow {
		e = i + simscanWindow
	}
	rdis0, rpdis0 := 0, 1
	for r := 1; i-r >= s; r++ {
		if dis[i-r] == discardNoMatch {
			rdis0++
		} else if dis[i-r] == manyMatches {
			rpdis0++
		} else {
			break
		}
	}
	if rdis0 == 0 {
		return false
	}
	rdis1, rpdis1 := 0, 1
	for r := 1; i+r <= e; r++ {
		if dis[i+r] == discardNoMatch {
			rdis1++
		} else if dis[i+r] == manyMatches {
			rpdis1++
		} else {
			break
		}
	}
	if rdis1 == 0 {
		return false
	}
	rdis1 += rdis0
	rpdis1 += rpdis0
	return rpdis1*kpdisRun < rpdis1+rdis1
}

// hunks turns change marks (with sentinels) into hunks.
func hunks(ca, cb []bool) []hunk {
	na, nb := len(ca)-2, len(cb)-2
	var out []hunk
	i, j := 0, 0
	for i < na || j < nb {
		if (i < na && ca[i+1]) || (j < nb && cb[j+1]) {
			h := hunk{a0: i, b0: j}
			for i < na && ca[i+1] {
				i++
			}
			for j < nb && cb[j+1] {
				j++
			}
			h.a1, h.b1 = i, j
			out = append(out, h)
			continue
		}
		i++
		j++
	}
	return out
}

// myers is xdl_recs_cmp and xdl_split over the lines that take part (a, b, with their
// indexes ia, ib in the files), marking changed lines in ra and rb.
type myers struct {
	a, b   []int
	ia, ib []int
	ra, rb []bool
	vf, vb []int // furthest-reaching position per diagonal, diagonal k at off+k
	off    int
}

func (m *myers) compare(a0, a1, b0, b1 int) {
	for a0 < a1 && b0 < b1 && m.a[a0] == m.b[b0] {
		a0++
		b0++
	}
	for a0 < a1 && b0 < b1 && m.a[a1-1] == m.b[b1-1] {
		a1--
		b1--
	}
	switch {
	case a0 == a1:
		for j := b0; j < b1; j++ {
			m.rb[m.ib[j]] = true
		}
	case b0 == b1:
		for i := a0; i < a1; i++ {
			m.ra[m.ia[i]] = true
		}
	default:
		x, y := m.split(a0, a1, b0, b1)
		m.compare(a0, x, b0, y)
		m.compare(x, a1, y, b1)
	}
}

// split is xdl_split without the cost heuristics: the middle snake of the box
// [a0,a1)x[b0,b1), found by searching forward from the top left and backward from the
// bottom right one edit at a time until the paths meet.
func (m *myers) split(a0, a1, b0, b1 int) (int, int) {
	vf, vb, o := m.vf, m.vb, m.off
	dmin, dmax := a0-b1, a1-b0
	fmid, bmid := a0-b0, a1-b1
	odd := (fmid-bmid)&1 != 0
	fmin, fmax, bmin, bmax := fmid, fmid, bmid, bmid
	vf[o+fmid] = a0
	vb[o+bmid] = a1
	for {
		if fmin > dmin {
			fmin--
			vf[o+fmin-1] = -1
		} else {
			fmin++
		}
		if fmax < dmax {
			fmax++
			vf[o+fmax+1] = -1
		} else {
			fmax--
		}
		for d := fmax; d >= fmin; d -= 2 {
			var i1 int
			if vf[o+d-1] >= vf[o+d+1] {
				i1 = vf[o+d-1] + 1
			} else {
				i1 = vf[o+d+1]
			}
			i2 := i1 - d
			for i1 < a1 && i2 < b1 && m.a[i1] == m.b[i2] {
				i1++
				i2++
			}
			vf[o+d] = i1
			if odd && bmin <= d && d <= bmax && vb[o+d] <= i1 {
				return i1, i2
			}
		}
		if bmin > dmin {
			bmin--
			vb[o+bmin-1] = lineMax
		} else {
			bmin++
		}
		if bmax < dmax {
			bmax++
			vb[o+bmax+1] = lineMax
		} else {
			bmax--
		}
		for d := bmax; d >= bmin; d -= 2 {
			var i1 int
			if vb[o+d-1] < vb[o+d+1] {
				i1 = vb[o+d-1]
			} else {
				i1 = vb[o+d+1] - 1
			}
			i2 := i1 - d
			for i1 > a0 && i2 > b0 && m.a[i1-1] == m.b[i2-1] {
				i1--
				i2--
			}
			vb[o+d] = i1
			if !odd && fmin <= d && d <= fmax && i1 <= vf[o+d] {
				return i1, i2
			}
		}
	}
}

// compact is xdl_change_compact for the file x with change marks c (sentinels at both
// ends), the other file's marks being co: each group of changed lines is slid up as far
// as equal lines allow, merging with groups it meets, then down as far as possible; it
// ends at the lowest position where it lines up with a change in the other file, if
// any, else as far down as it goes.
func compact(x []int, c, co []bool) {
	n := len(x)
	// groups are [start, end) in line indexes; c[i+1] marks line i.
	type group struct{ start, end int }
	changed := func(m []bool, i int) bool { return m[i+1] }
	initG := func(m []bool) group {
		g := group{}
		for changed(m, g.end) {
			g.end++
		}
		return g
	}
	nrec := func(m []bool) int { return len(m) - 2 }
	next := func(m []bool, g *group) bool {
		if g.end == nrec(m) {
			return false
		}
		g.start = g.end + 1
		g.end = g.start
		for changed(m, g.end) {
			g.end++
		}
		return true
	}
	prev := func(m []bool, g *group) bool {
		if g.start == 0 {
			return false
		}
		g.end = g.start - 1
		g.start = g.end
		for changed(m, g.start-1) {
			g.start--
		}
		return true
	}
	slideDown := func(g *group) bool {
		if g.end < n && x[g.start] == x[g.end] {
			c[g.start+1] = false
			c[g.end+1] = true
			g.start++
			g.end++
			for changed(c, g.end) {
				g.end++
			}
			return true
		}
		return false
	}
	slideUp := func(g *group) bool {
		if g.start > 0 && x[g.start-1] == x[g.end-1] {
			g.start--
			g.end--
			c[g.start+1] = true
			c[g.end+1] = false
			for changed(c, g.start-1) {
				g.start--
			}
			return true
		}
		return false
	}
	g, go_ := initG(c), initG(co)
	for {
		if g.end != g.start {
			var earliestEnd, endMatchingOther int
			for {
				size := g.end - g.start
				endMatchingOther = -1
				for slideUp(&g) {
					prev(co, &go_)
				}
				earliestEnd = g.end
				if go_.end > go_.start {
					endMatchingOther = g.end
				}
				for slideDown(&g) {
					next(co, &go_)
					if go_.end > go_.start {
						endMatchingOther = g.end
					}
				}
				if size == g.end-g.start {
					break
				}
			}
			if g.end != earliestEnd && endMatchingOther != -1 {
				for go_.end == go_.start {
					slideUp(&g)
					prev(co, &go_)
				}
			}
		}
		if !next(c, &g) {
			break
		}
		next(co, &go_)
	}
}
