// Package keepbytes writes a merged KRM file with the bytes of the files it came from:
// the local file's (dest's) bytes for every line the merge did not change, and the
// updated release's bytes for what the merge took from it, instead of the merged
// resources re-encoded whole. yaml.v3, which encodes the merged resources, does not
// keep a plain scalar's line breaks (a CRD's wrapped `description:`), a map's
// indentation other than 2, or a "\r\n" line end; re-encoding a changed file would move
// every such line, not only the changed ones.
//
// The merged file is given as its encoding (merged: the bytes pkg update would write
// without this package). Three line merges with the semantics of `git merge-file`
// (internal/textmerge) move its changes onto dest's bytes:
//
//	U   = Normalize(updated)                   the updated release, as encoded
//	X   = merge3(base U, merged, updated)      merged, in updated's formatting where
//	                                           its lines are updated's (conflicts: merged)
//	Z   = merge3(base U, Normalize(dest), updated)
//	                                           dest, in updated's formatting where its
//	                                           lines are updated's (conflicts: dest's)
//	out = merge3(base Z, dest, X)              dest's bytes with the change from Z to X:
//	                                           the merge's changes, in updated's
//	                                           formatting (conflicts: X)
//
// Without an updated file, X is merged and Z is Normalize(dest); without dest (an
// added file), out is X.
//
// The line merges know nothing of YAML, so out is checked before it is used:
// Normalize(out) must equal merged byte for byte, that is out must read as the merged
// resources read, with the same values, comments, order and styles. When it does not,
// the next candidate is tried (dest's bytes with merged's lines: merge3(base
// Normalize(dest), dest, merged)), and last merged itself. So the result never reads
// differently from merged; at worst it is merged.
//
// A file whose every line ends in "\r\n" is merged with "\n" line ends and written
// back with "\r\n" (as kyaml's reader reads "\r\n" as "\n").
//
// Only package pkgupdate calls it, for each KRM file an update changes.
package keepbytes
