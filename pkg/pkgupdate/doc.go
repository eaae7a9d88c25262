// Package pkgupdate takes a new upstream release into a package directory in one step,
// as `kpt pkg update` does but with krm-merge's 3-way merge: the change from the
// release the package was fetched at (original) to the new one (updated) is merged into
// the local copy (dest), resources field by field with the function's engine
// (function.Run), other files line by line (git merge-file's semantics), and the
// Kptfile records the new release.
//
// Update reads DIR/Kptfile's upstream (repo, directory, ref) and upstreamLock (commit),
// fetches both releases with git through a cache, gives them the bookkeeping
// `kpt pkg get` adds (so that what kpt added to the local copy is not a local change),
// merges, and writes the result into DIR all or nothing: a crash, a kill or a failing
// write leaves DIR as it was or fully updated, and the next run finishes or undoes an
// interrupted one. Subpackages with their own upstream are updated from it, in the
// same all-or-nothing write.
package pkgupdate
