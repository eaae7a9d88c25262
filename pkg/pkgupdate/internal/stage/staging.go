package stage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/gitpath"
)

// IsStagingName reports whether name (one path component) names a staging directory
// of this package: ".krm-merge-update" inside a directory, or a sibling
// ".krm-merge-<name>.update" (which sits inside the parent package when a subpackage was
// updated on its own), in any spelling a case-insensitive or normalising file system
// opens as one (gitpath.Key: ".KRM-MERGE-UPDATE", ".krm-merge-update."). Readers of a
// package leave such directories out, and the writer never writes into one.
func IsStagingName(name string) bool {
	k := gitpath.Key(name)
	return k == insideKey || (strings.HasPrefix(k, prefixKey) && strings.HasSuffix(k, suffixKey) && len(k) > len(prefixKey)+len(suffixKey))
}

// The Keys of the staging directories' names.
var insideKey, prefixKey, suffixKey = gitpath.Key(insideName), gitpath.Key(".krm-merge-"), gitpath.Key(".update")

// StagingDir returns where changes to dir are staged: the hidden sibling
// ".krm-merge-<name>.update" when dir's parent is on the same filesystem, writable, and
// controlled by this user (owned by the user or root, writable by no one else), else
// ".krm-merge-update" inside dir (so that a test that lists dir's files sees a staging
// directory only in that case). In a parent others can write (a sticky /tmp), a sibling
// is used only while one exists that is this user's alone (an interrupted update's, to
// finish); one planted there by another user, which this user can neither use nor
// remove, is left alone. dir must exist.
// Errors: dir cannot be resolved or examined.
func StagingDir(dir string) (string, error) {
	return stagingDir(osFS{}, dir)
}

func stagingDir(fsys fileSystem, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	parent := filepath.Dir(abs)
	inside := filepath.Join(abs, insideName)
	if parent == abs {
		return inside, nil
	}
	controlled := false
	if fi, err := fsys.Lstat(parent); err == nil {
		uid, mode, ok := owner(fi)
		controlled = ok && (int(uid) == os.Geteuid() || uid == 0) && mode&0o022 == 0
	}
	sibling := filepath.Join(parent, ".krm-merge-"+filepath.Base(abs)+".update")
	if fi, err := fsys.Lstat(sibling); err == nil && (controlled || untrusted(fi, true) == "") {
		return sibling, nil // an earlier run's (refused by the caller when it is not the user's alone)
	}
	if _, err := fsys.Lstat(inside); err == nil {
		return inside, nil
	}
	if controlled && sameDevice(abs, parent) && syscall.Access(parent, 2) == nil {
		return sibling, nil
	}
	return inside, nil
}

// sameDevice reports whether a and b are on one filesystem (false when unknown).
func sameDevice(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return false
	}
	da, okA := sa.Sys().(*syscall.Stat_t)
	db, okB := sb.Sys().(*syscall.Stat_t)
	return okA && okB && da.Dev == db.Dev
}

// inspectStaging reports whether staging directory s of directory dir exists, and
// refuses it (unsafeStaging) unless this user could have made it alone.
func inspectStaging(fsys fileSystem, dir, s string) (found bool, err error) {
	fi, err := fsys.Lstat(s)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if why := untrusted(fi, true); why != "" {
		return true, unsafeStaging(s, dir, why)
	}
	return true, nil
}

// untrusted says why a staging directory (isDir) or its journal cannot be this
// user's alone: a symbolic link, the wrong type, another owner, writable by the group
// or others; "" when it is.
func untrusted(fi fs.FileInfo, isDir bool) string {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return "a symbolic link"
	case isDir && !fi.IsDir():
		return "not a directory"
	case !isDir && !fi.Mode().IsRegular():
		return "not a regular file"
	}
	uid, mode, ok := owner(fi)
	switch {
	case !ok:
		return "its owner is unknown"
	case int(uid) != os.Geteuid():
		return fmt.Sprintf("owned by uid %d, not by this user (uid %d)", uid, os.Geteuid())
	case mode&0o022 != 0:
		return fmt.Sprintf("writable by its group or others (mode %04o)", mode)
	}
	return ""
}

// unsafeStaging is the refusal of staging directory s of dir: why, and what to do.
func unsafeStaging(s, dir, why string) error {
	return fmt.Errorf("%s: not a staging directory this update can trust: %s. It may be another user's interrupted update of %s, or planted; nothing was changed. Inspect it (journal.json lists the changes), remove it (rm -rf %s) and run the update again",
		s, why, dir, shellQuote(s))
}

// shellQuote quotes p for a POSIX shell when it holds anything but letters, digits and
// /._-+,:@%=.
func shellQuote(p string) string {
	safe := p != "" && strings.IndexFunc(p, func(r rune) bool {
		return !(r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@%=", r)))
	}) < 0
	if safe {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// checkJournal refuses a journal whose paths are not clean paths inside its directory
// (checkPath) or whose directory modes are not permission bits.
func checkJournal(j *journal) error {
	for i, e := range j.Entries {
		if err := checkPath(e.Path); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
	}
	for _, d := range j.Mkdirs {
		if err := checkPath(d); err != nil {
			return fmt.Errorf("mkdirs: %w", err)
		}
	}
	for _, d := range j.Rmdirs {
		if err := checkPath(d); err != nil {
			return fmt.Errorf("rmdirs: %w", err)
		}
	}
	if len(j.RmdirModes) != 0 && len(j.RmdirModes) != len(j.Rmdirs) {
		return fmt.Errorf("rmdirModes: %d modes for %d directories", len(j.RmdirModes), len(j.Rmdirs))
	}
	for _, m := range j.RmdirModes {
		if m&^0o7777 != 0 {
			return fmt.Errorf("rmdirModes: %#o is not a set of permission bits", m)
		}
	}
	return nil
}
