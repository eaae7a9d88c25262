// Package keepbytes merges text by YAML lines (Lines): `git merge-file`'s line merge
// (internal/textmerge) where a line and the lines that continue it are one, and
// changes that only touch, or that replace lines one for one, are taken from both
// sides rather than called a conflict. It keeps the bytes of a file or item that was
// re-encoded around the lines a merge changed: pkg update's merged KRM files
// (pkg/pkgupdate/internal/keepfile) and the function's changed items
// (pkg/function/internal/resourcelist). It knows nothing of YAML beyond lines and
// indentation: each caller checks that the result reads as it should.
package keepbytes
