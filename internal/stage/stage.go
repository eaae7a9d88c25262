package stage

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// Change is one file operation relative to the directory being changed.
type Change struct {
	// Path is the file's slash-separated path relative to the directory; it may not
	// leave it, be absolute, or lie under .git.
	Path string
	// Delete removes the file; otherwise Data is written.
	Delete bool
	// Data is the file's new content.
	Data []byte
	// Mode is the new file's permission bits (0o644 when zero).
	Mode fs.FileMode
}

// Outcome says what Recover found.
type Outcome int

const (
	// Nothing: no staging directory was found.
	Nothing Outcome = iota
	// Discarded: staging without a committed journal, or of a finished run, was removed;
	// the directory had not been changed (or was already fully changed).
	Discarded
	// RolledForward: an interrupted run's journal was applied; the directory is fully
	// changed.
	RolledForward
	// RolledBack: an interrupted update could not be finished, or its roll back had
	// started; it was rolled back and the directory is as it was.
	RolledBack
)

// String says what Recover did, for a person ("finished an interrupted update").
func (o Outcome) String() string {
	return [...]string{"nothing to recover", "discarded an unfinished staging directory",
		"finished an interrupted update", "rolled back an interrupted update"}[o]
}

// journal is the committed plan.
type journal struct {
	// Dir is the directory the journal changes (absolute), to refuse a journal found
	// for another directory.
	Dir     string   `json:"dir"`
	Entries []entry  `json:"entries"`
	Mkdirs  []string `json:"mkdirs"` // shallowest first
	Rmdirs  []string `json:"rmdirs"` // deepest first
	// RmdirModes are the unix permission bits (with setgid and sticky) of each of
	// Rmdirs, restored by a roll back; absent in journals that do not record them (the
	// directories are then made 0o755 less the umask).
	RmdirModes []uint32 `json:"rmdirModes,omitempty"`
}

// paths gives entry n's file in the package (target), its new content in staging
// directory s (staged) and the backup of its old content there (backup).
func (j *journal) paths(s string, n int) (target, staged, backup string) {
	return j.path(j.Entries[n].Path), stagedPath(s, n), filepath.Join(s, oldDir, strconv.Itoa(n))
}

// path is the absolute name of rel (slash-separated) in the directory.
func (j *journal) path(rel string) string { return filepath.Join(j.Dir, filepath.FromSlash(rel)) }

// stagedPath is where entry n's new content is staged in staging directory s.
func stagedPath(s string, n int) string { return filepath.Join(s, newDir, strconv.Itoa(n)) }

type entry struct {
	Path    string `json:"path"`
	Delete  bool   `json:"delete,omitempty"`
	Existed bool   `json:"existed"`
}

// Names inside the staging directory.
const (
	newDir      = "new"
	oldDir      = "old"
	journalFile = "journal.json"
	journalTmp  = "journal.tmp"
	doneFile    = "journal.done"
	rollbackTag = "rollback"
	// insideName is the staging directory's name when it is inside the directory.
	insideName = ".krm-merge-update"
)

// IsStagingName reports whether name (one path component) names a staging directory
// of this package: ".krm-merge-update" inside a directory, or a sibling
// ".krm-merge-<name>.update" (which sits inside the parent package when a subpackage was
// updated on its own). Readers of a package leave such directories out.
func IsStagingName(name string) bool {
	return name == insideName || (strings.HasPrefix(name, ".krm-merge-") && strings.HasSuffix(name, ".update") &&
		len(name) > len(".krm-merge-.update"))
}

// StagingDir returns where changes to dir are staged: the hidden sibling
// ".krm-merge-<name>.update" when dir's parent is on the same filesystem and writable,
// else ".krm-merge-update" inside dir (so that a test that lists dir's files sees a
// staging directory only in that case). dir must exist.
// Errors: dir cannot be resolved or examined.
func StagingDir(dir string) (string, error) {
	return stagingDir(osFS{}, dir)
}

func stagingDir(fsys fileSystem, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	parent := filepath.Dir(abs)
	inside := filepath.Join(abs, insideName)
	if parent == abs {
		return inside, nil
	}
	sibling := filepath.Join(parent, ".krm-merge-"+filepath.Base(abs)+".update")
	if _, err := fsys.Lstat(sibling); err == nil {
		return sibling, nil // an earlier run's
	}
	if _, err := fsys.Lstat(inside); err == nil {
		return inside, nil
	}
	if sameDevice(abs, parent) && syscall.Access(parent, 2) == nil {
		return sibling, nil
	}
	return inside, nil
}

// sameDevice reports whether a and b are on one filesystem (false when unknown).
func sameDevice(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return false
	}
	da, okA := sa.Sys().(*syscall.Stat_t)
	db, okB := sb.Sys().(*syscall.Stat_t)
	return okA && okB && da.Dev == db.Dev
}

// Apply makes changes in dir all or nothing (see the package documentation). Before
// anything in dir changes, every new file is written to the staging directory; a
// failure there (a full disk) removes the staging directory and leaves dir untouched.
// A failing rename while applying rolls back. A change set may turn a directory into a
// file (delete every file under x/, write x) or a file into a directory (delete x,
// write x/y). The caller holds Lock and has run Recover.
// Errors: a bad path (naming it; see checkPath); a path that is, or lies under, a
// symbolic link in dir; a file to delete that is a directory, a file to write where a
// directory stays or under a file that stays; a staging directory this user did not
// make alone (saying what to remove), or one holding a committed journal (Recover
// first); staging, journal or rename failures (wrapped, naming the file); a failed
// roll back (its error joined to the first), which leaves the staging directory for
// Recover.
func Apply(dir string, changes []Change) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	return apply(osFS{dir: abs}, abs, changes)
}

// Recover finishes what an interrupted Apply on dir left: it rolls a committed journal
// forward (or, when a roll back had started, back) and removes the staging directory.
// It first refuses, changing nothing, a staging directory that is not a real directory
// owned by this user and writable by no one else, a journal that is not such a
// regular file, and a journal naming another directory or a path outside dir (see
// checkPath): the error says what is wrong and what to remove (`rm -rf <path>`).
// The caller holds Lock.
// Errors: that refusal; the journal cannot be read; roll forward and roll back both
// failed (the staging directory stays for the next attempt).
func Recover(dir string) (Outcome, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Nothing, err
	}
	return recoverDir(osFS{dir: abs}, abs)
}

func apply(fsys fileSystem, dir string, changes []Change) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if len(changes) == 0 {
		return nil
	}
	seen := map[string]bool{}
	for _, c := range changes {
		if err := checkPath(c.Path); err != nil {
			return err
		}
		if seen[c.Path] {
			return fmt.Errorf("%s: changed twice in one update", c.Path)
		}
		seen[c.Path] = true
	}
	j, err := plan(fsys, abs, changes)
	if err != nil {
		return err
	}
	s, err := stagingDir(fsys, abs)
	if err != nil {
		return err
	}
	if found, err := inspectStaging(fsys, abs, s); err != nil {
		return err
	} else if found {
		if fi, err := fsys.Lstat(filepath.Join(s, journalFile)); err == nil {
			if why := untrusted(fi, false); why != "" {
				return unsafeStaging(s, abs, journalFile+": "+why)
			}
			return fmt.Errorf("%s: holds the committed journal of an interrupted update of %s; recover it first", s, abs)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := fsys.RemoveAll(s); err != nil { // an unfinished staging: dir is untouched
			return fmt.Errorf("removing old staging directory %s: %w", s, err)
		}
	}
	fail := func(err error) error {
		if rmErr := fsys.RemoveAll(s); rmErr != nil {
			return errors.Join(err, fmt.Errorf("removing staging directory %s: %w", s, rmErr))
		}
		return err
	}
	// Mkdir fails on anything already there: the staging directory is this run's own.
	if err := fsys.Mkdir(s, 0o700); err != nil {
		return fmt.Errorf("creating staging directory: %w", err)
	}
	for _, d := range []string{filepath.Join(s, newDir), filepath.Join(s, oldDir)} {
		if err := fsys.Mkdir(d, 0o700); err != nil {
			return fail(fmt.Errorf("creating staging directory: %w", err))
		}
	}
	for n, c := range changes {
		if c.Delete {
			continue
		}
		mode := c.Mode.Perm()
		if mode == 0 {
			mode = 0o644
		}
		if err := fsys.WriteFile(stagedPath(s, n), c.Data, mode); err != nil {
			return fail(fmt.Errorf("staging %s: %w", c.Path, err))
		}
	}
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return fail(err)
	}
	if err := fsys.WriteFile(filepath.Join(s, journalTmp), b, 0o600); err != nil {
		return fail(fmt.Errorf("writing the journal: %w", err))
	}
	if err := fsys.Rename(filepath.Join(s, journalTmp), filepath.Join(s, journalFile)); err != nil {
		return fail(fmt.Errorf("committing the journal: %w", err))
	}
	if err := fsys.SyncDir(s); err != nil {
		return fail(fmt.Errorf("committing the journal: %w", err))
	}
	_, err = finish(fsys, s, j)
	return err
}

// plan makes the journal of changes to dir abs: which files exist, the directories to
// remove and to create. It refuses a symbolic link in the way and a change that does
// not fit the directory's file types.
func plan(fsys fileSystem, abs string, changes []Change) (*journal, error) {
	j := &journal{Dir: abs}
	infos := make([]fs.FileInfo, len(changes))
	deleted := map[string]bool{}
	for i, c := range changes {
		fi, err := fsys.Lstat(j.path(c.Path))
		switch {
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			return nil, fmt.Errorf("%s: %w; nor replaces one (a package holding symbolic links is refused when read)", c.Path, errSymlink)
		case err == nil:
			infos[i] = fi
		case !gone(err): // a symbolic link on the way among them
			return nil, fmt.Errorf("%s: %w", c.Path, err)
		}
		if c.Delete && infos[i] != nil {
			deleted[c.Path] = true
		}
	}
	var err error
	if j.Rmdirs, j.RmdirModes, err = dirsToRemove(fsys, j, changes); err != nil {
		return nil, err
	}
	removed := map[string]bool{}
	for _, d := range j.Rmdirs {
		removed[d] = true
	}
	for i, c := range changes {
		fi, existed := infos[i], false
		switch {
		case fi == nil:
		case fi.IsDir() && c.Delete:
			return nil, fmt.Errorf("%s: a directory, not a file: an update deletes the files in it", c.Path)
		case fi.IsDir() && !removed[c.Path]:
			return nil, fmt.Errorf("%s: cannot write the file: a directory is there that the update does not empty", c.Path)
		case fi.IsDir(): // emptied and removed before the file is moved in
		case !fi.Mode().IsRegular():
			return nil, fmt.Errorf("%s: not a regular file (%v)", c.Path, fi.Mode().Type())
		default:
			existed = true
		}
		j.Entries = append(j.Entries, entry{Path: c.Path, Delete: c.Delete, Existed: existed})
	}
	if j.Mkdirs, err = dirsToCreate(fsys, j, changes, deleted); err != nil {
		return nil, err
	}
	return j, nil
}

// checkPath refuses a change's or a journal's path unless it is a clean
// slash-separated path inside the directory: not empty or absolute, no "." or ".."
// component, no backslash, no control character (NUL included), not the staging
// directory inside the directory (any case), and no component that git or a
// filesystem reads as .git (isDotGit).
func checkPath(p string) error {
	first, _, _ := strings.Cut(p, "/")
	switch {
	case p == "" || path.IsAbs(p) || strings.Contains(p, "\\"):
		return fmt.Errorf("%q: not a relative slash-separated path", p)
	case path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Errorf("%q: not a clean path inside the directory", p)
	case strings.IndexFunc(p, unicode.IsControl) >= 0:
		return fmt.Errorf("%q: a control character in a file name", p)
	case strings.EqualFold(first, insideName):
		return fmt.Errorf("%q: the name of the staging directory; the update never writes there", p)
	}
	for _, c := range strings.Split(p, "/") {
		if isDotGit(c) {
			return fmt.Errorf("%q: the update never writes under .git (%q is .git to git or to a filesystem)", p, c)
		}
	}
	return nil
}

// isDotGit reports whether a path component is .git, or a name that Windows (NTFS)
// or macOS (HFS+) opens as .git, as git's verify_path refuses them (is_ntfs_dotgit,
// is_hfs_dotgit): in any case; with trailing dots or spaces (".git."); with an NTFS
// alternate data stream (".git::$INDEX_ALLOCATION"); the NTFS short name "git~1";
// with the code points HFS+ ignores (zero-width joiners, direction marks, BOM).
func isDotGit(name string) bool {
	n := strings.ToLower(strings.Map(func(r rune) rune {
		switch {
		case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
			return -1
		}
		return r
	}, name))
	if i := strings.IndexByte(n, ':'); i >= 0 {
		n = n[:i]
	}
	n = strings.TrimRight(n, ". ")
	return n == ".git" || n == "git~1"
}

// ancestors lists the directories above slash-separated path p, shallowest first.
func ancestors(p string) []string {
	var out []string
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	return out
}

// dirsToCreate lists the missing parent directories of written files, shallowest
// first. A file the change set deletes may be in the way: it is removed first.
func dirsToCreate(fsys fileSystem, j *journal, changes []Change, deleted map[string]bool) ([]string, error) {
	set := map[string]bool{}
	for _, c := range changes {
		if c.Delete {
			continue
		}
		missing := false
		for _, d := range ancestors(c.Path) {
			if missing || set[d] {
				missing, set[d] = true, true
				continue
			}
			fi, err := fsys.Lstat(j.path(d))
			switch {
			case err != nil && gone(err):
				missing, set[d] = true, true
			case err != nil:
				return nil, fmt.Errorf("%s: %w", c.Path, err)
			case fi.IsDir():
			case fi.Mode()&fs.ModeSymlink != 0:
				return nil, fmt.Errorf("%s: %s is %w", c.Path, d, errSymlink)
			case deleted[d]:
				missing, set[d] = true, true
			default:
				return nil, fmt.Errorf("%s: cannot write %s, %s is not a directory", c.Path, c.Path, d)
			}
		}
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if a, b := strings.Count(out[i], "/"), strings.Count(out[j], "/"); a != b {
			return a < b
		}
		return out[i] < out[j]
	})
	return out, nil
}

// dirsToRemove lists the directories the deletions leave empty (never dir itself, never
// one a change writes into), deepest first, with their permission bits.
func dirsToRemove(fsys fileSystem, j *journal, changes []Change) ([]string, []uint32, error) {
	deleted := map[string]bool{}
	written := map[string]bool{}
	for _, c := range changes {
		if c.Delete {
			deleted[c.Path] = true
			continue
		}
		for _, d := range ancestors(c.Path) {
			written[d] = true
		}
	}
	candidates := map[string]bool{}
	for p := range deleted {
		for _, d := range ancestors(p) {
			candidates[d] = true
		}
	}
	list := make([]string, 0, len(candidates))
	for d := range candidates {
		list = append(list, d)
	}
	sort.Slice(list, func(i, j int) bool { // deepest first
		if a, b := strings.Count(list[i], "/"), strings.Count(list[j], "/"); a != b {
			return a > b
		}
		return list[i] < list[j]
	})
	removed := map[string]bool{}
	var out []string
	var modes []uint32
	for _, d := range list {
		if written[d] {
			continue
		}
		ents, err := fsys.ReadDir(j.path(d))
		if err != nil {
			if gone(err) {
				continue
			}
			return nil, nil, err
		}
		empty := true
		for _, e := range ents {
			p := path.Join(d, e.Name())
			if !deleted[p] && !removed[p] {
				empty = false
				break
			}
		}
		if !empty {
			continue
		}
		fi, err := fsys.Lstat(j.path(d))
		if err != nil {
			return nil, nil, err
		}
		_, mode, ok := owner(fi)
		if !ok {
			mode = uint32(fi.Mode().Perm())
		}
		removed[d] = true
		out = append(out, d)
		modes = append(modes, mode)
	}
	return out, modes, nil
}

// finish rolls j forward; on failure it rolls back, and rolledBack says whether that
// succeeded (the directory is then as it was).
func finish(fsys fileSystem, s string, j *journal) (rolledBack bool, err error) {
	if err := rollForward(fsys, s, j); err != nil {
		if rbErr := rollBack(fsys, s, j); rbErr != nil {
			return false, errors.Join(err, fmt.Errorf("rolling back: %w (run the command again to finish the roll back)", rbErr))
		}
		return true, fmt.Errorf("%w; nothing was changed", err)
	}
	return false, nil
}

func exists(fsys fileSystem, p string) (bool, error) {
	_, err := fsys.Lstat(p)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, err
}

// gone reports whether err says that a path is not there: it does not exist, or a
// component on the way is a file (ENOTDIR: after a directory was turned into a file,
// or back).
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// mkdirIfMissing makes directory p, or accepts one already there (not a symbolic
// link).
func mkdirIfMissing(fsys fileSystem, p string) error {
	err := fsys.Mkdir(p, 0o755)
	if err == nil || !errors.Is(err, fs.ErrExist) {
		return err
	}
	if fi, lerr := fsys.Lstat(p); lerr == nil && fi.IsDir() {
		return nil
	}
	return err
}

func rollForward(fsys fileSystem, s string, j *journal) error {
	// 1. keep the old version of every file the update replaces or deletes
	for n, e := range j.Entries {
		if !e.Existed {
			continue
		}
		target, staged, backup := j.paths(s, n)
		kept, err := exists(fsys, backup)
		if err != nil {
			return err
		}
		if kept {
			continue
		}
		pending := true
		if !e.Delete {
			if pending, err = exists(fsys, staged); err != nil {
				return err
			}
		}
		if !pending { // the new file is in already
			continue
		}
		if e.Delete || fsys.Link(target, backup) != nil {
			if err := fsys.Rename(target, backup); err != nil && !gone(err) {
				return fmt.Errorf("%s: %w", e.Path, err)
			}
		}
	}
	// 2. remove the directories the deletions emptied, deepest first
	for _, d := range j.Rmdirs {
		err := fsys.Rmdir(j.path(d))
		// gone: removed already, or the file step 4 writes there is in;
		// not empty: something appeared there meanwhile: keep it
		if err != nil && !gone(err) && !isNotEmpty(err) {
			return fmt.Errorf("removing emptied directory %s: %w", d, err)
		}
	}
	// 3. make the directories the new files go into, shallowest first
	for _, d := range j.Mkdirs {
		if err := mkdirIfMissing(fsys, j.path(d)); err != nil {
			return fmt.Errorf("creating directory %s: %w", d, err)
		}
	}
	// 4. move the new files in
	for n, e := range j.Entries {
		if e.Delete {
			continue
		}
		target, staged, _ := j.paths(s, n)
		pending, err := exists(fsys, staged)
		if err != nil {
			return err
		}
		if pending {
			if err := fsys.Rename(staged, target); err != nil {
				return fmt.Errorf("writing %s: %w", e.Path, err)
			}
		}
	}
	for _, d := range touchedDirs(j) {
		_ = fsys.SyncDir(d) // durability of the renames; a failure here loses nothing
	}
	if err := fsys.Rename(filepath.Join(s, journalFile), filepath.Join(s, doneFile)); err != nil {
		return fmt.Errorf("marking the update done: %w", err)
	}
	_ = fsys.RemoveAll(s) // leftovers are discarded by the next Recover
	return nil
}

func isNotEmpty(err error) bool {
	return errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)
}

// touchedDirs lists the directories whose entries the journal changes.
func touchedDirs(j *journal) []string {
	set := map[string]bool{j.Dir: true}
	add := func(rel string) { set[j.path(path.Dir(rel))] = true }
	for _, e := range j.Entries {
		add(e.Path)
	}
	for _, d := range append(append([]string{}, j.Mkdirs...), j.Rmdirs...) {
		add(d)
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

func rollBack(fsys fileSystem, s string, j *journal) error {
	if err := fsys.WriteFile(filepath.Join(s, rollbackTag), nil, 0o600); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("marking the roll back: %w", err)
	}
	// 1. take out the new files that were moved in
	var errs []error
	for n := len(j.Entries) - 1; n >= 0; n-- {
		e := j.Entries[n]
		if e.Delete || e.Existed { // an existing file is put back in step 4
			continue
		}
		target, staged, _ := j.paths(s, n)
		pending, err := exists(fsys, staged)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if pending {
			continue
		}
		fi, err := fsys.Lstat(target)
		switch {
		case err != nil && gone(err):
		case err != nil:
			errs = append(errs, err)
		case fi.IsDir(): // the directory the file replaced, made again by an earlier roll back
		default:
			if err := fsys.Remove(target); err != nil && !gone(err) {
				errs = append(errs, fmt.Errorf("removing %s: %w", e.Path, err))
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	// 2. remove the directories made for them, deepest first
	for i := len(j.Mkdirs) - 1; i >= 0; i-- {
		err := fsys.Rmdir(j.path(j.Mkdirs[i]))
		if err != nil && !gone(err) && !isNotEmpty(err) {
			return fmt.Errorf("removing created directory %s: %w", j.Mkdirs[i], err)
		}
	}
	// 3. make the removed directories again, shallowest first, with their modes
	for i := len(j.Rmdirs) - 1; i >= 0; i-- {
		p := j.path(j.Rmdirs[i])
		if err := mkdirIfMissing(fsys, p); err != nil {
			return fmt.Errorf("restoring directory %s: %w", j.Rmdirs[i], err)
		}
		if i < len(j.RmdirModes) {
			if err := fsys.Chmod(p, j.RmdirModes[i]); err != nil {
				return fmt.Errorf("restoring directory %s: %w", j.Rmdirs[i], err)
			}
		}
	}
	// 4. put every kept file back
	for n := len(j.Entries) - 1; n >= 0; n-- {
		if !j.Entries[n].Existed {
			continue
		}
		target, _, backup := j.paths(s, n)
		kept, err := exists(fsys, backup)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if kept {
			if err := fsys.Rename(backup, target); err != nil {
				errs = append(errs, fmt.Errorf("restoring %s: %w", j.Entries[n].Path, err))
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if err := fsys.RemoveAll(s); err != nil {
		return fmt.Errorf("removing staging directory %s: %w", s, err)
	}
	return nil
}

// inspectStaging reports whether staging directory s of directory dir exists, and
// refuses it (unsafeStaging) unless this user could have made it alone.
func inspectStaging(fsys fileSystem, dir, s string) (found bool, err error) {
	fi, err := fsys.Lstat(s)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if why := untrusted(fi, true); why != "" {
		return true, unsafeStaging(s, dir, why)
	}
	return true, nil
}

// untrusted says why a staging directory (isDir) or its journal cannot be this
// user's alone: a symbolic link, the wrong type, another owner, writable by the group
// or others; "" when it is.
func untrusted(fi fs.FileInfo, isDir bool) string {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return "a symbolic link"
	case isDir && !fi.IsDir():
		return "not a directory"
	case !isDir && !fi.Mode().IsRegular():
		return "not a regular file"
	}
	uid, mode, ok := owner(fi)
	switch {
	case !ok:
		return "its owner is unknown"
	case int(uid) != os.Geteuid():
		return fmt.Sprintf("owned by uid %d, not by this user (uid %d)", uid, os.Geteuid())
	case mode&0o022 != 0:
		return fmt.Sprintf("writable by its group or others (mode %04o)", mode)
	}
	return ""
}

// unsafeStaging is the refusal of staging directory s of dir: why, and what to do.
func unsafeStaging(s, dir, why string) error {
	return fmt.Errorf("%s: not a staging directory this update can trust: %s. It may be another user's interrupted update of %s, or planted; nothing was changed. Inspect it (journal.json lists the changes), remove it (rm -rf %s) and run the update again",
		s, why, dir, shellQuote(s))
}

// shellQuote quotes p for a POSIX shell when it holds anything but letters, digits and
// /._-+,:@%=.
func shellQuote(p string) string {
	safe := p != "" && strings.IndexFunc(p, func(r rune) bool {
		return !(r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@%=", r)))
	}) < 0
	if safe {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// checkJournal refuses a journal whose paths are not clean paths inside its directory
// (checkPath) or whose directory modes are not permission bits.
func checkJournal(j *journal) error {
	for i, e := range j.Entries {
		if err := checkPath(e.Path); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
	}
	for _, d := range j.Mkdirs {
		if err := checkPath(d); err != nil {
			return fmt.Errorf("mkdirs: %w", err)
		}
	}
	for _, d := range j.Rmdirs {
		if err := checkPath(d); err != nil {
			return fmt.Errorf("rmdirs: %w", err)
		}
	}
	if len(j.RmdirModes) != 0 && len(j.RmdirModes) != len(j.Rmdirs) {
		return fmt.Errorf("rmdirModes: %d modes for %d directories", len(j.RmdirModes), len(j.Rmdirs))
	}
	for _, m := range j.RmdirModes {
		if m&^0o7777 != 0 {
			return fmt.Errorf("rmdirModes: %#o is not a set of permission bits", m)
		}
	}
	return nil
}

func recoverDir(fsys fileSystem, dir string) (Outcome, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Nothing, err
	}
	s, err := stagingDir(fsys, abs)
	if err != nil {
		return Nothing, err
	}
	if found, err := inspectStaging(fsys, abs, s); err != nil || !found {
		return Nothing, err
	}
	jf := filepath.Join(s, journalFile)
	fi, err := fsys.Lstat(jf)
	if errors.Is(err, fs.ErrNotExist) { // not committed, or done: dir is as it was, or fully changed
		if err := fsys.RemoveAll(s); err != nil {
			return Nothing, fmt.Errorf("removing staging directory %s: %w", s, err)
		}
		return Discarded, nil
	}
	if err != nil {
		return Nothing, err
	}
	if why := untrusted(fi, false); why != "" {
		return Nothing, unsafeStaging(s, abs, journalFile+": "+why)
	}
	b, err := fsys.ReadFile(jf)
	if err != nil {
		return Nothing, fmt.Errorf("reading the journal of an interrupted update: %w", err)
	}
	var j journal
	if err := json.Unmarshal(b, &j); err != nil {
		return Nothing, unsafeStaging(s, abs, fmt.Sprintf("%s is not a journal (%v)", journalFile, err))
	}
	if j.Dir != abs {
		return Nothing, unsafeStaging(s, abs, fmt.Sprintf("its journal is for %s, not %s", j.Dir, abs))
	}
	if err := checkJournal(&j); err != nil {
		return Nothing, unsafeStaging(s, abs, "its journal names a path outside the directory: "+err.Error())
	}
	if ok, err := exists(fsys, filepath.Join(s, rollbackTag)); err != nil {
		return Nothing, err
	} else if ok {
		if err := rollBack(fsys, s, &j); err != nil {
			return Nothing, fmt.Errorf("finishing the roll back of an interrupted update: %w", err)
		}
		return RolledBack, nil
	}
	if rolledBack, err := finish(fsys, s, &j); rolledBack {
		return RolledBack, nil // the directory is as it was before the interrupted update
	} else if err != nil {
		return Nothing, fmt.Errorf("finishing an interrupted update: %w", err)
	}
	return RolledForward, nil
}
