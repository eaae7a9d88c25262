// Package pkgupdate takes a new upstream release into a package directory in one step,
// as `kpt pkg update` does but with krm-merge's 3-way merge: the change from the
// release the package was fetched at (original) to the new one (updated) is merged into
// the local copy (dest), resources field by field with the function's engine
// (function.Merge, each resource's role that of the tree it was read from), other files line by line (git merge-file's semantics), and the
// Kptfile records the new release. docs/pkg-update.md describes the command built on it,
// `krm-merge pkg update DIR[@VERSION]`.
//
// # Shapes
//
// Update(ctx, Options) takes the package directory (Options.Dir), the version to update
// to (a tag, branch or commit; "" is the Kptfile's upstream ref), and optionally the
// merge settings (Options.Merge, a config.MergeSettings: the functionConfig keys pkg update
// takes; it sets the mode and the roles itself), a plan-only switch and a git cache
// directory. It returns a
// *Report: per package (the root, then each subpackage with its own upstream) the
// versions merged from and to, the resource counts as the function counts them, the
// conflicts (file, resource, field, text lines), warnings, resources added and deleted
// and, with Plan, the field changes; and every file changed, with a unified diff under
// Plan.
//
// Update reads DIR/Kptfile's upstream (repo, directory, ref) and upstreamLock (commit),
// or Options.Repo, Directory and From for a directory without a Kptfile upstream;
// fetches both releases with the git CLI through a cache (by default
// $KRM_MERGE_CACHE_DIR, else krm-merge/git under the user's cache directory); gives them
// the bookkeeping `kpt pkg get` adds (so that what kpt added to the local copy is not a
// local change); merges; and writes the result into DIR all or nothing: a crash, a kill
// or a failing write leaves DIR as it was or fully updated, and the next run finishes or
// undoes an interrupted one (Report.Recovered). Subpackages with their own upstream are
// updated from it, in the same all-or-nothing write.
//
// # Rules
//
// Resources merge as the krm-merge function merges them in 3way mode with path roles
// (docs/function.md, "Choosing roles"; docs/merge-semantics.md for resources and
// fields; onConflict as "Conflict" says). Text files (README.md, scripts, YAML that is
// not KRM) merge line by line as `git merge-file` does; a conflicting hunk takes the
// onConflict side, and a binary file (a NUL byte in its first 8000, as git decides) is
// taken whole from the side that changed it and never shown in a plan ("Binary files
// differ"). A path that is a file on one side and a directory on the other is decided
// whole before those merges: upstream's change when the local copy is as the old
// release had it, else a conflict under onConflict (updated deletes the local side's
// files, each listed; a directory holding a subpackage is never replaced).
//
// # Resolving conflicts by hand
//
// Under onConflict mark (config.MarkConflicts; docs/pkg-update.md, "Resolving conflicts
// by hand") every conflict no value merge settles is written into its file as git-style
// markers around its lines (a KRM file's from three merges of it, the conflicts decided
// for dest, for updated and for original; a text file's as git merge-file --diff3
// writes them), a conflict markers cannot hold gets upstream's version beside the local
// one, everything else is updated, and Update returns the report (Report.Marks) with a
// *MarkedError: the update is in progress, its state in the package's
// .krm-merge-in-progress directory, and the Kptfiles keep the old release. Continue
// records the release once the markers are resolved (else *UnresolvedError naming each
// file and line); Abort puts the package back exactly as it was. Meanwhile Update of
// the package, of a directory above it or of one inside it returns ErrInProgress.
//
// # Hostile input
//
// The upstream and everything it ships are hostile; the package directory may sit on a
// shared machine. Every file is read as package pkgio reads it: a regular file only (a
// symbolic link, FIFO, device or socket is an error naming it), opened without
// following links or blocking and checked on the open file, at most
// Options.MaxFileSize bytes. A .git path in an upstream release (in any spelling git
// takes for .git) is refused, and no change to such a path is ever written; nor is a
// file written over a directory the update did not read. The report's String methods
// escape what a terminal would act on.
//
// # What is behind
//
// Outdated(ctx, OutdatedOptions) reads, without fetching or writing, every package
// under OutdatedOptions.Dirs (a directory whose Kptfile names a git upstream) and
// returns an *OutdatedReport: per package its upstream, the commit it holds, the
// newest release of its ref's kind (a tag's newest tag of the same form by semantic
// versioning, a branch's current commit, nothing for a commit id) and how far behind
// it is (OutdatedKind). Each distinct remote is asked once (gitfetch's ListRefs); a
// package's own problem is its OutdatedPackage.Error (docs/pkg-update.md, "What is
// behind").
//
// # Neighbours
//
// The `krm-merge pkg update` command (cmd/pkgcmd) is its front end. An update goes
// through its steps package by package, each in its file: fetch (fetcher, fetch.go),
// prepare (prepare.go), merge (merger, merge.go; its parts in filedir.go, resources.go,
// text.go and mark.go), then stage (stager, stage.go) once for all. It uses
// package function for the resources (function.Merge, given each resource's role:
// roles.Assign per tree) and internal packages for the rest:
// gitfetch (fetching), kptfile and kptprep (kpt's bookkeeping), pkgio (reading and
// writing package files as kpt does), textmerge (line merges) and stage (the
// all-or-nothing write).
//
// # Errors
//
// Update returns bad options or input (naming the option, or the file and field;
// ErrTooLarge, ErrNotRegular); a missing git CLI (a message saying git is needed);
// fetch failures; ErrDirty for a
// package with uncommitted changes (unless Options.AllowDirty); ErrNoUpstream when
// nothing says where to fetch; the merge's errors (*vocab.ItemError naming resource,
// file and field, paths relative to the package); *ConflictError, with the report,
// when onConflict is error and there are conflicts; ErrInProgress while an update is in
// progress; write failures. On every error DIR is as it was. Under onConflict mark,
// *MarkedError with the report says the markers are written.
package pkgupdate
