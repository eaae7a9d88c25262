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
//  1. S/new/<n> holds the content of change n that writes a file, fsynced.
//  2. S/journal.json (written as S/journal.tmp, fsynced, then renamed) lists the
//     changes, the directories to create and those to remove: the commit point.
//  3. Roll forward, change by change: a file that exists is first kept as S/old/<n>
//     (a hard link, or a rename when linking fails or the change deletes it), then
//     S/new/<n> is renamed onto D/<path>; then emptied directories are removed.
//  4. S/journal.json is renamed to S/journal.done and S is removed.
//
// Roll back (after a failed rename, or when S/rollback exists): S/rollback is created,
// removed directories are made again, each kept S/old/<n> is renamed back onto its
// path, files that did not exist are removed, created directories are removed.
// Every step checks the state it leaves behind before acting, so running roll forward
// or roll back again after a crash in the middle of either finishes the job.
//
// Only package pkgupdate calls it: Recover before an update, Apply to write one; Lock
// serialises runs on one directory.
package stage
