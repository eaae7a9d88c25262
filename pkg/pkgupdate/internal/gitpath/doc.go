// Package gitpath says which file names a file system takes for `.git`, the directory
// that holds a git repository's configuration and hooks, as git's own checks say it
// (verify_path in git's read-cache.c; is_ntfs_dotgit and is_hfs_dotgit in path.c and
// utf8.c): `.git` in any case; with trailing dots or spaces (`.git.`, which Windows
// opens as `.git`); with an NTFS alternate data stream (`.git::$INDEX_ALLOCATION`);
// the NTFS short name `git~1`; with the code points HFS+ ignores in names (zero-width
// joiners, direction marks, the byte order mark: `.g\u200cit`). It takes the union
// of the NTFS and HFS+ rules, so it refuses what either file system would open as
// `.git`.
//
// Every reader and writer of a package that may hold upstream bytes asks it: the
// export of a fetched release (pkg/pkgupdate/internal/gitfetch), the reader of a package
// (pkg/pkgupdate/internal/pkgio), the writer (pkg/pkgupdate/internal/stage) and pkg update's own checks, so that
// an upstream can never plant a repository (whose core.fsmonitor or hooks any git
// command there would run) nor reach the real one through `.GIT/config` on a
// case-insensitive file system (docs/security.md).
//
// Key extends the same rules (case, normalisation, ignorable code points, NTFS's
// trailing dots and streams) to any name, for the names krm-merge keeps for itself (the
// state of an update in progress, the staging directory): an upstream may ship none of
// them in any spelling.
package gitpath
