package stage

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// fileSystem is the set of operations the protocol uses, so that tests can make any of
// them fail or stop the run there (a simulated kill). Names are absolute.
type fileSystem interface {
	// WriteFile creates name (never through a symbolic link, never over an existing
	// file) with data and perm, syncs and closes it.
	WriteFile(name string, data []byte, perm fs.FileMode) error
	// ReadFile reads name, refusing a symbolic link.
	ReadFile(name string) ([]byte, error)
	Rename(from, to string) error
	// Link makes to a hard link to from (a symbolic link from is linked, not followed).
	Link(from, to string) error
	// Remove removes a file, never a directory.
	Remove(name string) error
	// Rmdir removes an empty directory (a symbolic link or a file fails with ENOTDIR).
	Rmdir(name string) error
	RemoveAll(name string) error
	Mkdir(name string, perm fs.FileMode) error
	// Chmod sets the permission bits (unix, with setgid and sticky) of a directory,
	// refusing a symbolic link.
	Chmod(name string, mode uint32) error
	Lstat(name string) (fs.FileInfo, error)
	// ReadDir lists a directory sorted by name, refusing a symbolic link.
	ReadDir(name string) ([]fs.DirEntry, error)
	// SyncDir makes the directory's entries durable.
	SyncDir(name string) error
}

// errSymlink: a path component below the directory being changed is a symbolic link.
var errSymlink = errors.New("a symbolic link: the update never writes through one")

// osFS is the real filesystem. Every name below dir (the directory being changed) is
// reached without following a symbolic link: each directory between dir and the name
// is opened with O_NOFOLLOW and the operation is made relative to the last one
// (openat, renameat, linkat, unlinkat, mkdirat, fstatat), so that a component that is,
// or becomes during the run, a symbolic link fails the operation (errSymlink, or
// ENOTDIR for a file) instead of leading out of dir. dir itself and names outside it
// (the staging sibling) are given to the kernel as they are; the final component is
// never followed except for dir itself. With dir "" every name is given as it is.
type osFS struct{ dir string }

// at returns the directory to resolve name's last component in and that component,
// and a function that releases the directory.
func (o osFS) at(op, name string) (dirfd int, base string, release func(), err error) {
	rel, ok := o.below(name)
	if !ok {
		return unix.AT_FDCWD, name, func() {}, nil
	}
	fd, err := unix.Open(o.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, "", nil, &fs.PathError{Op: op, Path: o.dir, Err: err}
	}
	parts := strings.Split(rel, "/")
	for i, p := range parts[:len(parts)-1] {
		next, err := unix.Openat(fd, p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			if errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
				var st unix.Stat_t
				if unix.Fstatat(fd, p, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
					err = errSymlink
				}
			}
			unix.Close(fd)
			return -1, "", nil, &fs.PathError{Op: op, Path: filepath.Join(o.dir, filepath.Join(parts[:i+1]...)), Err: err}
		}
		unix.Close(fd)
		fd = next
	}
	return fd, parts[len(parts)-1], func() { unix.Close(fd) }, nil
}

// below returns name relative to dir when it lies below it.
func (o osFS) below(name string) (string, bool) {
	if o.dir == "" {
		return "", false
	}
	prefix := o.dir
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	rel, ok := strings.CutPrefix(filepath.Clean(name), prefix)
	return rel, ok && rel != ""
}

// nofollow is O_NOFOLLOW for every name but dir itself (the caller's path, which may
// be a symbolic link).
func (o osFS) nofollow(name string) int {
	if o.dir != "" && filepath.Clean(name) == o.dir {
		return 0
	}
	return unix.O_NOFOLLOW
}

func (o osFS) open(op, name string, flags int, perm uint32) (*os.File, error) {
	dfd, base, release, err := o.at(op, name)
	if err != nil {
		return nil, err
	}
	defer release()
	fd, err := unix.Openat(dfd, base, flags|o.nofollow(name)|unix.O_CLOEXEC, perm)
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

func (o osFS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	f, err := o.open("open", name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW, uint32(perm.Perm()))
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil { // the umask may have cleared bits
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (o osFS) ReadFile(name string) ([]byte, error) {
	f, err := o.open("open", name, unix.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// two resolves the names of a rename or link and calls do with them.
func (o osFS) two(op, from, to string, do func(fromfd int, fromBase string, tofd int, toBase string) error) error {
	ffd, fbase, frelease, err := o.at(op, from)
	if err != nil {
		return err
	}
	defer frelease()
	tfd, tbase, trelease, err := o.at(op, to)
	if err != nil {
		return err
	}
	defer trelease()
	if err := do(ffd, fbase, tfd, tbase); err != nil {
		return &os.LinkError{Op: op, Old: from, New: to, Err: err}
	}
	return nil
}

func (o osFS) Rename(from, to string) error {
	return o.two("rename", from, to, unix.Renameat)
}

func (o osFS) Link(from, to string) error {
	return o.two("link", from, to, func(ffd int, fbase string, tfd int, tbase string) error {
		return unix.Linkat(ffd, fbase, tfd, tbase, 0)
	})
}

// unlinkat removes name with unlinkat's flags.
func (o osFS) unlinkat(op, name string, flags int) error {
	dfd, base, release, err := o.at(op, name)
	if err != nil {
		return err
	}
	defer release()
	if err := unix.Unlinkat(dfd, base, flags); err != nil {
		return &fs.PathError{Op: op, Path: name, Err: err}
	}
	return nil
}

func (o osFS) Remove(name string) error { return o.unlinkat("remove", name, 0) }
func (o osFS) Rmdir(name string) error  { return o.unlinkat("rmdir", name, unix.AT_REMOVEDIR) }

// RemoveAll is os.RemoveAll, which removes a symbolic link and never follows one; it
// is used on the staging directory only.
func (osFS) RemoveAll(name string) error { return os.RemoveAll(name) }

func (o osFS) Mkdir(name string, perm fs.FileMode) error {
	dfd, base, release, err := o.at("mkdir", name)
	if err != nil {
		return err
	}
	defer release()
	if err := unix.Mkdirat(dfd, base, uint32(perm.Perm())); err != nil {
		return &fs.PathError{Op: "mkdir", Path: name, Err: err}
	}
	return nil
}

func (o osFS) Chmod(name string, mode uint32) error {
	f, err := o.open("chmod", name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Fchmod(int(f.Fd()), mode); err != nil {
		return &fs.PathError{Op: "chmod", Path: name, Err: err}
	}
	return nil
}

func (o osFS) Lstat(name string) (fs.FileInfo, error) {
	dfd, base, release, err := o.at("lstat", name)
	if err != nil {
		return nil, err
	}
	defer release()
	fi := &fileStat{name: filepath.Base(name)}
	if err := unix.Fstatat(dfd, base, &fi.st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	return fi, nil
}

func (o osFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := o.open("open", name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, err
}

func (o osFS) SyncDir(name string) error {
	f, err := o.open("open", name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// fileStat is an fs.FileInfo from fstatat; Sys is the *unix.Stat_t.
type fileStat struct {
	name string
	st   unix.Stat_t
}

func (f *fileStat) Name() string       { return f.name }
func (f *fileStat) Size() int64        { return f.st.Size }
func (f *fileStat) ModTime() time.Time { return time.Unix(f.st.Mtim.Unix()) }
func (f *fileStat) IsDir() bool        { return f.Mode().IsDir() }
func (f *fileStat) Sys() any           { return &f.st }

func (f *fileStat) Mode() fs.FileMode {
	m := uint32(f.st.Mode)
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// owner returns the uid that owns the file fi describes and its unix permission bits
// (with setuid, setgid and sticky); ok is false when fi does not say.
func owner(fi fs.FileInfo) (uid, mode uint32, ok bool) {
	if st, isStat := fi.Sys().(*unix.Stat_t); isStat {
		return st.Uid, uint32(st.Mode) & 0o7777, true
	}
	if st, isStat := fi.Sys().(*syscall.Stat_t); isStat {
		return st.Uid, uint32(st.Mode) & 0o7777, true
	}
	return 0, 0, false
}
