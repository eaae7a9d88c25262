package gitfetch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileRepo makes a bare repository whose configuration runs a command that creates
// sent when git fetches into it (core.alternateRefsCommand, with an alternate object
// store), as another user would prepare it.
func hostileRepo(t *testing.T, sent string) string {
	t.Helper()
	alt := filepath.Join(t.TempDir(), "alt.git")
	git(t, t.TempDir(), "init", "-q", "--bare", alt)
	evil := filepath.Join(t.TempDir(), "evil.git")
	git(t, t.TempDir(), "init", "-q", "--bare", evil)
	write(t, filepath.Join(evil, "objects", "info", "alternates"), filepath.Join(alt, "objects")+"\n", 0o644)
	git(t, evil, "config", "--file", filepath.Join(evil, "config"), "core.alternateRefsCommand", "touch "+sent+"; true")
	return evil
}

// The cache repository is swapped for a link to another user's repository after its
// owner was checked (here while the run waits for the lock): every later
// `git --git-dir PATH` followed the link and ran that repository's configuration. A
// cache directory others can write is refused, and the repository locked must be the
// one the path names.
func TestCacheSwappedAfterItsCheck(t *testing.T) {
	up, _, _, _ := upstream(t)
	ctx := context.Background()
	sent, notRun := sentinel(t)
	evil := hostileRepo(t, sent)
	for _, mode := range []os.FileMode{0o777, 0o700} {
		cacheDir := filepath.Join(t.TempDir(), "cache")
		f := &Fetcher{CacheDir: cacheDir}
		if _, err := f.Resolve(ctx, "file://"+up, "/", "v1"); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(cacheDir, mode); err != nil { // others may write it
			t.Fatal(err)
		}
		cache := cacheRepo(t, f)
		lock, err := os.Open(cache)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
			t.Fatal(err)
		}
		swap := func(string) {
			if err := os.Rename(cache, cache+".old"); err != nil {
				t.Error(err)
			}
			if err := os.Symlink(evil, cache); err != nil {
				t.Error(err)
			}
			lock.Close()
		}
		g := &Fetcher{CacheDir: cacheDir, Timeout: 20 * time.Second, Log: swap}
		err = within(t, "Resolve", func() error {
			_, err := g.Resolve(ctx, "file://"+up, "/", "main")
			return err
		})
		lock.Close()
		notRun()
		want := "writable by others"
		if mode == 0o700 {
			want = "replaced"
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("mode %o: %v, want an error saying %q", mode, err, want)
		}
	}
}

// A cache directory others can write, or reached through a directory others can
// write (not sticky), is refused before anything runs in it; under a sticky directory
// (/tmp) a cache directory of the user's own is accepted.
func TestCacheDirectoryOthersCanWrite(t *testing.T) {
	up, _, _, _ := upstream(t)
	ctx := context.Background()
	for _, c := range []struct {
		parent, cache os.FileMode
		want          string
	}{
		{0o755, 0o777, "writable by others"},
		{0o755, 0o770, "writable by its group"},
		{0o777, 0o700, "writable by others"},
		{0o1777, 0o700, ""},
		{0o755, 0o1777, ""},
	} {
		parent := filepath.Join(t.TempDir(), "shared")
		cacheDir := filepath.Join(parent, "cache")
		if err := os.MkdirAll(cacheDir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Chmod(parent, uint32(c.parent)); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Chmod(cacheDir, uint32(c.cache)); err != nil {
			t.Fatal(err)
		}
		f := &Fetcher{CacheDir: cacheDir}
		_, err := f.Resolve(ctx, "file://"+up, "/", "v1")
		switch {
		case c.want == "" && err != nil:
			t.Errorf("parent %o, cache %o: %v", c.parent, c.cache, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("parent %o, cache %o: %v, want an error saying %q", c.parent, c.cache, err, c.want)
		case c.want != "":
			if entries, _ := os.ReadDir(cacheDir); len(entries) != 0 {
				t.Errorf("parent %o, cache %o: wrote %v", c.parent, c.cache, entries)
			}
		}
	}
}

// A directory above the cache owned by another user (who could rename the cache) is
// refused, unless git's safe.directory lists the cache directory (a container whose
// home directory another uid owns).
func TestCacheUnderAnotherUsersDirectory(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give files to another user")
	}
	up, _, _, _ := upstream(t)
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "home")
	cacheDir := filepath.Join(home, "cache")
	if err := os.MkdirAll(cacheDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	f := &Fetcher{CacheDir: cacheDir}
	if _, err := f.Resolve(ctx, "file://"+up, "/", "v1"); err == nil || !strings.Contains(err.Error(), "owned by uid 4242") {
		t.Errorf("a cache under a directory of uid 4242: %v", err)
	}
	global := filepath.Join(t.TempDir(), "gitconfig")
	write(t, global, "[safe]\n\tdirectory = "+cacheDir+"\n", 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	if _, err := f.Resolve(ctx, "file://"+up, "/", "v1"); err != nil {
		t.Errorf("listed in safe.directory: %v", err)
	}
}
