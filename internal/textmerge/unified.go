package textmerge

import (
	"fmt"
	"strings"
)

// Unified returns the hunks of a unified diff from old to new with context lines of
// context around each change, as `diff -u` prints them after the file header lines
// ("@@ -l,s +l,s @@" then lines prefixed " ", "-" or "+"; a line without a final
// newline is followed by "\ No newline at end of file"). "" when old equals new.
func Unified(old, new []byte, context int) string {
	lo, ln := splitLines(old), splitLines(new)
	in := interner{}
	hs := diff(in.ids(lo), in.ids(ln))
	if len(hs) == 0 {
		return ""
	}
	var b strings.Builder
	line := func(prefix string, l []byte) {
		b.WriteString(prefix)
		b.Write(l)
		if len(l) == 0 || l[len(l)-1] != '\n' {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
	for i := 0; i < len(hs); {
		// group hunks whose contexts touch
		j := i
		for j+1 < len(hs) && hs[j+1].a0-hs[j].a1 <= 2*context {
			j++
		}
		a0 := max(hs[i].a0-context, 0)
		a1 := min(hs[j].a1+context, len(lo))
		b0 := hs[i].b0 - (hs[i].a0 - a0)
		b1 := hs[j].b1 + (a1 - hs[j].a1)
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", span(a0, a1), span(b0, b1))
		at := a0
		for k := i; k <= j; k++ {
			h := hs[k]
			for ; at < h.a0; at++ {
				line(" ", lo[at])
			}
			for x := h.a0; x < h.a1; x++ {
				line("-", lo[x])
			}
			for y := h.b0; y < h.b1; y++ {
				line("+", ln[y])
			}
			at = h.a1
		}
		for ; at < a1; at++ {
			line(" ", lo[at])
		}
		i = j + 1
	}
	return b.String()
}

// span formats a unified diff range: "start,count" (1-based; count 0 starts at the line
// before), or "start" alone when count is 1.
func span(from, to int) string {
	switch n := to - from; n {
	case 0:
		return fmt.Sprintf("%d,0", from)
	case 1:
		return fmt.Sprintf("%d", from+1)
	default:
		return fmt.Sprintf("%d,%d", from+1, n)
	}
}
