package stage

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
)

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
