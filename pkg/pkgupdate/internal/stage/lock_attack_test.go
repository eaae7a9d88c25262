package stage

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Anyone who can open a directory can flock it: another user's exclusive flock on /,
// on a directory above DIR or on DIR itself made every update of DIR fail. The locks
// are on files of the user's own lock directory, which no one else can open.
func TestLockCannotBeBlockedByOthers(t *testing.T) {
	dir := setup(t)
	for _, d := range []string{"/", filepath.Dir(filepath.Dir(dir)), filepath.Dir(dir), dir} {
		f, err := os.Open(d)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			t.Logf("%s: %v (held elsewhere?)", d, err)
			continue
		}
		unlock, err := Lock(dir)
		if err != nil {
			t.Errorf("%s flocked by another: Lock(%s): %v", d, dir, err)
		} else {
			unlock()
		}
		f.Close()
	}
}

// The lock directory is the user's alone: one planted by another user, a symbolic
// link, or one others can write is refused; a refusal names the process holding a
// lock.
func TestLockDirectoryIsTheUsers(t *testing.T) {
	dir := setup(t)
	locks := filepath.Join(t.TempDir(), "locks")
	t.Setenv(LockDirEnv, locks)
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(locks); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("lock directory: %v, %v; want mode 0700", fi, err)
	}
	if _, err := Lock(dir); err == nil || !strings.Contains(err.Error(), "process "+itoa(os.Getpid())) {
		t.Errorf("second Lock: %v; want the holder's pid", err)
	}
	unlock()
	if err := os.Chmod(locks, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(dir); err == nil || !strings.Contains(err.Error(), "writable by") {
		t.Errorf("a lock directory others can write: %v", err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(locks, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv(LockDirEnv, link)
	if _, err := Lock(dir); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a lock directory that is a link: %v", err)
	}
	if os.Geteuid() == 0 {
		theirs := filepath.Join(t.TempDir(), "theirs")
		if err := os.Mkdir(theirs, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(theirs, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		t.Setenv(LockDirEnv, theirs)
		if _, err := Lock(dir); err == nil || !strings.Contains(err.Error(), "4242") {
			t.Errorf("a lock directory of uid 4242: %v", err)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
