package gitfetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// repo is one cached repository, locked.
type repo struct {
	f      *Fetcher
	url    string // normalised (NormalizeURL)
	dir    string // the bare cache repository
	unlock func()
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// repoDir is the cache repository of a normalised URL: a hash of the URL and its last
// path component, readable.
func (f *Fetcher) repoDir(url string) string {
	sum := sha256.Sum256([]byte(url))
	base := strings.TrimSuffix(path.Base(strings.TrimRight(filepath.ToSlash(url), "/")), ".git")
	base = unsafeName.ReplaceAllString(base, "_")
	return filepath.Join(f.cacheReal, hex.EncodeToString(sum[:8])+"-"+base+".git")
}

// open returns the locked cache repository of url (checked and normalised by
// NormalizeURL), creating it and the cache directory (mode 0700) as needed. The cache
// directory and the repository must be the user's own (checkOwner), on a path no other
// user can change (checkCachePath), and the repository locked must be the one its path
// names, with no alternates (checkRepository).
func (f *Fetcher) open(ctx context.Context, url string) (*repo, error) {
	norm, err := NormalizeURL(url)
	if err != nil {
		return nil, err
	}
	if err := f.setup(ctx); err != nil {
		return nil, err
	}
	if f.CacheDir == "" {
		d, err := DefaultCacheDir()
		if err != nil {
			return nil, err
		}
		f.CacheDir = d
	}
	if err := os.MkdirAll(f.CacheDir, 0o700); err != nil {
		return nil, fmt.Errorf("git cache %s: %w", f.CacheDir, err)
	}
	if f.cacheReal, err = f.resolveCacheDir(ctx); err != nil { // cachepath.go
		return nil, err
	}
	dir := f.repoDir(norm)
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		tmp, err := os.MkdirTemp(f.cacheReal, ".init-")
		if err != nil {
			return nil, fmt.Errorf("git cache %s: %w", f.CacheDir, err)
		}
		if _, err := f.run(ctx, runOpts{gitDir: tmp}, "init", "--bare", "-q"); err != nil {
			os.RemoveAll(tmp)
			return nil, err
		}
		if err := os.Rename(tmp, dir); err != nil {
			os.RemoveAll(tmp)
			if _, statErr := os.Stat(filepath.Join(dir, "HEAD")); statErr != nil { // not made by another run meanwhile
				return nil, fmt.Errorf("git cache %s: %w", dir, err)
			}
		}
	}
	if err := f.checkOwner(ctx, dir, "git cache repository", os.Lstat); err != nil {
		return nil, err
	}
	unlock, err := f.lock(ctx, dir)
	if err != nil {
		return nil, err
	}
	if err := checkRepository(dir, f.lockFile); err != nil {
		unlock()
		return nil, err
	}
	r := &repo{f: f, url: norm, dir: dir, unlock: unlock}
	r.removeStaleLocks()
	return r, nil
}

// checkOwner refuses p (a directory, read with stat: os.Stat for the cache directory,
// which may be a link the user made, os.Lstat for a cache repository) when the current
// user does not own it, unless git's safe.directory lists it. git itself would refuse
// such a repository (safe.directory), but not with --git-dir, as the fetcher runs it:
// another user's repository could run its hooks or configured commands as this user.
func (f *Fetcher) checkOwner(ctx context.Context, p, what string, stat func(string) (os.FileInfo, error)) error {
	fi, err := stat(p)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, p, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s %s is not a directory; remove it", what, p)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Geteuid() {
		return nil
	}
	if f.safeDirectory(ctx, p) {
		return nil
	}
	return fmt.Errorf("%s %s is owned by uid %d, not by you (uid %d): another user could have put hooks or configuration in it; "+
		"remove it (rm -rf %s) and krm-merge makes a new one (or use another cache directory), or, if you trust it, "+
		"list it in git's safe.directory (git config --global --add safe.directory %s)",
		what, p, st.Uid, os.Geteuid(), p, p)
}

// safeDirectory reports whether git's safe.directory, as git reads it (protected
// configuration only: system, global and command line; an empty value clears the list
// so far), lists p: "*", or p itself (cleaned, as given or with links resolved), or a
// "<dir>/*" above it (git 2.46's form). "~/" is the home directory; "%(prefix)/" values
// are not matched.
func (f *Fetcher) safeDirectory(ctx context.Context, p string) bool {
	return f.safeDirectoryRule(ctx, p, true)
}

// safeDirectoryRule is safeDirectory; without wildcards, "*" and "<dir>/*" list
// nothing.
func (f *Fetcher) safeDirectoryRule(ctx context.Context, p string, wildcards bool) bool {
	out, err := f.run(ctx, runOpts{dir: "/"}, "config", "--show-scope", "--get-all", "safe.directory")
	if err != nil && out == "" {
		return false
	}
	abs, _ := filepath.Abs(p)
	paths := []string{abs}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		paths = append(paths, real)
	}
	home, _ := os.UserHomeDir()
	safe := false
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		scope, v, ok := strings.Cut(line, "\t")
		if !ok || scope == "local" || scope == "worktree" {
			continue
		}
		switch {
		case v == "":
			safe = false
			continue
		case v == "*":
			safe = safe || wildcards
			continue
		case strings.HasPrefix(v, "~/") && home != "":
			v = filepath.Join(home, v[2:])
		}
		prefix := strings.HasSuffix(v, "/*")
		if prefix && !wildcards {
			continue
		}
		v = filepath.Clean(strings.TrimSuffix(v, "/*"))
		for _, q := range paths {
			if q == v || prefix && strings.HasPrefix(q, v+string(filepath.Separator)) {
				safe = true
			}
		}
	}
	return safe
}

// lock takes the flock of the cache repository dir, which serialises krm-merge runs on
// it. When another run holds it, Log is told, and the wait is given up at the timeout.
func (f *Fetcher) lock(ctx context.Context, dir string) (unlock func(), err error) {
	fd, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("git cache %s: %w", dir, err)
	}
	take := func() error { return syscall.Flock(int(fd.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }
	err = take()
	if errors.Is(err, syscall.EWOULDBLOCK) {
		if f.Log != nil {
			f.Log(fmt.Sprintf("waiting for git cache %s: another krm-merge run is using it (giving up after %v)", dir, f.timeout))
		}
		deadline := time.NewTimer(f.timeout)
		defer deadline.Stop()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
	wait:
		for {
			select {
			case <-ctx.Done():
				err = fmt.Errorf("git cache %s: waiting for its lock: %w", dir, ctx.Err())
				break wait
			case <-deadline.C:
				err = fmt.Errorf("git cache %s: still in use by another krm-merge run after %v: %w (if no other run is active, "+
					"a process holds its lock; set %s to wait longer)", dir, f.timeout, ErrTimeout, TimeoutEnv)
				break wait
			case <-tick.C:
				if err = take(); !errors.Is(err, syscall.EWOULDBLOCK) {
					break wait
				}
			}
		}
	}
	if err != nil {
		fd.Close()
		if errors.Is(err, ErrTimeout) || ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("git cache %s: locking: %w", dir, err)
	}
	f.lockFile = fd
	return func() {
		_ = syscall.Flock(int(fd.Fd()), syscall.LOCK_UN)
		fd.Close()
	}, nil
}

// removeStaleLocks removes the *.lock files a killed git process left in the cache
// repository: under the flock no other krm-merge run is using it.
func (r *repo) removeStaleLocks() {
	_ = filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == "objects" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".lock") {
			_ = os.Remove(p)
		}
		return nil
	})
}

// git runs git in the cache repository.
func (r *repo) git(ctx context.Context, args ...string) (string, error) {
	return r.f.run(ctx, runOpts{gitDir: r.dir}, args...)
}
