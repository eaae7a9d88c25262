package render

// maxDiffTokens bounds the token diff of two values (diffStarts): past it, on either
// side of what the two share at their beginning and end, what lies between is one run.
const maxDiffTokens = 256

// tokens cuts s into tokens, returning their start offsets and len(s) last: each
// maximal run of ASCII letters and digits and of non-ASCII bytes is a token, any other
// byte (a separator: / : @ . - space, ...) a token of its own.
func tokens(s string) []int {
	var at []int
	for i := 0; i < len(s); i++ {
		if i == 0 || !isWord(s[i]) || !isWord(s[i-1]) {
			at = append(at, i)
		}
	}
	return append(at, len(s))
}

// diffStarts returns where a and b begin to differ, as offsets in a and in b: a diff of
// their tokens (the tokens they share at the beginning and the end stripped, the rest by
// longest common subsequence when each side holds at most maxDiffTokens tokens, else
// one run), each run of differing tokens giving one offset on each side, moved past
// the bytes the two runs share at their beginning ("sha256:aaab" and "sha256:aaac"
// differ at the "b"). Values with nothing in common (no word token, no first or last
// byte) give nothing: no place lines them up.
func diffStarts(a, b string) (inA, inB []int) {
	ta, tb := tokens(a), tokens(b)
	tok := func(s string, t []int, i int) string { return s[t[i]:t[i+1]] }
	n, m := len(ta)-1, len(tb)-1
	pre := 0
	for pre < n && pre < m && tok(a, ta, pre) == tok(b, tb, pre) {
		pre++
	}
	suf := 0
	for suf < n-pre && suf < m-pre && tok(a, ta, n-1-suf) == tok(b, tb, m-1-suf) {
		suf++
	}
	if pre == 0 && suf == 0 && !shareToken(a, ta, b, tb) && a[0] != b[0] && a[len(a)-1] != b[len(b)-1] {
		return nil, nil
	}
	run := func(i0, i1, j0, j1 int) { // tokens [i0, i1) of a against [j0, j1) of b
		sa, sb := a[ta[i0]:ta[i1]], b[tb[j0]:tb[j1]]
		k := 0
		for k < len(sa) && k < len(sb) && sa[k] == sb[k] {
			k++
		}
		inA, inB = append(inA, ta[i0]+k), append(inB, tb[j0]+k)
	}
	lo, hiA, hiB := pre, n-suf, m-suf
	if hiA-lo > maxDiffTokens || hiB-lo > maxDiffTokens {
		run(lo, hiA, lo, hiB)
		return inA, inB
	}
	// lcs[i][j]: the longest common subsequence of a's tokens from lo+i and b's from lo+j
	w, h := hiA-lo, hiB-lo
	lcs := make([][]int32, w+1)
	for i := range lcs {
		lcs[i] = make([]int32, h+1)
	}
	for i := w - 1; i >= 0; i-- {
		for j := h - 1; j >= 0; j-- {
			switch {
			case tok(a, ta, lo+i) == tok(b, tb, lo+j):
				lcs[i][j] = lcs[i+1][j+1] + 1
			case lcs[i+1][j] >= lcs[i][j+1]:
				lcs[i][j] = lcs[i+1][j]
			default:
				lcs[i][j] = lcs[i][j+1]
			}
		}
	}
	i, j, ri, rj, in := 0, 0, 0, 0, false
	for i < w || j < h {
		if i < w && j < h && tok(a, ta, lo+i) == tok(b, tb, lo+j) {
			if in {
				run(lo+ri, lo+i, lo+rj, lo+j)
				in = false
			}
			i, j = i+1, j+1
			continue
		}
		if !in {
			ri, rj, in = i, j, true
		}
		if j >= h || (i < w && lcs[i+1][j] >= lcs[i][j+1]) {
			i++
		} else {
			j++
		}
	}
	if in {
		run(lo+ri, lo+w, lo+rj, lo+h)
	}
	return inA, inB
}

// shareToken reports whether a and b have a word token (not a lone separator) in common.
func shareToken(a string, ta []int, b string, tb []int) bool {
	words := map[string]bool{}
	for i := 0; i+1 < len(ta); i++ {
		if t := a[ta[i]:ta[i+1]]; isWord(t[0]) {
			words[t] = true
		}
	}
	for i := 0; i+1 < len(tb); i++ {
		if words[b[tb[i]:tb[i+1]]] {
			return true
		}
	}
	return false
}

// isWord reports whether c is part of a word token.
func isWord(c byte) bool {
	return c >= 0x80 || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}
