package stage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Lock keeps updates of one package tree apart (docs/pkg-update.md, "All or nothing"):
// it takes an exclusive advisory lock (flock) on dir itself and a shared one on every
// directory above it, up to the filesystem root, on the path with symbolic links
// resolved. An update of a package therefore excludes an update of the same
// directory, of any directory inside it (which holds a shared lock on dir) and of any
// directory above it (whose exclusive lock dir's shared lock conflicts with), while
// updates of sibling directories proceed together. A directory above dir that cannot
// be opened or locked (no read permission, a filesystem without flock) is skipped. No
// lock file is created; every lock is taken without waiting and released by unlock
// (or when the process ends). Locks are per open file description: two Locks in one
// process exclude each other as two processes do.
// Errors: dir cannot be resolved or opened; the lock is held elsewhere, naming the
// directory whose update is running: dir itself, the directory above it, or the
// directory inside it (found by probing each directory inside dir with a shared lock,
// which for that instant can refuse an update starting there).
//
// A lock held elsewhere is asked again for up to LockRetry before Lock gives up: a
// killed update's child process that had not yet started its program (between fork
// and exec) holds the killed update's locks for a few milliseconds more.
func Lock(dir string) (unlock func(), err error) {
	deadline := time.Now().Add(LockRetry)
	for {
		unlock, err = tryLock(dir)
		var b *busyError
		if err == nil || !errors.As(err, &b) {
			return unlock, err
		}
		if time.Now().After(deadline) {
			if b.msg == "" {
				b.msg = busy(dir, b.real).Error()
			}
			return nil, b
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// LockRetry is how long Lock asks again for a lock held elsewhere: 1 second.
const LockRetry = time.Second

// busyError is a lock held elsewhere; its message names whose update holds it (found
// by busy, for dir's own lock, only once Lock gives up).
type busyError struct{ msg, real string }

func (e *busyError) Error() string { return e.msg }

// tryLock is one attempt of Lock.
func tryLock(dir string) (unlock func(), err error) {
	real, err := filepath.EvalSymlinks(dir)
	if err == nil {
		real, err = filepath.Abs(real)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: locking: %w", dir, err)
	}
	var held []*os.File
	release := func() {
		for _, f := range held {
			_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			f.Close()
		}
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, fmt.Errorf("%s: locking: %w", dir, err)
	}
	if err := flock(f, syscall.LOCK_EX); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &busyError{real: real}
		}
		return nil, fmt.Errorf("%s: locking: %w", dir, err)
	}
	held = append(held, f)
	for p := filepath.Dir(real); ; p = filepath.Dir(p) {
		if a, err := os.Open(p); err == nil {
			switch err := flock(a, syscall.LOCK_SH); {
			case err == nil:
				held = append(held, a)
			case errors.Is(err, syscall.EWOULDBLOCK):
				a.Close()
				release()
				return nil, &busyError{msg: fmt.Sprintf("%s: an update of %s, which contains it, is running", dir, p)}
			default:
				a.Close()
			}
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

// busy says whose update holds the lock on real (dir as the caller gave it): if a
// shared lock can be had, only updates inside it hold it (the first directory inside
// that refuses a shared lock is named); else an update of dir itself.
func busy(dir, real string) error {
	f, err := os.Open(real)
	if err != nil {
		return fmt.Errorf("%s: another update of this directory, or of one inside it, is running", dir)
	}
	defer f.Close()
	if flock(f, syscall.LOCK_SH) != nil {
		return fmt.Errorf("%s: another update of this directory is running", dir)
	}
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if inside := lockedInside(real); inside != "" {
		return fmt.Errorf("%s: an update of %s, inside it, is running", dir, inside)
	}
	return fmt.Errorf("%s: an update of a directory inside it is running", dir)
}

// maxProbe bounds the directories busy probes.
const maxProbe = 10000

// lockedInside returns the first directory inside real (.git directories skipped)
// that holds an exclusive lock, or "".
func lockedInside(real string) string {
	found, n := "", 0
	_ = filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || p == real {
			return nil
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if n++; n > maxProbe {
			return filepath.SkipAll
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		if err := flock(f, syscall.LOCK_SH); err != nil {
			if errors.Is(err, syscall.EWOULDBLOCK) {
				found = p
				return filepath.SkipAll
			}
			return nil
		}
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return nil
	})
	return found
}
