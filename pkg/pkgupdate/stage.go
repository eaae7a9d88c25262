package pkgupdate

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"syscall"

	"github.com/krm-merge/krm-merge/internal/textmerge"
	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/stage"
)

// fileChange is a change to write, with the content it replaces (for the plan's diff).
type fileChange struct {
	change stage.Change
	action string
	old    []byte
	// replacesDir is true for a file written where the package has a directory whose
	// files the same update deletes (a file replacing a directory, decided in merge).
	replacesDir bool
}

// stager is an update's last step, once every package is merged (stage): the
// update's options and merge config, every package's file changes, and what onConflict
// mark marked.
type stager struct {
	opts    Options
	cfg     *config.Config
	changes []fileChange
	marking *marking
}

// stage checks the changes (checkChanges), fills the report's files (with their diffs
// under Plan) and marks, fails under onConflict error when there are conflicts, and
// writes the changes into the package all or nothing (stage.Apply), with the state of an
// update in progress when conflicts were marked (applyMarked). absDir is the package
// directory made absolute, given as the caller gave it (for MarkedError).
func (s *stager) stage(absDir, given string, rep *Report) (*Report, error) {
	sort.Slice(s.changes, func(i, j int) bool { return s.changes[i].change.Path < s.changes[j].change.Path })
	if err := s.checkChanges(); err != nil {
		return nil, err
	}
	marks := s.marking.marks
	marking := s.cfg.OnConflict == config.MarkConflicts && len(marks) > 0
	if s.cfg.OnConflict == config.MarkConflicts && !marking { // nothing marked: recorded as by any update
		var err error
		if s.changes, err = finishRecords(s.changes, s.marking.pending, s.marking.localKptfiles); err != nil {
			return nil, err
		}
	}
	if marking {
		sort.SliceStable(marks, func(i, j int) bool {
			a, b := marks[i], marks[j]
			return a.File < b.File || a.File == b.File && a.Start < b.Start
		})
		rep.Marks = marks
		for _, p := range rep.Packages {
			p.Recorded = false // until Continue
		}
	}
	for _, c := range s.changes {
		fc := FileChange{Path: c.change.Path, Action: c.action}
		if s.opts.Plan {
			fc.Diff = diff(c.old, c.change.Data)
			if !s.cfg.ShowSecretValues && (holdsSecret(c.old) || holdsSecret(c.change.Data)) {
				fc.Diff = secretDiff
			}
		}
		rep.Files = append(rep.Files, fc)
	}
	if n := rep.Conflicts(); n > 0 && s.cfg.OnConflict == config.FailOnConflict {
		return rep, &ConflictError{Conflicts: n}
	}
	if s.opts.Plan || len(s.changes) == 0 {
		return rep, nil
	}
	changes := make([]stage.Change, len(s.changes))
	for i, c := range s.changes {
		changes[i] = c.change
	}
	if marking {
		if err := s.applyMarked(absDir, changes, rep); err != nil {
			return nil, err
		}
		var files []string
		for _, m := range marks {
			if len(files) == 0 || files[len(files)-1] != m.File {
				files = append(files, m.File)
			}
		}
		return rep, &MarkedError{Dir: given, Files: files}
	}
	if err := stage.Apply(s.opts.Dir, changes); err != nil {
		return nil, err
	}
	return rep, nil
}

// applyMarked writes an update that marked conflicts with its state (state.go),
// all or nothing, into dir (absolute).
func (s *stager) applyMarked(dir string, changes []stage.Change, rep *Report) error {
	created, err := prepareStateDir(dir)
	if err != nil {
		return err
	}
	undo := func(err error) error {
		if created {
			_ = os.Remove(filepath.Join(dir, stateDirName)) // empty unless the write went through
		}
		return err
	}
	to := ""
	if len(rep.Packages) > 0 {
		to = rep.Packages[0].To.Ref
	}
	state, err := s.marking.stateChanges(dir, changes, to, s.opts.MaxFileSize)
	if err != nil {
		return undo(err)
	}
	if err := stage.Apply(dir, append(changes, state...)); err != nil {
		return undo(err)
	}
	return nil
}

// checkChanges refuses, before anything is written, a change to a path with a .git
// component (pkgio.GitPath; the reads already refuse them in upstream trees) and a
// file added where the package holds something the update did not read (an empty
// directory, a directory holding only a nested repository): a write there would
// replace it unseen.
func (s *stager) checkChanges() error {
	for _, c := range s.changes {
		p := c.change.Path
		if pkgio.GitPath(p) {
			return &pkgio.Error{Path: p, Err: pkgio.ErrGitPath}
		}
		if c.action != "added" || c.replacesDir {
			continue
		}
		fi, err := os.Lstat(filepath.Join(s.opts.Dir, filepath.FromSlash(p)))
		switch {
		case err == nil && fi.IsDir():
			return &pkgio.Error{Path: p, Err: errors.New("upstream adds a file here, where the package has a directory without files the update reads (empty, or holding only a repository); remove or rename the directory first")}
		case err == nil:
			return &pkgio.Error{Path: p, Err: errors.New("upstream adds a file here, where the package has one the update did not read; remove or rename it first")}
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR): // ENOTDIR: a file above it, deleted with it
			return &pkgio.Error{Path: p, Err: err}
		}
	}
	return nil
}

// secretDiff stands for the plan's diff of a file holding a Secret, whose lines would
// print its data and stringData values (the conflict and plan lines redact them).
const secretDiff = "(the diff of a file holding a Secret is not shown: it would print the Secret's values; --show-secret-values shows it)\n"

// secretKind is a document's top-level "kind: Secret" line.
var secretKind = regexp.MustCompile(`(?m)^kind:[ \t]*["']?Secret["']?[ \t]*(#.*)?\r?$`)

// holdsSecret reports whether data, a file's bytes, has a document of kind Secret: any
// line "kind: Secret" at the top level, whatever the document's apiVersion or whether
// the file parses, so that a diff is held back rather than a value printed.
func holdsSecret(data []byte) bool {
	return secretKind.Match(data)
}

// diff is the plan's diff of a file from old to new: a unified diff with 3 lines of
// context, or "Binary files differ" (as git says it) when either is binary, which is
// then neither split into lines nor shown.
func diff(old, new []byte) string {
	if binary(old) || binary(new) {
		return "Binary files differ\n"
	}
	return textmerge.Unified(old, new, 3)
}
