// Package gitfetch fetches a package directory of a git repository at a ref, with the
// git CLI (as kpt does), through a cache of bare repositories so that a second fetch of
// a tag or commit downloads nothing.
//
// The git CLI rather than a Go git library: it accepts every URL git accepts (https,
// ssh with the user's ssh config, local paths, file://) with the user's credential
// helpers and proxies, exactly as `kpt pkg get` does, and it adds nothing to the
// binary, whose container image must stay under 15 MB (a Go git implementation
// weighs several MB). The cost is that the git CLI (MinGitVersion or newer) must be
// installed; CheckGit says so clearly where it is not (the function's container image
// has no git).
//
// Refs resolve as kpt resolves them: a tag named "<directory>/<ref>" (a package-scoped
// tag) first, then the tag <ref>, then the branch <ref>, then a commit id (full or
// abbreviated). A full commit id found in the cache is used without contacting the
// remote; every other ref is asked of the remote (`git ls-remote`) each time, and
// fetched only when its commit is not cached yet, as that commit alone (`--depth 1`:
// no history) and no more than Fetcher.MaxFetchSize bytes. A tag that moved upstream is fetched
// anew and reported in Resolved.Warnings; a cached tag is used, with a warning, when
// the remote cannot be reached.
//
// Everything upstream sends is hostile input, and the cache may sit on a shared
// machine (docs/pkg-update.md, "Git: the CLI, through a cache"):
//
//   - no value is ever read as an option: URLs (NormalizeURL) and refs starting with
//     '-' or holding control characters are refused, and every git command ends its
//     options with --end-of-options; revisions are given to git on standard input;
//   - only the transports file, git, http, https and ssh (AllowedProtocols);
//   - no hook, fsmonitor or submodule in the repositories git runs in; every object
//     fetched checked (fetch.fsckObjects, with legacy metadata findings ignored);
//   - the cache directory and each cache repository must be the user's own, or listed
//     in git's safe.directory; the cache directory is made with mode 0700, resolved
//     once, and refused when another user could swap anything on the path to a cache
//     repository (it or a directory above it writable by others and not sticky); a
//     cache repository must be the directory its lock was taken on, with no alternates
//     (and core.alternateRefsCommand is `true` for every command);
//   - git runs in a work tree (WorkTreeStatus, the dirty check) only when the
//     repository is the user's, with safe.directory reset to it: a .git another user
//     planted above the package would run its filter drivers;
//   - under OneQueryPerRemote (one update) each remote is asked for its refs once, and
//     one that did not answer in time is not asked again; ListRefs (pkg outdated)
//     reads a remote's whole listing, stopping git past a byte limit;
//   - every git command runs under a timeout (DefaultTimeout), in a session of its own
//     whose whole process group is killed at the timeout (and, on Linux, git is killed
//     with krm-merge); the wait for another run's lock is told (Fetcher.Log) and
//     bounded by the same timeout;
//   - a relative local path is the repository it names from the working directory,
//     made absolute (NormalizeURL): the cache is keyed by that absolute form;
//   - Export checks every tree entry before writing anything (no symbolic link, no
//     duplicate entry, no `.git` in any case or file system alias, no control
//     characters), writes under an os.Root with O_EXCL|O_NOFOLLOW, and streams each
//     file from `git cat-file --batch` under a size limit (Fetcher.MaxFileSize).
//
// The cache is crash safe by git's own design (objects before refs, refs by rename);
// a cache is created in a temporary directory and renamed into place; stale git lock
// files of a killed fetch are removed under an flock that serialises krm-merge runs on
// one cached repository.
//
// Only package pkgupdate calls it (and, through pkgupdate's errors, the pkg command).
package gitfetch
