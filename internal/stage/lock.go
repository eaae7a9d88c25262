package stage

import (
	"fmt"
	"os"
	"syscall"
)

// Lock takes an exclusive advisory lock (flock) on dir itself, so that two updates of
// one directory never interleave; no lock file is created. It fails at once when
// another process holds the lock. unlock releases it.
// Errors: dir cannot be opened; the lock is held elsewhere (naming dir).
func Lock(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if err == syscall.EWOULDBLOCK {
			return nil, fmt.Errorf("%s: another update of this directory is running", dir)
		}
		return nil, fmt.Errorf("%s: locking: %w", dir, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
