package pkgupdate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unicode"

	"golang.org/x/sys/unix"

	"github.com/krm-merge/krm-merge/internal/scrub"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/kptfile"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/stage"
)

// An update under onConflict mark that wrote markers is in progress until Continue or
// Abort concludes it (docs/pkg-update.md, "Resolving conflicts by hand"). What they
// need is kept in the package, in the state directory stateDirName: the file "state"
// (JSON: the Kptfiles to record, the marked files, the prior state of every file the
// update changed), a copy "prior-<n>" of each such file's old content, and a
// ".gitignore" of "*" (so that git shows none of it). No name in it is one kpt reads
// (*.yaml, *.yml, Kptfile), and every reader of pkg update leaves the directory out.
// It is written in the update's own stage.Apply, and removed in that of Continue or
// Abort, so that a kill never leaves files without state or state without files.
//
// The directory may be planted by another user (a shared checkout): it is read only
// when it is a real directory owned by the user running and writable by no one else,
// its files such regular files, and every path it names a clean path inside the
// package (checkStatePath); otherwise nothing is changed and the error says what to
// remove.

// Names of the state of an update in progress.
const (
	// stateDirName is the state directory, inside the package directory.
	stateDirName = ".krm-merge-in-progress"
	stateFile    = "state"
	stateIgnore  = ".gitignore"
	priorPrefix  = "prior-"
	stateVersion = 1
)

// Errors of an update in progress.
var (
	// ErrInProgress: an update of the directory, of a package above it or of one inside
	// it stopped at conflict markers and is not concluded (Continue, Abort); the error
	// wrapping it names it.
	ErrInProgress = errors.New("an update is in progress")
	// ErrNotInProgress: Continue or Abort found no update in progress in the directory.
	ErrNotInProgress = errors.New("no update is in progress")
)

// state is the state file of an update in progress.
type state struct {
	Version int `json:"version"`
	// Dir is the package directory (absolute, symbolic links resolved).
	Dir string `json:"dir"`
	// To is the release the root package is updated to, for messages.
	To string `json:"to"`
	// Records are the Kptfiles to record the new release in.
	Records []recording `json:"records"`
	// Marked are the files left for a person.
	Marked []markedFile `json:"marked"`
	// Prior is every file the update changed, as it was before.
	Prior []priorFile `json:"prior"`
	// Dirs are the directories above files the update deleted, with their modes (unix
	// bits), which Abort gives back to directories made again.
	Dirs []priorDir `json:"dirs,omitempty"`
}

// priorFile is a file as it was before the update: absent, or its mode and content
// (in the state directory, Blob).
type priorFile struct {
	Path    string `json:"path"`
	Existed bool   `json:"existed"`
	Mode    uint32 `json:"mode,omitempty"`
	Blob    string `json:"blob,omitempty"`
}

// priorDir is a directory's mode before the update.
type priorDir struct {
	Path string `json:"path"`
	Mode uint32 `json:"mode"`
}

// stateChanges are the changes that write the state of an update stopped at markers
// into dir, for the update's own changes: each changed file's prior content, mode and
// existence read from dir now (so that Abort gives back exactly that), the modes of the
// directories above deleted files, and the state file (the releases mk's Kptfiles
// record, the files it marked). limit is the size limit of a file read.
func (mk *marking) stateChanges(dir string, changes []stage.Change, to string, limit int64) ([]stage.Change, error) {
	st := state{Version: stateVersion, Dir: dir, To: to, Records: mk.pending, Marked: mk.marked}
	if st.Records == nil {
		st.Records = []recording{}
	}
	var out []stage.Change
	dirs := map[string]bool{}
	for i, c := range changes {
		data, mode, err := pkgio.ReadFile(filepath.Join(dir, filepath.FromSlash(c.Path)), limit)
		switch {
		case err == nil:
			blob := priorPrefix + strconv.Itoa(i)
			st.Prior = append(st.Prior, priorFile{Path: c.Path, Existed: true, Mode: uint32(mode.Perm()), Blob: blob})
			out = append(out, stage.Change{Path: stateDirName + "/" + blob, Data: data, Mode: 0o600})
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
			st.Prior = append(st.Prior, priorFile{Path: c.Path})
		default:
			return nil, &pkgio.Error{Path: c.Path, Err: err}
		}
		if !c.Delete {
			continue
		}
		for d := path.Dir(c.Path); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
			if fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(d))); err == nil && fi.IsDir() {
				st.Dirs = append(st.Dirs, priorDir{Path: d, Mode: unixMode(fi.Mode())})
			}
		}
	}
	sort.Slice(st.Dirs, func(i, j int) bool { return st.Dirs[i].Path < st.Dirs[j].Path })
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out,
		stage.Change{Path: stateDirName + "/" + stateFile, Data: append(b, '\n'), Mode: 0o600},
		stage.Change{Path: stateDirName + "/" + stateIgnore, Data: []byte("*\n"), Mode: 0o600}), nil
}

// unixMode is m's permission bits with setuid, setgid and sticky as unix numbers them.
func unixMode(m fs.FileMode) uint32 {
	u := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		u |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		u |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		u |= 0o1000
	}
	return u
}

// fileMode is unixMode's inverse.
func fileMode(u uint32) fs.FileMode {
	m := fs.FileMode(u & 0o777)
	if u&0o4000 != 0 {
		m |= fs.ModeSetuid
	}
	if u&0o2000 != 0 {
		m |= fs.ModeSetgid
	}
	if u&0o1000 != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// prepareStateDir makes dir's state directory (mode 0700) before the update's
// stage.Apply writes the state into it; created says whether this call made it (an
// empty one a killed run left is taken over when this user's alone).
// Errors: one that cannot be trusted (unsafeState); one holding a state (an update in
// progress); mkdir's.
func prepareStateDir(dir string) (created bool, err error) {
	s := filepath.Join(dir, stateDirName)
	err = os.Mkdir(s, 0o700)
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return false, err
	}
	st, found, err := readState(dir, 0)
	if err != nil {
		return false, err
	}
	if found {
		st.close()
		return false, fmt.Errorf("%s: %w", s, ErrInProgress)
	}
	return false, nil
}

// openState is the state directory of an update in progress, open.
type openState struct {
	state
	dir string // the state directory
	fd  int    // the state directory, open
}

func (o *openState) close() { unix.Close(o.fd) }

// readState reads dir's state directory: found is false when there is none, or when
// it holds no state file (a kill before the update's write left it empty). limit is the
// size limit of the state file (0: DefaultMaxFileSize).
// Errors: a state directory or file this user cannot trust (unsafeState); a state
// that does not parse, names another directory or a bad path (unsafeState); I/O.
func readState(dir string, limit int64) (st *openState, found bool, err error) {
	s := filepath.Join(dir, stateDirName)
	fd, err := unix.Open(s, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.ENOENT):
		return nil, false, nil
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENOTDIR):
		why := "not a directory"
		if fi, lerr := os.Lstat(s); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			why = "a symbolic link"
		}
		return nil, false, unsafeState(s, why)
	case err != nil:
		return nil, false, fmt.Errorf("%s: %w", s, err)
	}
	o := &openState{dir: s, fd: fd}
	ok := false
	defer func() {
		if !ok {
			o.close()
		}
	}()
	if why := untrustedFD(fd, true); why != "" {
		return nil, false, unsafeState(s, why)
	}
	b, err := o.read(stateFile, limit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if err := json.Unmarshal(b, &o.state); err != nil {
		return nil, false, unsafeState(s, fmt.Sprintf("%s is not the state of an update (%v)", stateFile, err))
	}
	if o.Version != stateVersion {
		return nil, false, unsafeState(s, fmt.Sprintf("%s has version %d; this krm-merge reads version %d", stateFile, o.Version, stateVersion))
	}
	if o.Dir != dir {
		return nil, false, unsafeState(s, fmt.Sprintf("its state is for %s, not %s", o.Dir, dir))
	}
	if err := o.check(); err != nil {
		return nil, false, unsafeState(s, "its state names "+err.Error())
	}
	ok = true
	return o, true, nil
}

// read reads the file name of the state directory: a regular file this user alone
// can write, opened without following a link or blocking, at most limit bytes (0:
// DefaultMaxFileSize).
// Errors: fs.ErrNotExist (wrapped); one this user cannot trust (unsafeState); too
// large; I/O.
func (o *openState) read(name string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultMaxFileSize
	}
	fd, err := unix.Openat(o.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.ENOENT):
		return nil, fmt.Errorf("%s: %w", name, fs.ErrNotExist)
	case errors.Is(err, unix.ELOOP):
		return nil, unsafeState(o.dir, name+": a symbolic link")
	case err != nil:
		return nil, fmt.Errorf("%s: %w", filepath.Join(o.dir, name), err)
	}
	f := os.NewFile(uintptr(fd), filepath.Join(o.dir, name))
	defer f.Close()
	if why := untrustedFD(fd, false); why != "" {
		return nil, unsafeState(o.dir, name+": "+why)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: %w (over %d bytes)", filepath.Join(o.dir, name), ErrTooLarge, limit)
	}
	return b, nil
}

// untrustedFD says why the open directory (isDir) or file fd cannot be this user's
// alone: the wrong type, another owner, writable by its group or others; "" when it
// is (the rules stage applies to its staging directory).
func untrustedFD(fd int, isDir bool) string {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err.Error()
	}
	switch t := st.Mode & unix.S_IFMT; {
	case isDir && t != unix.S_IFDIR:
		return "not a directory"
	case !isDir && t != unix.S_IFREG:
		return "not a regular file"
	case int(st.Uid) != os.Geteuid():
		return fmt.Sprintf("owned by uid %d, not by this user (uid %d)", st.Uid, os.Geteuid())
	case st.Mode&0o022 != 0:
		return fmt.Sprintf("writable by its group or others (mode %04o)", st.Mode&0o7777)
	}
	return ""
}

// unsafeState refuses the state directory s: why, and what to do.
func unsafeState(s, why string) error {
	return fmt.Errorf("%s: not the state of an update this user can trust: %s. It may be another user's, or planted; nothing was changed. "+
		"Inspect it, remove it (rm -rf '%s') and run the command again", scrub.Escape(s), scrub.Escape(why), strings.ReplaceAll(scrub.Escape(s), "'", `'\''`))
}

// check refuses a state whose paths are not clean paths inside the package
// (checkStatePath), whose blobs are not the state directory's prior-<n> files, or
// whose modes are not permission bits.
func (o *openState) check() error {
	blobs := map[string]bool{}
	for _, p := range o.Prior {
		if err := checkStatePath(p.Path); err != nil {
			return err
		}
		switch {
		case p.Existed != (p.Blob != ""):
			return fmt.Errorf("%q: a prior file without its content, or content without the file", p.Path)
		case p.Blob != "" && (!strings.HasPrefix(p.Blob, priorPrefix) || strings.TrimLeft(p.Blob[len(priorPrefix):], "0123456789") != "" ||
			len(p.Blob) == len(priorPrefix) || blobs[p.Blob]):
			return fmt.Errorf("%q: not a prior-<n> file of its own", p.Blob)
		case p.Mode&^0o777 != 0:
			return fmt.Errorf("%q: mode %#o is not a set of permission bits", p.Path, p.Mode)
		}
		blobs[p.Blob] = true
	}
	for _, d := range o.Dirs {
		if err := checkStatePath(d.Path); err != nil {
			return err
		}
		if d.Mode&^0o7777 != 0 {
			return fmt.Errorf("%q: mode %#o is not a set of permission bits", d.Path, d.Mode)
		}
	}
	for _, m := range o.Marked {
		if err := checkStatePath(m.Path); err != nil {
			return err
		}
		if m.Beside != "" {
			if err := checkStatePath(m.Beside); err != nil {
				return err
			}
		}
	}
	for _, r := range o.Records {
		if err := checkStatePath(r.File); err != nil {
			return err
		}
		if path.Base(r.File) != kptfile.Name {
			return fmt.Errorf("%q: not a Kptfile", r.File)
		}
	}
	return nil
}

// checkStatePath refuses a path of a state unless it is a clean slash-separated path
// inside the package: not empty or absolute, no "." or ".." component, no backslash,
// no control character, no .git component in any spelling git takes for one
// (pkgio.GitPath), nothing inside a state or staging directory.
func checkStatePath(p string) error {
	bad := func(why string) error { return fmt.Errorf("the path %q, %s", p, why) }
	switch {
	case p == "" || strings.HasPrefix(p, "/") || path.Clean(p) != p:
		return bad("which is not a clean relative path")
	case strings.ContainsRune(p, '\\'):
		return bad("which holds a backslash")
	case strings.IndexFunc(p, func(r rune) bool { return unicode.IsControl(r) }) >= 0:
		return bad("which holds a control character")
	case pkgio.GitPath(p):
		return bad("which is in .git")
	}
	for _, c := range strings.Split(p, "/") {
		if c == ".." || c == "." {
			return bad("which leaves the package")
		}
		if reservedName(c) { // any spelling (fetch.go)
			return bad("which is in a state or staging directory")
		}
	}
	return nil
}

// checkNotInProgress refuses an update of dir (absolute; given names it as the caller
// gave it) while an update of dir, of a package inside it or of one above it is in
// progress: the error (ErrInProgress) names that package and points at --continue and
// --abort.
// A state directory inside dir that this user cannot trust is refused too
// (unsafeState); above dir, one that is not this user's alone is left alone (another
// user's, or planted in a shared directory such as /tmp, where it must not stop
// every update below). An empty state directory a killed run left in dir is removed.
func checkNotInProgress(dir, given string) error {
	inProgress := func(pkg, name string) error {
		return fmt.Errorf("%w: an update of %s stopped at conflict markers and is not concluded (%s); resolve the markers and run "+
			"`krm-merge pkg update %s --continue`, or `krm-merge pkg update %s --abort` to put it back as it was; nothing was changed",
			ErrInProgress, scrub.Escape(name), scrub.Escape(filepath.Join(pkg, stateDirName)), scrub.Escape(name), scrub.Escape(name))
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // unreadable: the update's own read reports it
		}
		if p == dir || d.Name() != stateDirName && !d.IsDir() {
			return nil
		}
		if pkgio.GitPath(d.Name()) || stage.IsStagingName(d.Name()) {
			return filepath.SkipDir
		}
		if d.Name() != stateDirName {
			return nil
		}
		pkg := filepath.Dir(p)
		st, found, err := readState(pkg, 0)
		if err != nil {
			return err
		}
		if found {
			st.close()
			name := given
			if pkg != dir {
				name = filepath.Join(given, strings.TrimPrefix(pkg, dir+string(filepath.Separator)))
			}
			return inProgress(pkg, name)
		}
		if pkg == dir {
			_ = os.Remove(p) // empty, this user's: a killed run's; not empty, it stays
		}
		if !d.IsDir() {
			return nil
		}
		return filepath.SkipDir
	})
	if err != nil {
		return err
	}
	for a := filepath.Dir(dir); ; a = filepath.Dir(a) {
		if _, err := os.Lstat(filepath.Join(a, stateDirName)); err == nil {
			if st, found, err := readState(a, 0); err == nil && found {
				st.close()
				return inProgress(a, a)
			}
		}
		if filepath.Dir(a) == a {
			return nil
		}
	}
}
