// Package textmerge merges text files line by line, 3-way, with the semantics of
// `git merge-file` (git's xdiff at its default level, "zealous alnum"): the changes
// from base to each side are line diffs; changes separated by at least one unchanged
// base line merge cleanly; changes that overlap or touch are a conflict unless both
// sides end with the same lines there. MergeSeq is the same merge over sequences of
// ids (lines, or any items interned so that equal items share an id) and returns its
// regions, conflicting ones with their ranges in each input, so that lists of values
// and lines of text merge by one rule. MergeMarked writes a merge's conflicts with
// markers as `git merge-file --diff3` does, byte for byte; MarkDifferences writes, in the
// same format, every run where two versions of one merge differ, with the other sides
// taken from the files those versions stand for (aligned with them line by line), and
// IsMarker finds marker lines left. It also renders unified diffs for previews. It is pure: no I/O.
//
// The line diff follows xdiff (git's xdiffi.c and xprepare.c) step by step so that it
// picks the diff git picks: common ends trimmed, lines with no match on the other side
// (and runs of often-repeated lines between them) set aside, Myers' divide and conquer
// on the rest (Myers 1986, "An O(ND) Difference Algorithm and Its Variations", section
// 4b) with xdiff's cost heuristics, then changed groups slid as xdl_change_compact
// slides them (without the indent heuristic, which merge-file does not use). The
// heuristics bound the work of each split of the divide and conquer: past 256 edits a
// split that has seen a run of more than 20 equal lines may cut at a path that got far
// along such a run, and at the bogus square root of the lines left in the diff (at
// least 256) edits it cuts at the path that got furthest, giving up minimality as git
// does; the part behind such a cut still gets a minimal diff. On long and very
// different files the diff is thus git's, and its work grows with the files as git's
// does instead of with the product of their lengths and edits.
//
// Package pkgupdate calls it for the files of a package that are not KRM resources
// (README.md, scripts, YAML lists), for its plan's diffs, and for the conflict markers
// of onConflict mark; package merge calls Merge
// and MergeSeq to merge inside a multi-line string or an atomic list changed on both
// sides (docs/merge-semantics.md, "Merging inside a value"); package keepbytes merges
// lines with it to keep a file's bytes where the merge did not change them.
package textmerge
