package pkgupdate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/krm-merge/krm-merge/internal/parallel"
	"github.com/krm-merge/krm-merge/internal/scrub"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/gitfetch"
)

// FleetOptions says which packages a fleet run (UpdateFleet, ContinueFleet,
// AbortFleet) takes and how (docs/fleet.md).
type FleetOptions struct {
	// Targets are packages given one by one, each with the version to update it to.
	Targets []Target
	// Roots add every package under each directory (the directory itself included):
	// each outermost directory whose Kptfile names a git upstream, found as Outdated
	// finds them (no symbolic link followed, .git and krm-merge's own directories left
	// out). A package inside another goes with it: the outer one's update updates
	// it (with the outer one's release when it has the same upstream, else from its
	// own), so each package is updated once and in one piece.
	Roots []string
	// To is the version of every package whose Target gives none (and of every
	// package under Roots); "" is each Kptfile's upstream.git.ref. Update only.
	To string
	// Shard, when Count is above 0, keeps only the packages of shard Index (ShardOf).
	Shard Shard
	// Jobs is how many packages are updated at once; 0 is runtime.NumCPU(). The git
	// work is serialised whatever Jobs is (each release is fetched once, by the first
	// package that needs it); reading, merging and writing run in parallel.
	Jobs int
	// MaxDirs bounds the directories walked under Roots; 0 is DefaultMaxOutdatedDirs.
	// Past it the run fails before updating anything (ErrTooManyDirs).
	MaxDirs int
	// Each, when set, is called with each package's row as soon as that package and
	// every one before it in the report's order are done, one call at a time and in
	// that order (to print a long run's rows as they come); a package the run leaves
	// out (ContinueFleet's, not in progress) is not passed.
	Each func(*FleetPackage)
	// Update is what each package's update takes (Options): the merge settings, Plan,
	// AllowDirty, the git cache and the limits (each package has its own Timeout),
	// Log (each line prefixed with the package's directory), Trace (called for one
	// package at a time). Its Dir, Version, Repo, Directory and From must be empty:
	// the packages say them. ContinueFleet and AbortFleet read what Continue and Abort
	// read.
	Update Options
}

// Target is one package of a fleet run: its directory and the version to update it to
// ("" is FleetOptions.To, else its Kptfile's upstream.git.ref).
type Target struct {
	Dir, Version string
}

// Status is what a fleet run did with one package.
type Status string

// The statuses of a package in a FleetReport.
const (
	// StatusUpdated: the package took the new release (no conflict was left to a
	// person).
	StatusUpdated Status = "updated"
	// StatusUpToDate: nothing changed (the package is at the release asked for).
	StatusUpToDate Status = "up-to-date"
	// StatusPlanned: under Plan, the files listed would change; nothing was written.
	StatusPlanned Status = "planned"
	// StatusMarked: the update stopped at conflict markers (a *MarkedError): all else
	// is written, and the package waits for a person, then ContinueFleet or Continue.
	StatusMarked Status = "marked"
	// StatusFailed: the package is as it was; Error says why.
	StatusFailed Status = "failed"
	// StatusContinued and StatusAborted: ContinueFleet concluded the package's update
	// stopped at markers, AbortFleet put the package back as it was before it.
	StatusContinued Status = "continued"
	StatusAborted   Status = "aborted"
)

// FleetReport is what a fleet run did: one row per package, in the order the packages
// were given or found (Targets, then Roots in walk order), whatever order they ran in.
type FleetReport struct {
	Packages []*FleetPackage `json:"packages"`
}

// FleetPackage is one package's row in a FleetReport.
type FleetPackage struct {
	// Dir is the package directory, as given or as found under a root (the root
	// joined with the path under it).
	Dir string `json:"dir"`
	// Status is what was done.
	Status Status `json:"status"`
	// Error is the failure (StatusFailed) or the markers' message (StatusMarked),
	// escaped as the command prints it; "" otherwise.
	Error string `json:"error,omitempty"`
	// Report is the package's report (Update's, Continue's or Abort's); nil when the
	// run failed before making one.
	Report *Report `json:"report,omitempty"`
	// Err is the error Error says (nil when ""), for errors.Is and errors.As.
	Err error `json:"-"`
}

// Count returns how many packages have status s.
func (r *FleetReport) Count(s Status) int {
	n := 0
	for _, p := range r.Packages {
		if p.Status == s {
			n++
		}
	}
	return n
}

// Err is nil when no package failed or stopped at conflict markers, else a
// *FleetError counting them.
func (r *FleetReport) Err() error {
	e := &FleetError{Failed: r.Count(StatusFailed), Marked: r.Count(StatusMarked), Total: len(r.Packages)}
	if e.Failed == 0 && e.Marked == 0 {
		return nil
	}
	return e
}

// FleetError says that some packages of a fleet run failed or stopped at conflict
// markers; the others were done. Their rows say which and why.
type FleetError struct {
	// Failed and Marked count the packages that failed and those left at markers, of
	// Total.
	Failed, Marked, Total int
}

// Error counts the packages that failed and those at markers.
func (e *FleetError) Error() string {
	switch {
	case e.Failed > 0 && e.Marked > 0:
		return fmt.Sprintf("%d of %d packages failed and %d stopped at conflict markers", e.Failed, e.Total, e.Marked)
	case e.Failed > 0:
		return fmt.Sprintf("%d of %d packages failed", e.Failed, e.Total)
	}
	return fmt.Sprintf("%d of %d packages stopped at conflict markers: resolve them, then run --continue", e.Marked, e.Total)
}

// ExitStatus is the command's exit status for the run: 1 when a package failed, else
// 2 (ExitMarked's value: packages wait for a person).
func (e *FleetError) ExitStatus() int {
	if e.Failed > 0 {
		return 1
	}
	return 2
}

// action is what a fleet run does to each package.
type action int

const (
	actUpdate action = iota
	actContinue
	actAbort
)

// UpdateFleet updates every package opts names (FleetOptions), each as Update updates
// one and with the same result, byte for byte, as Update of that package alone: each
// package all or nothing, a failure or a conflict in one never stopping or touching
// the others. The packages run opts.Jobs at a time, sharing one git cache query per
// remote and one export per release. A package stopped at conflict markers
// (onConflict mark) is StatusMarked; the rest go on.
//
// The report has a row per package; report.Err() says whether any failed or waits at
// markers. Errors (nothing updated): bad options (a Target or root that is not a
// directory, a package given twice or inside another given, Update fields that the
// packages say, a bad Shard); ErrNoGit; the walk's (ErrTooManyDirs). A cancelled ctx
// stops the packages not yet started (each StatusFailed) and those running as Update
// stops.
func UpdateFleet(ctx context.Context, opts FleetOptions) (*FleetReport, error) {
	return runFleet(ctx, opts, actUpdate)
}

// ContinueFleet runs Continue on every package opts names that is stopped at
// conflict markers: a Target that is not is a failed row (ErrNotInProgress), a package
// found under Roots that is not is left out. Errors as UpdateFleet's.
func ContinueFleet(ctx context.Context, opts FleetOptions) (*FleetReport, error) {
	return runFleet(ctx, opts, actContinue)
}

// AbortFleet runs Abort as ContinueFleet runs Continue.
func AbortFleet(ctx context.Context, opts FleetOptions) (*FleetReport, error) {
	return runFleet(ctx, opts, actAbort)
}

// runFleet runs act on every package of opts.
func runFleet(ctx context.Context, opts FleetOptions, act action) (*FleetReport, error) {
	u := opts.Update
	if u.Dir != "" || u.Version != "" || u.Repo != "" || u.Directory != "" || u.From != "" {
		return nil, fmt.Errorf("FleetOptions.Update: Dir, Version, Repo, Directory and From are each package's own; leave them empty")
	}
	if act != actUpdate && opts.To != "" {
		return nil, fmt.Errorf("--to: --continue and --abort conclude each update as it was started")
	}
	if opts.Jobs < 0 {
		return nil, fmt.Errorf("Jobs is %d: want a positive number, or 0 for the number of CPUs", opts.Jobs)
	}
	if opts.Jobs == 0 {
		opts.Jobs = runtime.NumCPU()
	}
	if err := opts.Shard.check(); err != nil {
		return nil, err
	}
	if act == actUpdate {
		if err := withDefaults(&u); err != nil {
			return nil, err
		}
		if err := gitfetch.CheckGit(); err != nil {
			return nil, err
		}
	}
	units, err := fleetUnits(opts)
	if err != nil {
		return nil, err
	}
	if act == actUpdate {
		tmp, err := os.MkdirTemp("", "krm-merge-pkg-update-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		u.releases = newReleases(u, tmp)
		u.statuses = &gitfetch.StatusCache{Timeout: u.GitTimeout}
	}
	var mu sync.Mutex // the packages' Log and Trace, one call at a time
	if log := u.Log; log != nil {
		u.Log = func(msg string) {
			mu.Lock()
			defer mu.Unlock()
			log(msg)
		}
	}
	if trace := u.Trace; trace != nil {
		u.Trace = func(step string, d time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			trace(step, d)
		}
	}
	rows := make([]*FleetPackage, len(units))
	emit := inOrder(len(units), func(i int) {
		if rows[i] != nil && opts.Each != nil {
			opts.Each(rows[i])
		}
	})
	parallel.Workers(len(units), opts.Jobs, func(i int) {
		rows[i] = runUnit(ctx, u, units[i], act)
		emit(i)
	})
	rep := &FleetReport{Packages: []*FleetPackage{}}
	for _, r := range rows {
		if r != nil {
			rep.Packages = append(rep.Packages, r)
		}
	}
	return rep, nil
}

// inOrder returns done, to be called once for each i in [0, n) in any order and from
// any goroutine: it calls f(i) for every i in order, each as soon as i and every index
// before it are done, one call at a time.
func inOrder(n int, f func(i int)) (done func(i int)) {
	var mu sync.Mutex
	finished := make([]bool, n)
	next := 0
	return func(i int) {
		mu.Lock()
		defer mu.Unlock()
		finished[i] = true
		for ; next < n && finished[next]; next++ {
			f(next)
		}
	}
}

// runUnit runs act on one package with the run's options u, and returns its row (nil
// for a package found under a root that Continue or Abort finds not in progress).
func runUnit(ctx context.Context, u Options, un unit, act action) *FleetPackage {
	row := &FleetPackage{Dir: un.dir}
	if err := ctx.Err(); err != nil {
		return row.failed(fmt.Errorf("not started: %w", err))
	}
	u.Dir, u.Version = un.dir, un.version
	if log := u.Log; log != nil {
		u.Log = func(msg string) { log(un.dir + ": " + msg) }
	}
	var err error
	switch act {
	case actContinue:
		row.Report, err = Continue(ctx, u)
		row.Status = StatusContinued
	case actAbort:
		row.Report, err = Abort(ctx, u)
		row.Status = StatusAborted
	default:
		if row.Report, err = Update(ctx, u); err == nil {
			row.Status = updateStatus(row.Report)
		}
	}
	var marked *MarkedError
	switch {
	case err == nil:
		return row
	case act != actUpdate && un.found && errors.Is(err, ErrNotInProgress):
		return nil
	case errors.As(err, &marked):
		row.Status, row.Error, row.Err = StatusMarked, err.Error(), err
		return row
	}
	return row.failed(err)
}

// failed makes p a failed row with err.
func (p *FleetPackage) failed(err error) *FleetPackage {
	p.Status, p.Error, p.Err = StatusFailed, scrub.Escape(err.Error()), err
	return p
}

// updateStatus is the status of a finished update with report r.
func updateStatus(r *Report) Status {
	switch {
	case len(r.Files) == 0:
		return StatusUpToDate
	case r.Plan:
		return StatusPlanned
	}
	return StatusUpdated
}
