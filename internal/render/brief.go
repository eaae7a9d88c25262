package render

import (
	"sort"
	"strings"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// briefMax is the longest value a message shows, in bytes, its ellipses included.
// briefLead is how much a window shows before the first difference it holds, and
// briefTail at least after the last; segLead is the context before a difference in each
// of two windows, segLen a window's length then.
const (
	briefMax  = 60
	briefLead = 16
	briefTail = 12
	segLead   = 8
	segLen    = (briefMax - 9) / 2
)

// Brief renders the values of one message, each on one line (oneLine): a value of
// briefMax bytes or fewer whole; a longer one cut to briefMax bytes so that it shows the
// places where it differs from the other values (diffPoints), with "..." where text is
// left out: one window from briefLead bytes before the first place, when the last fits
// in too; else two windows of segLen bytes, around the first place and the last
// (elide). So `gcr.io/knative-releases/.../apiserver_receive_adapter@sha256:aaa...`
// beside the same reference at another digest and a mirror's copy shows
// `gcr.io/knative-releases/knat...@sha256:aaaaaaaaaaaaaaaaa...`: the registry where it
// differs from the mirror's, the digest where it differs from the other. Absent values
// are "<absent>".
func Brief(ns ...*yaml.RNode) []string {
	full := make([]string, len(ns))
	present := make([]bool, len(ns))
	for i, n := range ns {
		full[i] = oneLine(n)
		present[i] = n != nil && !n.IsNil()
	}
	out := make([]string, len(ns))
	for i, s := range full {
		if !present[i] || len(s) <= briefMax {
			out[i] = s
			continue
		}
		out[i] = elide(s, diffPoints(i, full, present))
	}
	return out
}

// diffPoints returns, sorted, the byte offsets in full[i] to show, at most two
// clusters (a place within clusterGap bytes after another is shown with it): where
// full[i] begins to differ from each other present value, always; then where each later
// run of differing tokens begins (diffStarts), the last first, while the places still
// make two clusters or fewer.
func diffPoints(i int, full []string, present []bool) []int {
	var keep, more []int
	for j := range full {
		if j == i || !present[j] || full[j] == full[i] {
			continue
		}
		at, _ := diffStarts(full[i], full[j])
		if len(at) > 0 {
			keep = append(keep, at[0])
			more = append(more, at[1:]...)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(more)))
	for _, p := range more {
		if len(clusters(append(append([]int(nil), keep...), p))) <= 2 {
			keep = append(keep, p)
		}
	}
	return clusters(keep)
}

// clusterGap is how far after a place shown another counts as shown with it: a window
// of segLen bytes from segLead before the first, less the up to 3 bytes each cut moves
// back to a UTF-8 sequence start, still holds a 4-byte sequence starting there.
const clusterGap = segLen - segLead - 3 - 3 - 3

// clusters sorts pts and drops each within clusterGap bytes after the last one kept.
func clusters(pts []int) []int {
	sort.Ints(pts)
	var out []int
	for _, p := range pts {
		if len(out) == 0 || p-out[len(out)-1] >= clusterGap {
			out = append(out, p)
		}
	}
	return out
}

// elide cuts s, longer than briefMax, to briefMax bytes showing the places pts (sorted
// offsets in s): one window from briefLead bytes before the first, when it reaches
// briefTail bytes past the last; else a window of segLen bytes from segLead before the
// first and one from segLead before the last (the end of s where that one reaches it).
// Cuts fall on UTF-8 sequence starts.
func elide(s string, pts []int) string {
	if len(pts) == 0 {
		return cut(s)
	}
	first, last := pts[0], pts[len(pts)-1]
	start := runeStart(s, max(0, first-briefLead))
	if start <= 3 {
		start = 0
	}
	room := briefMax - 3
	if start > 0 {
		room -= 3
	}
	if last+briefTail <= start+room {
		return window(s, start)
	}
	// two windows: the head around the first place, the tail around the last
	a := runeStart(s, max(0, first-segLead))
	if a <= 3 { // an ellipsis would take as much as it leaves out
		a = 0
	}
	aEnd := runeStart(s, a+segLen)
	if a == 0 {
		aEnd = runeStart(s, segLen+3)
	}
	b, bEnd := runeStart(s, max(0, last-segLead)), 0
	if len(s)-b <= segLen+3 {
		b, bEnd = runeNext(s, len(s)-(segLen+3)), len(s)
	} else {
		bEnd = runeStart(s, b+segLen)
	}
	if b < aEnd+3 {
		return window(s, start)
	}
	out := s[a:aEnd] + "..." + s[b:bEnd]
	if a > 0 {
		out = "..." + out
	}
	if bEnd < len(s) {
		out += "..."
	}
	return out
}

// window shows s, longer than briefMax, from offset start (a rune start) in at most
// briefMax bytes: cut where start is 0; else "..." and the rest, moved back to end at
// s's end where the rest is short, and "..." where it is cut at the end.
func window(s string, start int) string {
	if start == 0 {
		return cut(s)
	}
	if len(s)-start <= briefMax-3 {
		return "..." + s[runeNext(s, len(s)-(briefMax-3)):]
	}
	return "..." + s[start:runeStart(s, start+briefMax-6)] + "..."
}

// runeStart moves offset i of s back to the start of the UTF-8 sequence it falls in
// (i itself at len(s) or at a sequence start).
func runeStart(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// oneLine renders a value on one line, whole, as conflict messages show values: a
// scalar's value, a collection's YAML with its white space folded; "<absent>" for nil,
// "<unprintable>" for a collection that does not serialize.
func oneLine(n *yaml.RNode) string {
	if n.IsNil() {
		return "<absent>"
	}
	if n.YNode().Kind == yaml.ScalarNode {
		return n.YNode().Value
	}
	s, err := n.String()
	if err != nil {
		return "<unprintable>"
	}
	return strings.Join(strings.Fields(s), " ")
}

// cut cuts s to 60 bytes (briefMax) for a message, ending in "..." and never inside a
// UTF-8 sequence; a shorter s is returned as it is.
func cut(s string) string {
	if len(s) <= briefMax {
		return s
	}
	end := briefMax - 3
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "..."
}

// BriefTexts cuts texts for a message as Brief cuts values.
func BriefTexts(ss ...string) []string {
	ns := make([]*yaml.RNode, len(ss))
	for i, s := range ss {
		ns[i] = yaml.NewScalarRNode(s)
	}
	return Brief(ns...)
}

// runeNext moves offset i of s forward to the start of the next UTF-8 sequence where it
// falls inside one.
func runeNext(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}
