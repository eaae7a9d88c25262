// Package keepfile writes a merged KRM file with the bytes of the files it came from:
// the local file's (dest's) bytes for every line the merge did not change, and the
// updated release's bytes for what the merge took from it, instead of the merged
// resources re-encoded whole. yaml.v3, which encodes the merged resources, does not
// keep a plain scalar's line breaks (a CRD's wrapped `description:`), a map's
// indentation other than 2, flow-style spacing or a "\r\n" line end; re-encoding a
// changed file would move every such line, not only the changed ones.
//
// The merged file is given as its encoding (merged: the bytes pkg update would write
// without this package). Line merges (merge3, internal/keepbytes.Lines: `git merge-file`'s, through
// internal/textmerge, on YAML lines, a line with the lines that continue it, and with
// changes that only touch or that replace lines one for one taken from both sides
// rather than called a conflict) move its changes onto dest's bytes:
//
//	U  = Normalize(updated)                 the updated release, as encoded
//	X  = merge3(base U, merged, updated)    merged, in updated's formatting where its
//	                                        lines are updated's (a conflict: merged's)
//	Z  = merge3(base U, Normalize(dest), updated)
//	                                        dest as encoded, in updated's formatting
//	                                        where its lines are updated's
//	C1 = merge3(base Z, dest, X)            dest's bytes with the change from Z to X:
//	                                        the merge's changes in updated's
//	                                        formatting (a conflict: X's)
//	C2 = merge3(base Normalize(dest), dest, merged)
//	                                        dest's bytes with the merge's changed lines
//	                                        as encoded
//
// C1 is tried first, unless C2 keeps more of dest's lines (when upstream formats a
// whole block otherwise, as a 4-space upstream against a kpt copy). After C1 comes the
// updated file itself: where upstream reformats a whole block around a changed line,
// git merge-file's resolution of the conflicting region can put upstream's block after
// dest's in Z, and C1 then reads otherwise than merged; a plain copy the user did not
// change there reads as the updated file, which is then written as upstream wrote it.
// Without an updated file, C1 is C2; without dest (an added file), the candidate is X.
//
// The line merges know nothing of YAML, so a candidate is checked before it is used:
// Normalize(candidate) must equal merged byte for byte, that is the candidate must
// read as the merged resources read, with the same values, comments, order and
// styles; and it must hold the same metadata.annotations keys as merged, as yaml.v3
// reads them (Normalize drops kyaml's reader annotations, path, index, id and
// seqindent, which tell kpt where a resource goes, and the reader sets its own: none
// may come in with upstream's or dest's bytes). The first candidate that passes is
// returned, else merged itself. So the result never reads differently from merged; at
// worst it is merged.
//
// A file whose every line ends in "\r\n" is merged with "\n" line ends and written
// back with "\r\n" (as kyaml's reader reads "\r\n" as "\n").
//
// Only package pkgupdate calls it, for each KRM file an update changes.
package keepfile
