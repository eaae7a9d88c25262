package pkgupdate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/krm-merge/krm-merge/internal/scrub"
	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/gitfetch"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/stage"
)

// DefaultTimeout is the time limit of a whole update when Options.Timeout is 0: 30
// minutes (each git command has its own limit, Options.GitTimeout, and an update runs
// several: two releases per package, subpackages).
const DefaultTimeout = 30 * time.Minute

// DefaultLockTimeout is how long the command waits for another update of the package
// tree to finish (Options.LockTimeout): 30 seconds, long enough for a concurrent CI job
// on the same checkout to end, short enough that a stuck one is reported.
const DefaultLockTimeout = 30 * time.Second

// DefaultMaxFileSize is the size limit of one file when Options.MaxFileSize is 0:
// 64 MiB.
const DefaultMaxFileSize = pkgio.DefaultMaxFileSize

// Errors Update returns besides the merge's own (which name resource, file and field).
var (
	// ErrDirty: the package's git working tree has uncommitted changes.
	ErrDirty = errors.New("the package has uncommitted changes")
	// ErrDeadline: the update took longer than Options.Timeout and was stopped, having
	// written nothing.
	ErrDeadline = errors.New("the update's time limit passed")
	// ErrNoUpstream: neither a Kptfile upstream nor Options.Repo says where to fetch.
	ErrNoUpstream = errors.New("no upstream")
	// ErrNoGit: the git CLI is not on PATH (the function's container image has none;
	// the error wrapping it says so).
	ErrNoGit = gitfetch.ErrNoGit
	// ErrTooLarge: a file (named by the error wrapping it) is over
	// Options.MaxFileSize.
	ErrTooLarge = pkgio.ErrTooLarge
	// ErrNotRegular: a file of the package or of an upstream release (named by the
	// error wrapping it) is a FIFO, a device or a socket; only regular files are read.
	ErrNotRegular = pkgio.ErrNotRegular
)

// Update updates the package at opts.Dir (see the package documentation) and returns
// what it did. Before anything else it finishes an update of the directory that was
// interrupted (Report.Recovered says how).
//
// opts.Dir given through a symbolic link is resolved once, first; everything after
// works on the resolved directory, and Report.Dir is opts.Dir as given.
//
// Errors: bad options or input (naming the option, or the file and field); ErrNoGit
// (wrapped in a message saying so); fetch failures; ErrDirty; ErrNoUpstream; a file of
// the package or of an upstream release that is a symbolic link, is not a regular file
// (ErrNotRegular) or is over Options.MaxFileSize (ErrTooLarge), naming it; a .git
// path in an upstream release; the merge's errors
// (*vocab.ItemError naming resource, file and field, file paths relative to the
// package); *ConflictError, with the report, when onConflict is error and there are
// conflicts; ErrInProgress while an update of DIR, of a directory above it or of one
// inside it is stopped at conflict markers (and an untrustworthy state of one);
// write failures (nothing written). On every error DIR is as it was. Under onConflict
// mark, an update that wrote markers returns the report and a *MarkedError (DIR is
// then updated but for the marked conflicts, and in progress until Continue or Abort).
func Update(ctx context.Context, opts Options) (*Report, error) {
	if err := withDefaults(&opts); err != nil {
		return nil, err
	}
	outer := ctx
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	// overdue is err, or ErrDeadline's error when the update's deadline ended it.
	overdue := func(err error) error {
		if ctx.Err() != nil && outer.Err() == nil {
			return fmt.Errorf("%w: the update took longer than %s and was stopped; nothing was written (raise the limit with --timeout): %v",
				ErrDeadline, opts.Timeout, err)
		}
		return err
	}
	given := opts.Dir
	// Resolved once: the lock, the reads and the write all use the one directory.
	var err error
	if opts.Dir, err = resolveDir(opts.Dir); err != nil {
		return nil, err
	}
	cfg := functionConfig(opts.Merge)
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("Options.Merge: %w", err)
	}
	rep := &Report{Dir: given, Plan: opts.Plan, Packages: []*PackageReport{}, Files: []FileChange{}}
	// Without git nothing can be fetched: said first, before the lock, whose directory
	// a function image (no git, HOME=/, no /tmp) cannot make either.
	if err := gitfetch.CheckGit(); err != nil {
		return nil, err
	}
	steps := &stepTimes{}
	steps.start("check")
	unlock, err := stage.LockWait(ctx, opts.Dir, opts.LockTimeout, opts.Log)
	if err != nil {
		return nil, overdue(err)
	}
	defer unlock()
	recovered, err := recoverInterrupted(opts)
	if err != nil {
		return nil, err
	}
	if recovered != stage.Nothing {
		rep.Recovered = recovered.String()
	}
	absDir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	if err := checkNotInProgress(absDir, given); err != nil { // state.go
		return nil, err
	}
	// The changes of an interrupted update just finished are this command's own.
	var skipped string // the dirty check's, when the repository is another user's
	if !opts.AllowDirty && recovered != stage.RolledForward {
		if skipped, err = checkClean(ctx, opts.Dir, opts.GitTimeout, opts.statuses); err != nil {
			return nil, overdue(err)
		}
		if skipped != "" && opts.Log != nil {
			opts.Log(skipped)
		}
	}
	rels := opts.releases
	if rels == nil {
		tmp, err := os.MkdirTemp("", "krm-merge-pkg-update-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		rels = newReleases(opts, tmp)
	}
	u := &updater{cfg: cfg, plan: opts.Plan, marking: &marking{}, fetcher: newFetcher(opts, rels), steps: steps}
	if err := u.pkg(ctx, ".", opts.Version, true); err != nil {
		return nil, overdue(err)
	}
	if err := ctx.Err(); err != nil { // nothing is written after the deadline
		return nil, overdue(err)
	}
	rep.Packages = append(rep.Packages, u.reports...)
	if skipped != "" {
		root := rep.Packages[0]
		root.Warnings = append([]Note{{Message: skipped}}, root.Warnings...)
	}
	s := &stager{opts: opts, cfg: u.cfg, changes: u.changes, marking: u.marking}
	steps.start("write")
	rep, err = s.stage(absDir, given, rep) // stage.go
	steps.report(opts.Trace)
	return rep, err
}

// withDefaults checks opts' limits and fills in the defaults of those left 0
// (GitTimeout, Timeout). Errors: a negative limit, naming it; a bad
// $KRM_MERGE_GIT_TIMEOUT (gitfetch.DefaultTimeout).
func withDefaults(opts *Options) error {
	if opts.MaxFileSize < 0 {
		return fmt.Errorf("MaxFileSize is %d: want a positive number of bytes, or 0 for %d", opts.MaxFileSize, DefaultMaxFileSize)
	}
	if opts.MaxFetchSize < 0 || opts.LockTimeout < 0 {
		return fmt.Errorf("MaxFetchSize %d, LockTimeout %s: want positive values, or 0 for the defaults", opts.MaxFetchSize, opts.LockTimeout)
	}
	switch {
	case opts.GitTimeout < 0:
		return fmt.Errorf("GitTimeout is %s: want a positive duration, or 0 for the default", opts.GitTimeout)
	case opts.GitTimeout == 0:
		d, err := gitfetch.DefaultTimeout()
		if err != nil {
			return err
		}
		opts.GitTimeout = d
	}
	switch {
	case opts.Timeout < 0:
		return fmt.Errorf("Timeout is %s: want a positive duration, or 0 for %s", opts.Timeout, DefaultTimeout)
	case opts.Timeout == 0:
		opts.Timeout = DefaultTimeout
	}
	return nil
}

// recoverInterrupted finishes an interrupted update of opts.Dir (stage.Recover) and
// says how; under Plan, which writes nothing, it refuses one instead.
func recoverInterrupted(opts Options) (stage.Outcome, error) {
	if !opts.Plan {
		return stage.Recover(opts.Dir)
	}
	if s, err := stage.StagingDir(opts.Dir); err == nil {
		if _, err := os.Lstat(s); err == nil {
			return stage.Nothing, fmt.Errorf("%s: an interrupted update of %s is not finished; run the update without --plan to finish it first", s, opts.Dir)
		}
	}
	return stage.Nothing, nil
}

// resolveDir checks that dir names a directory (through symbolic links) and returns it
// with every link resolved (filepath.EvalSymlinks).
// Errors: dir is "", missing, not a directory, or cannot be resolved.
func resolveDir(dir string) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("no package directory given")
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("package directory: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", scrub.Escape(dir))
	}
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return "", fmt.Errorf("package directory: %w", err)
	}
	return dir, nil
}

// checkClean refuses a package with uncommitted changes in its git working tree (none
// when dir is not in one), as gitfetch.WorkTreeStatus reads them: git runs only in a
// repository that is the user's, within timeout; with statuses (a fleet run's), from
// its one status of the work tree. skipped, when not "", is the warning that the check
// was skipped (the repository is another user's).
func checkClean(ctx context.Context, dir string, timeout time.Duration, statuses *gitfetch.StatusCache) (skipped string, err error) {
	var wt gitfetch.WorkTree
	if statuses != nil {
		wt, err = statuses.Status(ctx, dir)
	} else {
		wt, err = gitfetch.WorkTreeStatus(ctx, dir, timeout)
	}
	if err != nil || wt.Skipped != "" {
		return wt.Skipped, err
	}
	if lines := wt.Changes; len(lines) > 0 {
		if len(lines) > 5 {
			lines = append(lines[:5:5], fmt.Sprintf("... and %d more", len(lines)-5))
		}
		return "", fmt.Errorf("%w in %s (commit or stash them first, or pass --allow-dirty):\n  %s", ErrDirty,
			filepath.Clean(dir), strings.Join(lines, "\n  "))
	}
	return "", nil
}

// updater is one Update run: the packages it visited and the file changes their merges
// collected, for the stage step (stager). Each package goes through the steps
// fetch (fetcher, fetch.go), prepare (prepare.go) and merge (merger, merge.go).
type updater struct {
	cfg     *config.Config
	plan    bool // Options.Plan
	fetcher *fetcher
	reports []*PackageReport
	changes []fileChange
	steps   *stepTimes // Options.Trace's
	// marking collects, under onConflict mark, what the update marks (mark.go).
	marking *marking
}

// pkg updates the package at rel (relative to the root; "." for the root) to version
// ("" for its Kptfile's upstream ref), in three steps: fetch both releases and read the
// package (fetch.go), prepare the releases as kpt pkg get would have (prepare.go), merge
// them into the package (merge.go), whose file changes go to u.changes for Update to
// stage; then its subpackages with their own upstream, each the same way.
func (u *updater) pkg(ctx context.Context, rel, version string, root bool) error {
	src, err := u.fetcher.source(rel, version, root)
	if err != nil {
		return err
	}
	pr := &PackageReport{Path: rel, Repo: src.repo, Directory: src.directory,
		Conflicts: []Conflict{}, Resources: []ResourceChange{}}
	u.steps.start("fetch")
	f, err := u.fetcher.fetch(ctx, rel, src, pr)
	if err != nil {
		return err
	}
	u.steps.start("prepare")
	rec, err := prepare(u.fetcher.dir(rel), rel, src, f, pr)
	if err != nil {
		return err
	}
	u.steps.start("merge")
	m := &merger{cfg: u.cfg, plan: u.plan, rel: rel, src: src, pr: pr, recording: rec, marking: u.marking}
	if err := m.merge(f.trees, f.subs); err != nil {
		return err
	}
	u.changes = append(u.changes, m.changes...)
	u.reports = append(u.reports, pr)
	for _, s := range f.subs {
		if err := u.pkg(ctx, path.Join(rel, s), "", false); err != nil {
			return err
		}
	}
	return nil
}

// stepTimes adds up the time of an update's steps for Options.Trace: each start ends
// the step under way and begins the next.
type stepTimes struct {
	order []string
	total map[string]time.Duration
	step  string
	since time.Time
}

// start ends the step under way, adding its time, and begins step ("" for none).
func (s *stepTimes) start(step string) {
	now := time.Now()
	if s.step != "" {
		s.total[s.step] += now.Sub(s.since)
	}
	if s.total == nil {
		s.total = map[string]time.Duration{}
	}
	if _, ok := s.total[step]; !ok && step != "" {
		s.order = append(s.order, step)
		s.total[step] = 0
	}
	s.step, s.since = step, now
}

// report ends the step under way and tells trace (when set) each step's time, in the
// order the steps first began.
func (s *stepTimes) report(trace func(string, time.Duration)) {
	s.start("")
	if trace == nil {
		return
	}
	for _, st := range s.order {
		trace(st, s.total[st])
	}
}
