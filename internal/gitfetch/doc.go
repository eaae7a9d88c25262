// Package gitfetch fetches a package directory of a git repository at a ref, with the
// git CLI (as kpt does), through a cache of bare repositories so that a second fetch of
// a tag or commit contacts no remote.
//
// The git CLI rather than a Go git library: it accepts every URL git accepts (https,
// ssh with the user's ssh config, local paths, file://) with the user's credential
// helpers and proxies, exactly as `kpt pkg get` does, and it adds nothing to the
// binary, whose container image must stay under 15 MB (a Go git implementation
// weighs several MB). The cost is that the git CLI must be installed; CheckGit says so
// clearly where it is not (the function's container image has no git).
//
// Refs resolve as kpt resolves them: a tag named "<directory>/<ref>" (a package-scoped
// tag) first, then the tag <ref>, then the branch <ref>, then a commit id (full or
// abbreviated). Tags and commits found in the cache are used without contacting the
// remote; a branch is always asked of the remote (it moves), and fetched only when its
// commit is not cached yet.
//
// The cache is crash safe by git's own design (objects before refs, refs by rename);
// a cache is created in a temporary directory and renamed into place; stale git lock
// files of a killed fetch are removed under an flock that serialises krm-merge runs on
// one cached repository.
//
// Only package pkgupdate calls it (and, through pkgupdate's errors, the pkg command).
package gitfetch
