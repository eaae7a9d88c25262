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
}

// paths gives entry n's file in the package (target), its new content in staging
// directory s (staged) and the backup of its old content there (backup).
func (j *journal) paths(s string, n int) (target, staged, backup string) {
	return filepath.Join(j.Dir, filepath.FromSlash(j.Entries[n].Path)), stagedPath(s, n),
		filepath.Join(s, oldDir, strconv.Itoa(n))
}

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
)

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
	inside := filepath.Join(abs, ".krm-merge-update")
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
// A failing rename while applying rolls back. The caller holds Lock and has run
// Recover.
// Errors: a bad path (naming it); staging, journal or rename failures (wrapped, naming
// the file); a failed roll back (its error joined to the first), which leaves the
// staging directory for Recover.
func Apply(dir string, changes []Change) error {
	return apply(osFS{}, dir, changes)
}

// Recover finishes what an interrupted Apply on dir left: it rolls a committed journal
// forward (or, when a roll back had started, back) and removes the staging directory.
// The caller holds Lock.
// Errors: the journal cannot be read or names another directory; roll forward and
// roll back both failed (the staging directory stays for the next attempt).
func Recover(dir string) (Outcome, error) {
	return recoverDir(osFS{}, dir)
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
	s, err := stagingDir(fsys, abs)
	if err != nil {
		return err
	}
	if err := fsys.RemoveAll(s); err != nil { // an unfinished staging: dir is untouched
		return fmt.Errorf("removing old staging directory %s: %w", s, err)
	}
	fail := func(err error) error {
		if rmErr := fsys.RemoveAll(s); rmErr != nil {
			return errors.Join(err, fmt.Errorf("removing staging directory %s: %w", s, rmErr))
		}
		return err
	}
	for _, d := range []string{s, filepath.Join(s, newDir), filepath.Join(s, oldDir)} {
		if err := fsys.Mkdir(d, 0o700); err != nil {
			return fail(fmt.Errorf("creating staging directory: %w", err))
		}
	}
	j := journal{Dir: abs}
	for n, c := range changes {
		_, statErr := fsys.Lstat(filepath.Join(abs, filepath.FromSlash(c.Path)))
		existed := statErr == nil
		if statErr != nil && !errors.Is(statErr, fs.ErrNotExist) {
			return fail(fmt.Errorf("%s: %w", c.Path, statErr))
		}
		j.Entries = append(j.Entries, entry{Path: c.Path, Delete: c.Delete, Existed: existed})
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
	if j.Mkdirs, err = dirsToCreate(fsys, abs, changes); err != nil {
		return fail(err)
	}
	if j.Rmdirs, err = dirsToRemove(fsys, abs, changes); err != nil {
		return fail(err)
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
	_, err = finish(fsys, s, &j)
	return err
}

// checkPath refuses paths that are absolute, leave the directory or touch .git.
func checkPath(p string) error {
	switch {
	case p == "" || path.IsAbs(p) || strings.Contains(p, "\\"):
		return fmt.Errorf("%q: not a relative slash-separated path", p)
	case path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Errorf("%q: not a clean path inside the directory", p)
	case p == ".git" || strings.HasPrefix(p, ".git/"):
		return fmt.Errorf("%q: the update never writes under .git", p)
	}
	return nil
}

// dirsToCreate lists the missing parent directories of written files, shallowest first.
func dirsToCreate(fsys fileSystem, abs string, changes []Change) ([]string, error) {
	set := map[string]bool{}
	for _, c := range changes {
		if c.Delete {
			continue
		}
		for d := path.Dir(c.Path); d != "."; d = path.Dir(d) {
			if set[d] {
				break
			}
			fi, err := fsys.Lstat(filepath.Join(abs, filepath.FromSlash(d)))
			if err == nil {
				if !fi.IsDir() {
					return nil, fmt.Errorf("%s: cannot write %s, %s is not a directory", c.Path, c.Path, d)
				}
				break
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
			set[d] = true
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
// one a change writes into), deepest first.
func dirsToRemove(fsys fileSystem, abs string, changes []Change) ([]string, error) {
	deleted := map[string]bool{}
	written := map[string]bool{}
	for _, c := range changes {
		if c.Delete {
			deleted[c.Path] = true
			continue
		}
		for d := path.Dir(c.Path); d != "."; d = path.Dir(d) {
			written[d] = true
		}
	}
	candidates := map[string]bool{}
	for p := range deleted {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
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
	for _, d := range list {
		if written[d] {
			continue
		}
		ents, err := fsys.ReadDir(filepath.Join(abs, filepath.FromSlash(d)))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, err
		}
		empty := true
		for _, e := range ents {
			p := path.Join(d, e.Name())
			if !deleted[p] && !removed[p] {
				empty = false
				break
			}
		}
		if empty {
			removed[d] = true
			out = append(out, d)
		}
	}
	return out, nil
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

func rollForward(fsys fileSystem, s string, j *journal) error {
	for _, d := range j.Mkdirs {
		if err := fsys.MkdirAll(filepath.Join(j.Dir, filepath.FromSlash(d)), 0o755); err != nil {
			return fmt.Errorf("creating directory %s: %w", d, err)
		}
	}
	for n, e := range j.Entries {
		target, staged, backup := j.paths(s, n)
		if e.Existed {
			kept, err := exists(fsys, backup)
			if err != nil {
				return err
			}
			if !kept {
				pending := true
				if !e.Delete {
					if pending, err = exists(fsys, staged); err != nil {
						return err
					}
				}
				if pending { // the file is still the original: keep it
					if e.Delete || fsys.Link(target, backup) != nil {
						if err := fsys.Rename(target, backup); err != nil && !errors.Is(err, fs.ErrNotExist) {
							return fmt.Errorf("%s: %w", e.Path, err)
						}
					}
				}
			}
		}
		if e.Delete {
			continue
		}
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
	for _, d := range j.Rmdirs {
		if err := fsys.Remove(filepath.Join(j.Dir, filepath.FromSlash(d))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			if isNotEmpty(err) { // something appeared there meanwhile: keep it
				continue
			}
			return fmt.Errorf("removing emptied directory %s: %w", d, err)
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
	for _, e := range j.Entries {
		set[filepath.Join(j.Dir, filepath.FromSlash(path.Dir(e.Path)))] = true
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
	for i := len(j.Rmdirs) - 1; i >= 0; i-- {
		if err := fsys.MkdirAll(filepath.Join(j.Dir, filepath.FromSlash(j.Rmdirs[i])), 0o755); err != nil {
			return fmt.Errorf("restoring directory %s: %w", j.Rmdirs[i], err)
		}
	}
	var errs []error
	for n := len(j.Entries) - 1; n >= 0; n-- {
		e := j.Entries[n]
		target, staged, backup := j.paths(s, n)
		if e.Existed {
			kept, err := exists(fsys, backup)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if kept {
				if err := fsys.Rename(backup, target); err != nil {
					errs = append(errs, fmt.Errorf("restoring %s: %w", e.Path, err))
				}
			}
			continue
		}
		if e.Delete {
			continue
		}
		pending, err := exists(fsys, staged)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !pending { // the new file was moved in: take it out again
			if err := fsys.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("removing %s: %w", e.Path, err))
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for i := len(j.Mkdirs) - 1; i >= 0; i-- {
		err := fsys.Remove(filepath.Join(j.Dir, filepath.FromSlash(j.Mkdirs[i])))
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !isNotEmpty(err) {
			return fmt.Errorf("removing created directory %s: %w", j.Mkdirs[i], err)
		}
	}
	if err := fsys.RemoveAll(s); err != nil {
		return fmt.Errorf("removing staging directory %s: %w", s, err)
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
	if ok, err := exists(fsys, s); err != nil || !ok {
		return Nothing, err
	}
	if ok, err := exists(fsys, filepath.Join(s, journalFile)); err != nil {
		return Nothing, err
	} else if !ok { // not committed, or done: dir is as it was, or fully changed
		if err := fsys.RemoveAll(s); err != nil {
			return Nothing, fmt.Errorf("removing staging directory %s: %w", s, err)
		}
		return Discarded, nil
	}
	b, err := fsys.ReadFile(filepath.Join(s, journalFile))
	if err != nil {
		return Nothing, fmt.Errorf("reading the journal of an interrupted update: %w", err)
	}
	var j journal
	if err := json.Unmarshal(b, &j); err != nil {
		return Nothing, fmt.Errorf("%s: not a journal: %w", filepath.Join(s, journalFile), err)
	}
	if j.Dir != abs {
		return Nothing, fmt.Errorf("%s: the journal is for %s, not %s; move it away", filepath.Join(s, journalFile), j.Dir, abs)
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
