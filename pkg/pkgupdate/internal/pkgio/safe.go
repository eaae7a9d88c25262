package pkgio

import (
	"errors"
	"fmt"
	"io/fs"

	"golang.org/x/sys/unix"

	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/gitpath"
)

// DefaultMaxFileSize is the size limit of one file that Read and ReadFile apply when
// given 0: 64 MiB, far above any configuration file and below what three versions of a
// package can hold in memory on a small machine.
const DefaultMaxFileSize int64 = 64 << 20

// Errors of reading one file, wrapped in *Error by Read (errors.Is finds them).
var (
	// ErrSymlink: the file is a symbolic link. Links are never followed: one in a
	// package could lead anywhere on the machine (/dev/zero, another user's file).
	ErrSymlink = errors.New("symbolic links are not supported; replace it with the file, or list it in .krmignore and keep it out of the upstream")
	// ErrNotRegular: the file is a FIFO, a device, a socket or a directory where a
	// file was expected; the message says which. Reading a FIFO blocks until a writer
	// comes, reading a device may never end.
	ErrNotRegular = errors.New("not a regular file (only regular files are read)")
	// ErrTooLarge: the file is over the size limit; the message gives its size and the
	// limit.
	ErrTooLarge = errors.New("file too large")
	// ErrGitPath: a path of an upstream tree has a .git component (in any spelling git
	// itself takes for .git, see GitPath).
	ErrGitPath = errors.New("a .git path in the upstream is never read or written (a repository's hooks and config would run as the user's)")
)

// ReadFile reads the regular file name, of at most limit bytes (0 is
// DefaultMaxFileSize), without following a symbolic link and without blocking: the file
// is opened with O_NOFOLLOW|O_NONBLOCK and its type and size are checked on the open
// descriptor (fstat), so that nothing swapped in between is read. It returns the content
// and the permission bits. Errors (the caller names the file): ErrSymlink,
// ErrNotRegular, ErrTooLarge (wrapped, with the sizes); fs.ErrNotExist and other system
// errors as syscall.Errno.
func ReadFile(name string, limit int64) ([]byte, fs.FileMode, error) {
	return readAt(unix.AT_FDCWD, name, limit)
}

// readAt is ReadFile of name relative to the directory descriptor dirfd.
func readAt(dirfd int, name string, limit int64) ([]byte, fs.FileMode, error) {
	if limit <= 0 {
		limit = DefaultMaxFileSize
	}
	// Look first, so that a device is not even opened (opening one can act: a tape
	// rewinds); the check on the open descriptor below is the one that counts.
	var st unix.Stat_t
	if err := retry(func() error { return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return nil, 0, err
	}
	if err := regular(uint32(st.Mode)); err != nil {
		return nil, 0, err
	}
	var fd int
	err := retry(func() (err error) {
		fd, err = unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		return err
	})
	if err == unix.ELOOP {
		return nil, 0, ErrSymlink
	}
	if err != nil {
		return nil, 0, err
	}
	defer unix.Close(fd)
	if err := retry(func() error { return unix.Fstat(fd, &st) }); err != nil {
		return nil, 0, err
	}
	if err := regular(uint32(st.Mode)); err != nil {
		return nil, 0, err
	}
	if st.Size > limit {
		return nil, 0, tooLarge(st.Size, limit)
	}
	// One buffer of the file's size (and a byte to see it end); it grows only if the
	// file grows while read, and never past the limit.
	buf := make([]byte, 0, st.Size+1)
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return nil, 0, tooLarge(int64(len(buf)), limit)
			}
			buf = append(buf, 0)[:len(buf)]
		}
		var n int
		err := retry(func() (err error) {
			n, err = unix.Read(fd, buf[len(buf):cap(buf)])
			return err
		})
		if err != nil {
			return nil, 0, err
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	if int64(len(buf)) > limit {
		return nil, 0, tooLarge(int64(len(buf)), limit)
	}
	return buf, fs.FileMode(st.Mode).Perm(), nil
}

func tooLarge(size, limit int64) error {
	return fmt.Errorf("%w: %d bytes, over the limit of %d bytes per file", ErrTooLarge, size, limit)
}

// regular returns nil for a regular file's stat mode, else what the file is.
func regular(mode uint32) error {
	what := "a special file"
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return nil
	case unix.S_IFLNK:
		return ErrSymlink
	case unix.S_IFIFO:
		what = "a named pipe (FIFO)"
	case unix.S_IFCHR:
		what = "a character device"
	case unix.S_IFBLK:
		what = "a block device"
	case unix.S_IFSOCK:
		what = "a socket"
	case unix.S_IFDIR:
		what = "a directory"
	}
	return fmt.Errorf("%s: %w", what, ErrNotRegular)
}

// retry runs a system call again while a signal interrupts it.
func retry(call func() error) error {
	for {
		if err := call(); err != unix.EINTR {
			return err
		}
	}
}

// GitPath reports whether the slash-separated path rel has a component that a file
// system may take for .git (gitpath.HasDotGit: any case, ".git.", "git~1",
// ".g\u200cit"): a tree git would refuse to check out is refused here too.
func GitPath(rel string) bool { return gitpath.HasDotGit(rel) }
