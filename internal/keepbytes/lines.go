package keepbytes

import "github.com/krm-merge/krm-merge/internal/textmerge"

// Lines returns ours with the change from base to theirs merged in, by YAML lines (a
// line and the lines that continue it are one; see the package documentation's
// merge3): where both changed the same lines, theirs. It knows nothing of YAML beyond
// lines and indentation: the caller checks that the result reads as it should.
// Package resourcelist uses it to keep a changed item's input bytes around its
// changes (base: the item as read, encoded; ours: its input bytes; theirs: the
// output item, encoded).
func Lines(base, ours, theirs []byte) []byte {
	return merge3(base, ours, theirs, textmerge.FavorUpdated)
}
