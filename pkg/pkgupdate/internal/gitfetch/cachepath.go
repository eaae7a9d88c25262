package gitfetch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// resolveCacheDir returns the cache directory with every symbolic link resolved (the
// path every later command uses, so that no link is followed again), after checking
// that no other user can swap anything on it (checkCachePath).
func (f *Fetcher) resolveCacheDir(ctx context.Context) (string, error) {
	real, err := filepath.EvalSymlinks(f.CacheDir)
	if err == nil {
		real, err = filepath.Abs(real)
	}
	if err != nil {
		return "", fmt.Errorf("git cache %s: %w", f.CacheDir, err)
	}
	if err := f.checkOwner(ctx, real, "git cache directory", os.Lstat); err != nil {
		return "", err
	}
	if err := checkCachePath(real, func() bool { return f.safeDirectory(ctx, real) }); err != nil {
		return "", err
	}
	return real, nil
}

// checkCachePath refuses the cache directory real (absolute, links resolved) when
// another user could rename or replace something on the path to it, and so swap a
// cache repository, after its owner was checked, for a link to a repository of theirs
// (whose configuration git would run: git skips its ownership check under --git-dir):
//
//   - every directory above real must be owned by the user or root (or by anyone, when
//     git's safe.directory lists real: the user trusts the owners, as in a container
//     whose home directory another uid owns) and writable by no one else, unless it is
//     sticky (/tmp), where the entry below it must be the user's or root's;
//   - real itself must be writable by no one else, unless it is sticky (its owner was
//     checked by checkOwner).
//
// The error names the directory, its owner and mode, and what to do.
func checkCachePath(real string, listed func() bool) error {
	uid := uint32(os.Geteuid())
	mine := func(st *syscall.Stat_t) bool { return st.Uid == uid || st.Uid == 0 }
	stat := func(p string) (*syscall.Stat_t, error) {
		fi, err := os.Lstat(p)
		if err != nil {
			return nil, fmt.Errorf("git cache %s: %w", real, err)
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil, fmt.Errorf("git cache %s: the owner of %s is unknown", real, p)
		}
		return st, nil
	}
	refuse := func(p, why string) error {
		return fmt.Errorf("git cache directory %s: %s is %s, so another user could replace a cache repository with one of theirs "+
			"and have git run its configuration as you; keep the cache in a directory only you can write "+
			"(chmod go-w %s, or set %s to another directory)", real, p, why, p, CacheEnv)
	}
	var parents []string
	for p := filepath.Dir(real); ; p = filepath.Dir(p) {
		parents = append([]string{p}, parents...)
		if p == filepath.Dir(p) {
			break
		}
	}
	if real == filepath.Dir(real) {
		parents = nil
	}
	for i, p := range parents {
		st, err := stat(p)
		if err != nil {
			return err
		}
		if !mine(st) && !listed() {
			return refuse(p, fmt.Sprintf("owned by uid %d (list %s in git's safe.directory if you trust that user)", st.Uid, real))
		}
		if why := writable(st); why != "" {
			if st.Mode&syscall.S_ISVTX == 0 {
				return refuse(p, why)
			}
			child := real
			if i+1 < len(parents) {
				child = parents[i+1]
			}
			cst, err := stat(child)
			if err != nil {
				return err
			}
			if !mine(cst) {
				return refuse(child, fmt.Sprintf("owned by uid %d in the shared directory %s", cst.Uid, p))
			}
		}
	}
	st, err := stat(real)
	if err != nil {
		return err
	}
	if why := writable(st); why != "" && st.Mode&syscall.S_ISVTX == 0 {
		return refuse(real, why)
	}
	return nil
}

// writable says who else can write a directory of status st: "writable by others"
// or "writable by its group" (with the mode); "" when no one else can.
func writable(st *syscall.Stat_t) string {
	switch {
	case st.Mode&0o002 != 0:
		return fmt.Sprintf("writable by others (mode %04o)", st.Mode&0o7777)
	case st.Mode&0o020 != 0:
		return fmt.Sprintf("writable by its group (mode %04o)", st.Mode&0o7777)
	}
	return ""
}

// checkRepository refuses the cache repository dir, locked through fd, unless it is
// still the directory fd locked (not replaced on the way), is writable by no one else,
// and borrows no objects (objects/info/alternates: git runs the
// core.alternateRefsCommand of a repository with alternates, and reads their objects).
func checkRepository(dir string, fd *os.File) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("git cache repository %s: %w", dir, err)
	}
	held, err := fd.Stat()
	if err != nil {
		return fmt.Errorf("git cache repository %s: %w", dir, err)
	}
	if !os.SameFile(fi, held) {
		return fmt.Errorf("git cache repository %s was replaced while this run waited for it (by another user?); nothing ran in it. "+
			"Inspect it, remove it (rm -rf %s) and run again", dir, dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if why := writable(st); why != "" {
			return fmt.Errorf("git cache repository %s is %s: another user could change its configuration; remove it (rm -rf %s) "+
				"and krm-merge makes a new one", dir, why, dir)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "objects", "info", "alternates")); !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("git cache repository %s borrows objects from another repository (objects/info/alternates), "+
			"which krm-merge never sets up; remove it (rm -rf %s) and krm-merge makes a new one", dir, dir)
	}
	return nil
}
