// Package stage applies a set of file changes to a directory so that a crash, a kill or
// a failing write leaves the directory either as it was or fully changed, never half:
// every new file is first written into a staging directory on the same filesystem,
// then a journal listing the changes is committed with one rename, then the changes are
// applied by renames, keeping the replaced files as backups until the end. A later run
// that finds a committed journal rolls it forward; one that finds staging without a
// journal discards it (the directory was not touched yet); a run whose renames fail
// rolls back from the backups. The directory itself is never moved (it may be a git
// repository's root, with .git inside).
//
// Protocol, for a directory D with staging directory S (StagingDir):
//
//  1. S is made with mkdir, mode 0700 (failing if anything is there); S/new/<n> holds
//     the content of change n that writes a file, created O_EXCL|O_NOFOLLOW, fsynced.
//  2. S/journal.json (written as S/journal.tmp, fsynced, then renamed) lists the
//     changes, the directories to remove (with their modes) and those to create: the
//     commit point.
//  3. Roll forward, in four passes: every file that exists and is replaced or deleted
//     is kept as S/old/<n> (a hard link, or a rename when linking fails or the change
//     deletes it); the directories the deletions emptied are removed, deepest first;
//     the directories new files need are made, shallowest first; each S/new/<n> is
//     renamed onto D/<path>. So one change set can turn a directory x/ into a file x,
//     and a file x into a directory x/ holding x/y.
//  4. S/journal.json is renamed to S/journal.done and S is removed.
//
// Roll back (after a failed rename, or when S/rollback exists): S/rollback is created,
// new files that were moved in are removed, created directories are removed, removed
// directories are made again with their modes, each kept S/old/<n> is renamed back
// onto its path. Every step checks the state it leaves behind before acting, so
// running roll forward or roll back again after a crash in the middle of either
// finishes the job.
//
// D and its parent may be shared with other users (docs/pkg-update.md, "All or
// nothing"). Before S is recovered, discarded or replaced it must be a real directory
// (not a symbolic link) owned by the user running and writable by no one else, its
// journal such a regular file, and every path in the journal a clean relative path
// inside D that touches no .git (checkPath); otherwise nothing is changed and the
// error says what to remove. No operation on a path below D follows a symbolic link:
// each directory on the way is opened with O_NOFOLLOW and the operation is made
// relative to it, so a directory that is, or becomes during the run, a symbolic link
// fails the operation instead of leading out of D; a change whose path is a symbolic
// link is refused (packages holding symbolic links are refused when read).
//
// Only package pkgupdate calls it: Recover before an update, Apply to write one; Lock
// keeps updates of one package tree (a package, the packages inside it and those
// above it) apart.
package stage
