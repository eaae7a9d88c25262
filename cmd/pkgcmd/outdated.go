package pkgcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/krm-merge/krm-merge/internal/scrub"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate"
)

// The exit statuses of `krm-merge pkg outdated`, as npm outdated's: 0 when every
// package is at its newest release, ExitBehind when one or more are behind, and
// ExitOutdatedError when something could not be checked (a package's Kptfile or
// upstream, or the command itself: a bad flag, a DIR missing), whether or not others
// are behind (docs/pkg-update.md, "What is behind").
const (
	// ExitBehind (1) is npm outdated's status for outdated packages.
	ExitBehind = 1
	// ExitOutdatedError (2) tells a failure from "behind", as diff and grep do.
	ExitOutdatedError = 2
)

// statusError is an error with its own exit status (ExitCode reads it).
type statusError struct {
	status int
	err    error
}

// Error is the wrapped error's message.
func (e *statusError) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error.
func (e *statusError) Unwrap() error { return e.err }

// ExitStatus is the status the binary exits with.
func (e *statusError) ExitStatus() int { return e.status }

type outdatedFlags struct {
	output, cacheDir    string
	gitTimeout, timeout time.Duration
}

const outdatedLong = `List the packages behind their upstream's newest release.

Every directory under each DIR (default: the current directory) whose Kptfile names a
git upstream (upstream.git.repo, directory, ref; upstreamLock.git.commit) is a package,
walked in path order; symbolic links are never followed, .git and the directories of
an update in progress are left out. A subpackage of its parent's repository and ref,
in its parent's upstream directory or under it, moves with its parent when that one
is updated to a version (as pkg update moves it), and is listed with it.

Each distinct upstream repository is asked once for its branches and tags (git
ls-remote, through the git cache's repository; nothing is fetched or written). The
newest release of a package depends on upstream.git.ref:
  a tag with a version (v1.2.3, 1.2.3, release-v1.2): the newest tag of the same
    form (prefix, v or not, count of numbers) by semantic versioning; a prerelease
    only when the current tag is one. A package-scoped tag <directory>/<ref> (kpt's
    monorepo versioning) is followed among the tags of its directory;
  a branch, or a tag without a version: its current commit;
  a commit id: nothing to say ("pinned").
The kind is major, minor or patch (the versions' cores), or commit (the same ref at
another commit: a branch or tag that moved).

Exit status: 0 when nothing is behind, 1 when a package is behind (as npm outdated),
2 when something could not be checked (a Kptfile, an upstream, a flag), even if
others are behind.`

const outdatedExample = `  # every package under the current directory
  krm-merge pkg outdated

  # two trees, for a bot (one JSON array; exit 1 when something is behind)
  krm-merge pkg outdated apps platform --output json`

func outdatedCommand() *cobra.Command {
	f := &outdatedFlags{}
	cmd := &cobra.Command{
		Use:           "outdated [DIR...]",
		Short:         "List the packages behind their upstream's newest release",
		Long:          outdatedLong,
		Example:       outdatedExample,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(c *cobra.Command, args []string) error {
			ctx, stop := interruptible(c)
			defer stop()
			err := runOutdated(ctx, f, args, c.OutOrStdout(), c.ErrOrStderr())
			var se *statusError
			if errors.As(err, &se) && se.status == ExitOutdatedError && !errors.Is(se.err, errChecked) {
				printError(c.ErrOrStderr(), se.err)
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.output, "output", "text", "output format: text (a table) or json (one array of packages)")
	fl.StringVar(&f.cacheDir, "cache-dir", "", "git cache directory (default $KRM_MERGE_CACHE_DIR, else ~/.cache/krm-merge/git)")
	fl.DurationVar(&f.gitTimeout, "git-timeout", 0, "the time limit of every git command, e.g. 90s or 20m (default $KRM_MERGE_GIT_TIMEOUT, else 5m)")
	fl.DurationVar(&f.timeout, "timeout", pkgupdate.DefaultTimeout, "the time limit of the whole check")
	return cmd
}

// errChecked is the error of a run whose packages' errors the report has printed.
var errChecked = errors.New("some packages could not be checked")

// errBehind is the (silent) error of a run that found a package behind.
var errBehind = errors.New("some packages are behind their newest release")

// runOutdated runs the check and writes the report; its error carries the exit
// status (statusError).
func runOutdated(ctx context.Context, f *outdatedFlags, dirs []string, out, errOut io.Writer) error {
	if f.output != "text" && f.output != "json" {
		return &statusError{ExitOutdatedError, fmt.Errorf("--output %q: want text or json", f.output)}
	}
	rep, err := pkgupdate.Outdated(ctx, pkgupdate.OutdatedOptions{Dirs: dirs, CacheDir: f.cacheDir,
		GitTimeout: f.gitTimeout, Timeout: f.timeout, Log: func(msg string) { fmt.Fprintln(errOut, scrub.Escape(msg)) }})
	if err != nil {
		return &statusError{ExitOutdatedError, err}
	}
	if f.output == "json" {
		if err := writeOutdatedJSON(out, rep.Packages); err != nil {
			return &statusError{ExitOutdatedError, err}
		}
	} else {
		printOutdated(out, rep)
	}
	if failed := rep.Failed(); len(failed) > 0 {
		if f.output == "text" {
			for _, p := range failed {
				fmt.Fprintf(errOut, "Error: %s: %s\n", scrub.Escape(p.Dir), scrub.Escape(p.Error))
			}
		}
		return &statusError{ExitOutdatedError, errChecked}
	}
	if rep.Behind() {
		return &statusError{ExitBehind, errBehind}
	}
	return nil
}

// printOutdated writes the report as a table for a person: package, current ref
// (and the commit held), newest release (and its commit), kind; then one summary line.
// Every value comes from a Kptfile or a remote and is escaped (scrub.Escape).
func printOutdated(w io.Writer, rep *pkgupdate.OutdatedReport) {
	esc := scrub.Escape
	short := func(commit string) string { return pkgupdate.Version{Commit: commit}.ShortCommit() }
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "Package\tCurrent\tNewest\tKind")
	behind := 0
	for _, p := range rep.Packages {
		cur, newest, kind := "-", "-", string(p.Kind)
		switch {
		case p.Kind == pkgupdate.KindPinned && p.Ref == p.Commit:
			cur = short(p.Commit)
		case p.Ref != "":
			cur = fmt.Sprintf("%s (%s)", esc(p.Ref), short(p.Commit))
		}
		if p.Newest != "" {
			newest = fmt.Sprintf("%s (%s)", esc(p.Newest), short(p.NewestCommit))
		}
		switch {
		case p.Error != "":
			kind = "error"
		case kind == "":
			kind = "up to date"
		}
		if p.Behind {
			behind++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", esc(p.Dir), cur, newest, kind)
	}
	tw.Flush()
	summary := fmt.Sprintf("%d of %d package(s) behind, %d upstream(s) asked", behind, len(rep.Packages), rep.Remotes)
	if n := len(rep.Failed()); n > 0 {
		summary += fmt.Sprintf("; %d could not be checked", n)
	}
	fmt.Fprintln(w, summary+".")
}

// writeOutdatedJSON writes the packages as one JSON array, escaped as writeJSON
// escapes the update's report (every character a terminal could act on as \uXXXX).
func writeOutdatedJSON(out io.Writer, pkgs []*pkgupdate.OutdatedPackage) error {
	if pkgs == nil {
		pkgs = []*pkgupdate.OutdatedPackage{}
	}
	return writeEscapedJSON(out, pkgs)
}
