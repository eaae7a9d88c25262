package textmerge

import "bytes"

// hunk is one change of a diff: lines [a0, a1) of the old text replaced by lines
// [b0, b1) of the new one (0-based, end exclusive).
type hunk struct{ a0, a1, b0, b1 int }

// splitLines cuts b into lines, each with its "\n"; the last line lacks it when b does
// not end with one. nil for empty input.
func splitLines(b []byte) [][]byte {
	if len(b) == 0 {
		return nil
	}
	out := make([][]byte, 0, bytes.Count(b, []byte{'\n'})+1)
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
	// xdl_cleanup_records: count each class on both sides, over the whole files. Class
	// ids are dense from 0 (an interner's), so the counts are slices.
	classes := 0
	for _, x := range [][]int{a, b} {
		for _, id := range x {
			classes = max(classes, id+1)
		}
	}
	count := func(x []int) []int {
		m := make([]int, classes)
		for _, id := range x {
			m[id]++
		}
		return m
	}
	inA, inB := count(a), count(b)
	fa, ia := cleanup(a, start, len(a)-tail, inB, ra)
	fb, ib := cleanup(b, start, len(b)-tail, inA, rb)

	m := myers{a: fa, b: fb, ra: ra, rb: rb, ia: ia, ib: ib}
	// A split of the box [a0,a1)x[b0,b1) uses the diagonals a0-b1-1 to a1-b0+1, at
	// most -len(fb)-1 to len(fa)+1: n of them (xdiff's ndiags).
	n := len(fa) + len(fb) + 3
	m.vf = make([]int, n)
	m.vb = make([]int, n)
	m.off = len(fb) + 1
	m.mxcost = max(bogosqrt(n), maxCostMin)
	m.compare(0, len(fa), 0, len(fb), false)

	compact(a, ca, cb)
	compact(b, cb, ca)
	return hunks(ca, cb)
}

// cleanup is xdl_cleanup_records for one side: between start and end, lines whose class
// the other side lacks are marked changed and set aside, and so are lines whose class
// the other side holds often (at least the bogus square root of this side's length,
// capped) when they sit in a run dominated by such lines (cleanMMatch). It returns the
// classes that take part in the diff and their line indexes.
func cleanup(x []int, start, end int, other []int, changed []bool) ([]int, []int) {
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
	ids, idx := make([]int, 0, end-start), make([]int, 0, end-start)
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

// xdiff's cost heuristics (xdiff/xdiffi.c), which bound the work of one split.
const (
	// maxCostMin is XDL_MAX_COST_MIN: the least edit cost after which a split takes the
	// furthest-reaching path instead of the middle snake (the limit is the bogus square
	// root of the diagonals, at least this).
	maxCostMin = 256
	// heurMinCost is XDL_HEUR_MIN_COST: past this edit cost a split that has seen a
	// long snake looks for a path that reached far along a long snake.
	heurMinCost = 256
	// snakeCnt is XDL_SNAKE_CNT: a snake of more lines than this is a long one, and a
	// path must end on this many equal lines to be split at.
	snakeCnt = 20
	// kHeur is XDL_K_HEUR: a path is interesting when its progress (lines of both
	// files walked, less its distance from the box's middle diagonal) exceeds this many
	// times the edit cost.
	kHeur = 4
)

// myers is xdl_recs_cmp and xdl_split over the lines that take part (a, b, with their
// indexes ia, ib in the files), marking changed lines in ra and rb.
type myers struct {
	a, b   []int
	ia, ib []int
	ra, rb []bool
	vf, vb []int // furthest-reaching position per diagonal, diagonal k at off+k
	off    int
	mxcost int // the edit cost at which a split gives up on minimality
}

// box is a pair of line ranges [a0,a1) and [b0,b1) to diff; needMin says the diff of
// it must be minimal (no cost heuristics), as xdl_recs_cmp's need_min.
type box struct {
	a0, a1, b0, b1 int
	needMin        bool
}

// compare is xdl_recs_cmp: it shrinks a box by its common head and tail, marks all of
// one side changed when the other is empty, and otherwise splits it and compares both
// halves. The halves wait on a stack rather than in recursion, so that a long chain
// of lopsided splits (the cost heuristics cut near a corner of the box) costs heap,
// not goroutine stack; the halves are independent of each other, so the order is
// free, and it is xdl_recs_cmp's, the lower half first.
func (m *myers) compare(a0, a1, b0, b1 int, needMin bool) {
	stack := []box{{a0, a1, b0, b1, needMin}}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for x.a0 < x.a1 && x.b0 < x.b1 && m.a[x.a0] == m.b[x.b0] {
			x.a0++
			x.b0++
		}
		for x.a0 < x.a1 && x.b0 < x.b1 && m.a[x.a1-1] == m.b[x.b1-1] {
			x.a1--
			x.b1--
		}
		switch {
		case x.a0 == x.a1:
			for j := x.b0; j < x.b1; j++ {
				m.rb[m.ib[j]] = true
			}
		case x.b0 == x.b1:
			for i := x.a0; i < x.a1; i++ {
				m.ra[m.ia[i]] = true
			}
		default:
			s := m.split(x)
			stack = append(stack,
				box{s.i1, x.a1, s.i2, x.b1, s.minHi},
				box{x.a0, s.i1, x.b0, s.i2, s.minLo})
		}
	}
}

// splitPoint is where split cuts a box, and whether the diff of each part must be
// minimal (xdpsplit_t).
type splitPoint struct {
	i1, i2       int
	minLo, minHi bool
}

// split is xdl_split: it cuts the box x at a point on a path of the diff, searching
// forward from the top left and backward from the bottom right one edit at a time. It
// returns the middle snake where the two searches meet (both parts then need a minimal
// diff), unless the box does not need a minimal diff and the search grows costly:
// past heurMinCost edits, when a long snake was seen, the furthest-progressing path
// that ends on snakeCnt equal lines and beats kHeur times the cost (forward first,
// then backward); at mxcost edits, the path that reached furthest. The part such a
// path leads to is then diffed without minimality, the part behind it needs a minimal
// diff.
func (m *myers) split(x box) splitPoint {
	a0, a1, b0, b1 := x.a0, x.a1, x.b0, x.b1
	a, b, vf, vb, o := m.a, m.b, m.vf, m.vb, m.off
	dmin, dmax := a0-b1, a1-b0
	fmid, bmid := a0-b0, a1-b1
	odd := (fmid-bmid)&1 != 0
	fmin, fmax, bmin, bmax := fmid, fmid, bmid, bmid
	vf[o+fmid] = a0
	vb[o+bmid] = a1
	for ec := 1; ; ec++ {
		gotSnake := false
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
			// From the neighbour diagonal that reached further: one line of a on from
			// d-1 (which wins a tie), or one line of b on from d+1.
			i1 := max(vf[o+d-1]+1, vf[o+d+1])
			from := i1
			i2 := i1 - d
			for i1 < a1 && i2 < b1 && a[i1] == b[i2] {
				i1++
				i2++
			}
			if i1-from > snakeCnt {
				gotSnake = true
			}
			vf[o+d] = i1
			if odd && bmin <= d && d <= bmax && vb[o+d] <= i1 {
				return splitPoint{i1, i2, true, true}
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
			// The mirror: one line of b back from d-1, or one of a back from d+1 (which
			// wins a tie).
			i1 := min(vb[o+d-1], vb[o+d+1]-1)
			from := i1
			i2 := i1 - d
			for i1 > a0 && i2 > b0 && a[i1-1] == b[i2-1] {
				i1--
				i2--
			}
			if from-i1 > snakeCnt {
				gotSnake = true
			}
			vb[o+d] = i1
			if !odd && fmin <= d && d <= fmax && i1 <= vf[o+d] {
				return splitPoint{i1, i2, true, true}
			}
		}
		if x.needMin {
			continue
		}
		if gotSnake && ec > heurMinCost {
			if p, ok := m.interesting(x, fmin, fmax, bmin, bmax, ec); ok {
				return p
			}
		}
		if ec >= m.mxcost {
			return m.furthest(x, fmin, fmax, bmin, bmax)
		}
	}
}

// interesting is xdl_split's sampling of the diagonals after ec edits: the forward
// path whose progress from the box's top left (lines of both files, less its distance
// from the diagonal the search started on) is the greatest, above kHeur*ec, among
// those that end inside the box on snakeCnt equal lines; failing one, the same for the
// backward paths from the bottom right. ok is false when neither has one.
func (m *myers) interesting(x box, fmin, fmax, bmin, bmax, ec int) (p splitPoint, ok bool) {
	a0, a1, b0, b1 := x.a0, x.a1, x.b0, x.b1
	vf, vb, o := m.vf, m.vb, m.off
	fmid, bmid := a0-b0, a1-b1
	best := 0
	for d := fmax; d >= fmin; d -= 2 {
		i1 := vf[o+d]
		i2 := i1 - d
		v := (i1 - a0) + (i2 - b0) - abs(d-fmid)
		if v > kHeur*ec && v > best && a0+snakeCnt <= i1 && i1 < a1 && b0+snakeCnt <= i2 && i2 < b1 &&
			m.equalRun(i1-snakeCnt, i2-snakeCnt) {
			best = v
			p = splitPoint{i1: i1, i2: i2, minLo: true}
		}
	}
	if best > 0 {
		return p, true
	}
	for d := bmax; d >= bmin; d -= 2 {
		i1 := vb[o+d]
		i2 := i1 - d
		v := (a1 - i1) + (b1 - i2) - abs(d-bmid)
		if v > kHeur*ec && v > best && a0 < i1 && i1 <= a1-snakeCnt && b0 < i2 && i2 <= b1-snakeCnt &&
			m.equalRun(i1, i2) {
			best = v
			p = splitPoint{i1: i1, i2: i2, minHi: true}
		}
	}
	return p, best > 0
}

// equalRun says whether the snakeCnt lines from i1 in a and from i2 in b are equal.
func (m *myers) equalRun(i1, i2 int) bool {
	for k := 0; k < snakeCnt; k++ {
		if m.a[i1+k] != m.b[i2+k] {
			return false
		}
	}
	return true
}

// furthest is xdl_split's way out at mxcost edits: the forward path that walked the
// most lines of both files (clipped to the box) and the backward path that did, and of
// the two the one that got further from its corner (the backward one on a tie).
func (m *myers) furthest(x box, fmin, fmax, bmin, bmax int) splitPoint {
	a0, a1, b0, b1 := x.a0, x.a1, x.b0, x.b1
	vf, vb, o := m.vf, m.vb, m.off
	fbest, fbest1 := -1, -1
	for d := fmax; d >= fmin; d -= 2 {
		i1 := min(vf[o+d], a1)
		i2 := i1 - d
		if b1 < i2 {
			i1, i2 = b1+d, b1
		}
		if fbest < i1+i2 {
			fbest, fbest1 = i1+i2, i1
		}
	}
	bbest, bbest1 := lineMax, lineMax
	for d := bmax; d >= bmin; d -= 2 {
		i1 := max(a0, vb[o+d])
		i2 := i1 - d
		if i2 < b0 {
			i1, i2 = b0+d, b0
		}
		if i1+i2 < bbest {
			bbest, bbest1 = i1+i2, i1
		}
	}
	if (a1+b1)-bbest < fbest-(a0+b0) {
		return splitPoint{i1: fbest1, i2: fbest - fbest1, minLo: true}
	}
	return splitPoint{i1: bbest1, i2: bbest - bbest1, minHi: true}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
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
