package stage

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Lock keeps updates of one package tree apart (docs/pkg-update.md, "All or nothing"):
// it takes an exclusive advisory lock (flock) for dir itself and a shared one for every
// directory above it, up to the filesystem root, on the path with symbolic links
// resolved. An update of a package therefore excludes an update of the same
// directory, of any directory inside it (which holds a shared lock for dir) and of any
// directory above it (whose exclusive lock dir's shared lock conflicts with), while
// updates of sibling directories proceed together.
//
// The locks are on files of the user's lock directory (LockDir), one per directory
// (named by a hash of its path), never on the directories themselves: anyone who can
// open a directory can flock it, and another user's flock on / or on a directory above
// dir blocked every update. The lock directory must be the user's alone. The holder of
// an exclusive lock writes its process id and directory into the file, so that a
// refusal names it. Runs of one user see one another's locks only when they agree on
// the lock directory (the same $KRM_MERGE_LOCK_DIR, or the same user cache directory);
// updates of one package tree by two users are not kept apart by Lock (each refuses
// the other's staging directory and state instead). Every lock is released by unlock
// (or when the process ends). Locks are per open file description: two Locks in one
// process exclude each other as two processes do.
//
// Errors: dir cannot be resolved; the lock directory cannot be made or is not the
// user's alone (naming it and why); the lock is held elsewhere, naming the directory
// whose update is running (dir itself, the directory above it, or the directory inside
// it) and its process.
//
// A lock held elsewhere is asked again for up to LockRetry before Lock gives up: a
// killed update's child process that had not yet started its program (between fork
// and exec) holds the killed update's locks for a few milliseconds more. Lock is
// LockWait without a wait.
func Lock(dir string) (unlock func(), err error) {
	return LockWait(context.Background(), dir, 0, nil)
}

// LockWait is Lock, waiting up to wait for a lock held elsewhere (by another update of
// dir, of a directory above it or of one inside it) to be released: log (when not nil)
// is told once, as the wait begins, which directory's update and which process it
// waits for (one line, no newline); the lock is asked for again every 20 ms. A wait
// of 0, or shorter than LockRetry, waits LockRetry (the retry Lock describes), and
// says nothing.
// Errors: Lock's; a lock still held after the wait, or when ctx ends, is Lock's error
// naming the directory and the process holding it, with how long it waited.
func LockWait(ctx context.Context, dir string, wait time.Duration, log func(string)) (unlock func(), err error) {
	start := time.Now()
	bound := max(wait, LockRetry)
	told := false
	for {
		unlock, err = tryLock(dir)
		var b *busyError
		if err == nil || !errors.As(err, &b) {
			return unlock, err
		}
		name := func() string { // whose update it is (busy reads the lock files)
			if b.msg == "" {
				b.msg = busy(dir, b.locks, b.real).Error()
			}
			return b.msg
		}
		if !told && log != nil && wait > LockRetry {
			log(fmt.Sprintf("%s; waiting for it to finish (giving up after %v)", name(), wait))
			told = true
		}
		if ctx.Err() != nil || time.Since(start) >= bound {
			name()
			if wait > LockRetry {
				b.msg += fmt.Sprintf(" (waited %v)", time.Since(start).Round(100*time.Millisecond))
			}
			if ctx.Err() != nil {
				b.msg += ": " + ctx.Err().Error()
			}
			return nil, b
		}
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// LockRetry is how long Lock asks again for a lock held elsewhere: 1 second.
const LockRetry = time.Second

// LockDirEnv names the environment variable that sets the lock directory (LockDir).
const LockDirEnv = "KRM_MERGE_LOCK_DIR"

// LockDir is the directory of the user's update locks: $KRM_MERGE_LOCK_DIR, else
// krm-merge/locks under the user's cache directory (os.UserCacheDir), else
// krm-merge-locks-<uid> in the temporary directory (tempLockDir). Lock makes it with
// mode 0700, and takes tempLockDir when the cache directory cannot be made (a
// container whose HOME is / and not writable).
func LockDir() string {
	if d := os.Getenv(LockDirEnv); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "krm-merge", "locks")
	}
	return tempLockDir()
}

// tempLockDir is krm-merge-locks-<uid> in the temporary directory.
func tempLockDir() string {
	return filepath.Join(os.TempDir(), "krm-merge-locks-"+strconv.Itoa(os.Geteuid()))
}

// busyError is a lock held elsewhere; its message names whose update holds it (found
// by busy, for dir's own lock, only once Lock gives up).
type busyError struct{ msg, locks, real string }

func (e *busyError) Error() string { return e.msg }

// openLockDir makes and checks the lock directory: a real directory (not a symbolic
// link), owned by the user, writable by no one else.
func openLockDir() (string, error) {
	d, err := filepath.Abs(LockDir())
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(d, 0o700); err != nil {
		t := tempLockDir()
		if os.Getenv(LockDirEnv) != "" || d == t || os.MkdirAll(t, 0o700) != nil {
			return "", fmt.Errorf("lock directory %s: %w", d, err)
		}
		d = t
	}
	fi, err := os.Lstat(d)
	if err != nil {
		return "", fmt.Errorf("lock directory %s: %w", d, err)
	}
	if why := untrusted(fi, true); why != "" {
		return "", fmt.Errorf("lock directory %s: %s; another user could hold or remove the locks of your updates. Remove it "+
			"(rm -rf %s), or set %s to a directory of your own", d, why, shellQuote(d), LockDirEnv)
	}
	return d, nil
}

// lockFile opens (creating) the lock file of directory p in the lock directory locks:
// a regular file of the user's, not followed through a link.
func lockFile(locks, p string) (*os.File, error) {
	sum := sha256.Sum256([]byte(p))
	name := filepath.Join(locks, hex.EncodeToString(sum[:12])+".lock")
	fd, err := unix.Open(name, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock of %s (%s): %w", p, name, err)
	}
	f := os.NewFile(uintptr(fd), name)
	fi, err := f.Stat()
	if err == nil {
		if why := untrusted(fi, false); why != "" {
			err = errors.New(why)
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock of %s (%s): %w", p, name, err)
	}
	return f, nil
}

// tryLock is one attempt of Lock.
func tryLock(dir string) (unlock func(), err error) {
	real, err := filepath.EvalSymlinks(dir)
	if err == nil {
		real, err = filepath.Abs(real)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: locking: %w", dir, err)
	}
	locks, err := openLockDir()
	if err != nil {
		return nil, err
	}
	var held []*os.File
	release := func() {
		for _, f := range held {
			_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			f.Close()
		}
	}
	f, err := lockFile(locks, real)
	if err != nil {
		return nil, err
	}
	if err := flock(f, syscall.LOCK_EX); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &busyError{locks: locks, real: real}
		}
		return nil, fmt.Errorf("%s: locking: %w", dir, err)
	}
	held = append(held, f)
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(fmt.Sprintf("pid %d\ndir %s\n", os.Getpid(), strconv.Quote(real))), 0)
	}
	for p := filepath.Dir(real); ; p = filepath.Dir(p) {
		a, err := lockFile(locks, p)
		if err != nil {
			release()
			return nil, err
		}
		switch err := flock(a, syscall.LOCK_SH); {
		case err == nil:
			held = append(held, a)
		case errors.Is(err, syscall.EWOULDBLOCK):
			a.Close()
			release()
			return nil, &busyError{msg: fmt.Sprintf("%s: an update of %s, which contains it, is running%s", dir, p, holder(locks, p))}
		default:
			a.Close()
			release()
			return nil, fmt.Errorf("%s: locking: %w", dir, err)
		}
		if p == filepath.Dir(p) {
			break
		}
	}
	return release, nil
}

// flock takes lock how on f without waiting.
func flock(f *os.File, how int) error {
	return syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
}

// holder is " (process <pid>)" for the process that wrote the lock file of p, or "".
func holder(locks, p string) string {
	f, err := lockFile(locks, p)
	if err != nil {
		return ""
	}
	defer f.Close()
	pid, _ := readLock(f)
	if pid == "" {
		return ""
	}
	return " (process " + pid + ")"
}

// readLock reads the pid and directory a lock file records ("" for what it lacks).
func readLock(f *os.File) (pid, dir string) {
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		switch k {
		case "pid":
			if _, err := strconv.Atoi(v); err == nil {
				pid = v
			}
		case "dir":
			if d, err := strconv.Unquote(v); err == nil {
				dir = d
			}
		}
	}
	return pid, dir
}

// busy says whose update holds the lock of real (dir as the caller gave it): if a
// shared lock can be had, only updates inside it hold it (the first directory inside
// it whose lock is held exclusively is named, from the lock files' records); else an
// update of dir itself.
func busy(dir, locks, real string) error {
	f, err := lockFile(locks, real)
	if err != nil {
		return fmt.Errorf("%s: another update of this directory, or of one inside it, is running", dir)
	}
	defer f.Close()
	if flock(f, syscall.LOCK_SH) != nil {
		return fmt.Errorf("%s: another update of this directory is running%s", dir, holder(locks, real))
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if inside, pid := lockedInside(locks, real); inside != "" {
		return fmt.Errorf("%s: an update of %s, inside it, is running (process %s)", dir, inside, pid)
	}
	return fmt.Errorf("%s: an update of a directory inside it is running", dir)
}

// maxProbe bounds the lock files busy reads.
const maxProbe = 10000

// lockedInside returns the first directory inside real (by name) whose lock file is
// held exclusively, and the process that holds it; "" when none is found.
func lockedInside(locks, real string) (dir, pid string) {
	entries, err := os.ReadDir(locks)
	if err != nil {
		return "", ""
	}
	for i, e := range entries {
		if i >= maxProbe || !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".lock") {
			continue
		}
		fd, err := unix.Open(filepath.Join(locks, e.Name()), unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if err != nil {
			continue
		}
		f := os.NewFile(uintptr(fd), e.Name())
		p, d := readLock(f)
		if d != "" && strings.HasPrefix(d, real+string(filepath.Separator)) && (dir == "" || d < dir) {
			if err := flock(f, syscall.LOCK_SH); errors.Is(err, syscall.EWOULDBLOCK) {
				dir, pid = d, p
			} else if err == nil {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			}
		}
		f.Close()
	}
	return dir, pid
}
