package stage

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
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
