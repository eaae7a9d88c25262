package pkgcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/scrub"
	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/function"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// New returns the `pkg` command with its `update` subcommand.
func New() *cobra.Command {
	pkg := &cobra.Command{
		Use:   "pkg",
		Short: "Work with kpt packages: update one from its upstream",
	}
	pkg.AddCommand(updateCommand())
	pkg.AddCommand(outdatedCommand())
	return pkg
}

type updateFlags struct {
	config, onConflict, output string
	plan, allowDirty           bool
	cont, abort                bool
	all                        bool   // --all: args are roots to look under
	jobs                       int    // --jobs: packages at once (0: the CPUs)
	shard                      string // --shard K/N
	showSecretValues           bool
	repo, directory, from, to  string
	cacheDir                   string
	maxFileSize, maxFetchSize  string
	lockTimeout                time.Duration
	gitTimeout                 time.Duration
	timeout                    time.Duration
	log                        func(string) // progress messages, on stderr
	given                      []string     // the flags given, as "--name" (givenFlags)
}

const updateLong = `Take a new upstream release into a package in one step.

DIR is a package fetched with kpt pkg get: its Kptfile names the upstream
(upstream.git.repo, directory, ref) and the release it was fetched at
(upstreamLock.git.commit). VERSION (a tag, branch or commit; default upstream.git.ref,
resolved to its current commit) is the release to update to. Both are fetched with git
(any URL git accepts, local paths and file:// included) through a cache
($KRM_MERGE_CACHE_DIR, default ~/.cache/krm-merge/git), and given the bookkeeping kpt
pkg get adds, so that what kpt added to the local copy is not a local change.

The change from the old release to the new one is merged into DIR: resources field by
field with krm-merge's 3-way merge (every conflict reported with its field path; dest's
file layout, comments and formatting kept; added resources in the files upstream has
them in; deleted ones removed, and files left empty deleted), other files (README.md,
scripts, YAML that is not a resource) line by line as git merge-file merges them.
Subpackages with their own upstream are updated from it. The Kptfile records the new
release (upstream.git.ref, upstreamLock), as kpt pkg update does.

The write is all or nothing: on any error DIR is unchanged, and a run interrupted while
writing is finished by the next one. A package with uncommitted changes in git is
refused unless --allow-dirty.

A conflict (a field, a part of a value or lines changed differently on both sides)
stops the update by default (--on-conflict mark): every conflict no value merge settles
is written into its file as git-style markers around its lines (<<<<<<< local,
||||||| the old release with its lines, =======, >>>>>>> the new release), which
editors' merge tools read; each side alone parses. A binary file changed on both
sides, or a path that is a file on one side and a directory on the other, keeps the
local copy and gets upstream's beside it (FILE.<new release>). Everything without a
conflict is updated; the Kptfile keeps the old release, and the command lists the
markers, names the files holding them and exits 2. Resolve them, then run --continue
(refused while a marker is left, a file does not parse or an upstream version is still
beside its file) to record the new release, or --abort to put DIR back exactly as it
was. Until then every other update of DIR, of a package above it or of one inside it
is refused. --on-conflict updated takes upstream's value at every conflict, as kpt pkg
update does (and the function by default); dest keeps yours; error writes nothing and
fails. A --config file's onConflict is used when no --on-conflict is given.

A directory without a Kptfile upstream (a kustomize base or plain manifests vendored
from git) is updated with --repo, --from and the new version (DIR@VERSION or --to);
nothing is recorded.

Several packages: give several DIRs, or --all [ROOT...] for every package under each
ROOT (default the current directory; a package inside another goes with it). Each
distinct upstream release is fetched once; --jobs packages are updated at once, each
all or nothing as one alone, and a failure or a conflict in one never stops or touches
another. --to VERSION is every package's version; --shard K/N takes a fixed part of the
packages, for a CI matrix or a Kubernetes Indexed Job (docs/fleet.md). The report has a
line per package and a summary; --output json writes a JSON Lines record per package
(the shards' outputs concatenate), --output markdown a pull request's body. --continue
and --abort take several packages, or --all, too.

In DIR@VERSION, an existing directory decides where the @ splits: a@2/pkg is the
directory a@2/pkg, pkg@release/1.2 is pkg at the branch release/1.2 (--to VERSION
is never ambiguous). DIR may be reached
through a symbolic link. Only regular files are read, in DIR and in both releases, none
over --max-file-size; a symbolic link, FIFO, device or socket is an error naming it. A
path that is a file on one side and a directory on the other is a conflict like any
other, never a silent deletion. Names and values are printed with control characters
escaped (\x1b); binary files are never printed.

Exit status: 0 when the update is done (or planned, or concluded); 2 when it stopped at
conflict markers (--on-conflict mark, the default): everything else is written, resolve
the markers and run --continue, or --abort; 1 on an error, including conflicts under
--on-conflict error (then nothing is written). Over several packages: 1 when one
failed, else 2 when one stopped at conflict markers, else 0.

git must be installed; the krm-merge container image has none.`

const updateExample = `  # take release v0.4.4 of the package fetched into my-project
  krm-merge pkg update my-project@project-blueprint-v0.4.4

  # what would change, without writing anything
  krm-merge pkg update my-project@project-blueprint-v0.4.4 --plan

  # a conflict stops the update (exit 2) with markers in the files; resolve them
  # in an editor, then conclude (or undo)
  krm-merge pkg update my-app@v2
  krm-merge pkg update my-app --continue
  krm-merge pkg update my-app --abort

  # fail (in CI) when the upgrade conflicts with local changes; nothing written
  krm-merge pkg update my-project@v2 --on-conflict error --output json

  # upstream wins every conflict, as kpt pkg update does
  krm-merge pkg update my-project@v2 --on-conflict updated

  # every package under clusters/ to v2, a JSON Lines record each
  krm-merge pkg update --all clusters --to v2 --output json

  # this worker's quarter of the fleet (a Kubernetes Indexed Job of 4)
  krm-merge pkg update --all . --shard "$JOB_COMPLETION_INDEX/4" --output markdown

  # a kustomize base vendored from git without a Kptfile
  krm-merge pkg update bases --repo https://github.com/fluxcd/flux2 \
      --directory /manifests/bases --from v2.7.0 --to v2.9.4`

func updateCommand() *cobra.Command {
	f := &updateFlags{}
	cmd := &cobra.Command{
		Use:     "update DIR[@VERSION]... | --all [ROOT...]",
		Short:   "Update a package to a new upstream release with krm-merge's 3-way merge",
		Long:    updateLong,
		Example: updateExample,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 && !f.all {
				return fmt.Errorf("give a package directory (DIR[@VERSION]), several, or --all [ROOT...]")
			}
			return nil
		},
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(c *cobra.Command, args []string) error {
			ctx, stop := interruptible(c)
			defer stop()
			f.log = func(msg string) { fmt.Fprintln(c.ErrOrStderr(), scrub.Escape(msg)) }
			f.given = givenFlags(c.Flags())
			var err error
			if isFleet(f, args) {
				err = runFleetUpdate(ctx, f, args, c.OutOrStdout())
			} else {
				err = runUpdate(ctx, f, args[0], c.OutOrStdout())
			}
			var marked *pkgupdate.MarkedError
			var fleet *pkgupdate.FleetError
			if err != nil && f.output != "json" && !errors.As(err, &marked) && !errors.As(err, &fleet) { // the report says how to go on
				printError(c.ErrOrStderr(), err)
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "merge options: a functionConfig file (fn.krm-merge.dev/v1alpha1 ResourceMerge or ConfigMap), as for the function (default none: the function's defaults, onConflict aside)")
	fl.StringVar(&f.onConflict, "on-conflict", "", onConflictUsage())
	fl.BoolVar(&f.showSecretValues, "show-secret-values", false, showSecretValuesUsage())
	fl.BoolVar(&f.cont, "continue", false, "conclude an update stopped at conflict markers, once they are resolved: record the new release")
	fl.BoolVar(&f.abort, "abort", false, "undo an update stopped at conflict markers: DIR exactly as before it")
	fl.StringVar(&f.output, "output", "text", "output format: text, json (over several packages: a JSON Lines record per package) or markdown (a pull request's body, over several packages)")
	fl.BoolVar(&f.all, "all", false, "update every package under each ROOT given (default the current directory); a package inside another goes with it")
	fl.IntVar(&f.jobs, "jobs", 0, "how many packages to update at once (default the number of CPUs)")
	fl.StringVar(&f.shard, "shard", "", "update only shard K of N (K/N, K from 0; e.g. a Kubernetes Indexed Job's $JOB_COMPLETION_INDEX): a fixed part of the packages that no other package's addition moves (default none: every package)")
	fl.BoolVar(&f.plan, "plan", false, "print what the update would change and change nothing")
	fl.BoolVar(&f.allowDirty, "allow-dirty", false, "update a package with uncommitted changes in git")
	fl.StringVar(&f.repo, "repo", "", "upstream repository of a directory without a Kptfile upstream (default none: a Kptfile's upstream names it, and --repo is refused there)")
	fl.StringVar(&f.directory, "directory", "", "the package's directory in --repo (default the root)")
	fl.StringVar(&f.from, "from", "", "the upstream version the directory was made from, required with --repo (default none: a Kptfile's upstreamLock records it)")
	fl.StringVar(&f.to, "to", "", "the upstream version to update to, instead of DIR@VERSION (default the Kptfile's upstream.git.ref; required with --repo)")
	fl.StringVar(&f.cacheDir, "cache-dir", "", "git cache directory (default $KRM_MERGE_CACHE_DIR, else ~/.cache/krm-merge/git)")
	fl.StringVar(&f.maxFileSize, "max-file-size", "64MiB", "the size limit of every file read, in DIR and in the upstream releases: bytes, or with KiB, MiB or GiB")
	fl.StringVar(&f.maxFetchSize, "max-fetch-size", "1GiB", "the most one git fetch of an upstream release downloads into the cache (each release is fetched without its history): bytes, or with KiB, MiB or GiB")
	fl.DurationVar(&f.lockTimeout, "lock-timeout", pkgupdate.DefaultLockTimeout, "how long to wait for another update of DIR, of a directory above it or inside it, to finish (0: do not wait)")
	fl.DurationVar(&f.gitTimeout, "git-timeout", 0, "the time limit of every git command and of the wait for the git cache's lock, e.g. 90s or 20m (default $KRM_MERGE_GIT_TIMEOUT, else 5m)")
	fl.DurationVar(&f.timeout, "timeout", pkgupdate.DefaultTimeout, "the time limit of the whole update; past it the update stops and writes nothing")
	return cmd
}

// splitArg splits DIR[@VERSION]; "" is no version. arg naming an existing directory
// is that directory (a@2/pkg); else it splits at the last @ whose left part is an
// existing directory (pkg@release/1.2: a branch with a slash); else at an @ after the
// last / (so that a missing directory is reported by its whole name).
// Errors: an @ with nothing after it.
func splitArg(arg string) (dir, version string, err error) {
	return splitArgWith(arg, isDir)
}

// splitArgWith is splitArg with the directory test given.
func splitArgWith(arg string, isDir func(string) bool) (dir, version string, err error) {
	if !strings.Contains(arg, "@") || isDir(arg) {
		return arg, "", nil
	}
	split := func(i int) (string, string, error) {
		if i == len(arg)-1 {
			return "", "", fmt.Errorf("%q: no version after @", arg)
		}
		return arg[:i], arg[i+1:], nil
	}
	for i := strings.LastIndex(arg, "@"); i > 0; i = strings.LastIndex(arg[:i], "@") {
		if isDir(arg[:i]) {
			return split(i)
		}
	}
	i := strings.LastIndex(arg, "@")
	if i < strings.LastIndex(arg, "/") {
		return arg, "", nil
	}
	return split(i)
}

// isDir reports whether p is an existing directory (through symbolic links).
func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// parseSize reads a size: a positive number of bytes, with an optional unit B, K, Ki or
// KiB, M, Mi or MiB, G, Gi or GiB (powers of 1024).
// Errors: anything else, or a size that does not fit in int64.
func parseSize(s string) (int64, error) {
	num, shift := s, uint(0)
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"K", 10}, {"M", 20}, {"G", 30}, {"B", 0}} {
		if strings.HasSuffix(s, u.suffix) {
			num, shift = strings.TrimSuffix(s, u.suffix), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("%q: want a positive size in bytes, or with KiB, MiB or GiB", s)
	}
	return n << shift, nil
}

func runUpdate(ctx context.Context, f *updateFlags, arg string, out io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.output != "text" && f.output != "json" {
		return fmt.Errorf("--output %q: want text or json (or markdown, over several packages)", f.output)
	}
	if f.cont || f.abort {
		return runConclude(ctx, f, arg, out)
	}
	dir, version, err := splitArg(arg)
	if err != nil {
		return err
	}
	maxFileSize, err := parseSize(f.maxFileSize)
	if err != nil {
		return fmt.Errorf("--max-file-size %w", err)
	}
	if f.to != "" {
		if version != "" {
			return fmt.Errorf("the version is given twice (%s@%s and --to %s)", dir, version, f.to)
		}
		version = f.to
	}
	opts := pkgupdate.Options{Dir: dir, Version: version, Repo: f.repo, Directory: f.directory, From: f.from,
		MaxFileSize: maxFileSize, LockTimeout: f.lockTimeout, Log: f.log}
	var rep *pkgupdate.Report
	if err = updateSettings(f, &opts); err == nil {
		rep, err = pkgupdate.Update(ctx, opts)
	}
	if errors.Is(err, pkgupdate.ErrTimeout) {
		err = fmt.Errorf("%w (raise the limit with --git-timeout or %s)", err, pkgupdate.TimeoutEnv)
	}
	if errors.Is(err, pkgupdate.ErrTooLarge) {
		err = fmt.Errorf("%w (raise the limit with --max-file-size)", err)
	}
	if err != nil && strings.Contains(arg, "@") && version == "" {
		if _, statErr := os.Stat(dir); statErr != nil {
			err = fmt.Errorf("%w (no directory before an @ in %q: give the version with --to)", err, arg)
		}
	}
	if f.output == "json" {
		if encErr := writeJSON(out, rep, dir, err); encErr != nil && err == nil {
			err = encErr
		}
		return err
	}
	if rep != nil {
		printReport(out, rep, err)
	}
	return err
}

// runConclude runs --continue or --abort of the update stopped at conflict markers in
// DIR (arg: no version; no flag but concludeFlags).
func runConclude(ctx context.Context, f *updateFlags, arg string, out io.Writer) error {
	flag, err := concludeFlag(f)
	if err != nil {
		return err
	}
	if dir, version, err := splitArg(arg); err == nil && version != "" {
		return fmt.Errorf("%s takes DIR without a version (%s@%s): the update in progress records the release it was started for", flag, dir, version)
	}
	maxFileSize, err := parseSize(f.maxFileSize)
	if err != nil {
		return fmt.Errorf("--max-file-size %w", err)
	}
	opts := pkgupdate.Options{Dir: arg, MaxFileSize: maxFileSize, LockTimeout: f.lockTimeout, Log: f.log}
	var rep *pkgupdate.Report
	if f.cont {
		rep, err = pkgupdate.Continue(ctx, opts)
	} else {
		rep, err = pkgupdate.Abort(ctx, opts)
	}
	if f.output == "json" {
		if encErr := writeJSON(out, rep, arg, err); encErr != nil && err == nil {
			err = encErr
		}
		return err
	}
	if rep != nil {
		if rep.Recovered != "" {
			fmt.Fprintf(out, "Recovered: %s.\n", rep.Recovered)
		}
		if len(rep.Files) > 0 && err == nil {
			fmt.Fprintln(out, "Files:")
			for _, fc := range rep.Files {
				fmt.Fprintf(out, "  %-8s %s\n", fc.Action, scrub.Escape(fc.Path))
			}
		}
	}
	switch {
	case err != nil:
	case rep.Recovered != "" && len(rep.Files) == 0:
		fmt.Fprintf(out, "No update of %s is in progress any more.\n", scrub.Escape(arg))
	case f.cont:
		fmt.Fprintf(out, "Update of %s concluded: the new release is recorded.\n", scrub.Escape(arg))
	default:
		fmt.Fprintf(out, "Update of %s aborted: the package is as it was before it.\n", scrub.Escape(arg))
	}
	return err
}

// concludeFlag is "--continue" or "--abort", whichever f gives. Errors: both given;
// a flag given that they refuse (refusedWithConclude), naming it.
func concludeFlag(f *updateFlags) (string, error) {
	flag := "--continue"
	if f.abort {
		flag = "--abort"
	}
	if f.cont && f.abort {
		return "", fmt.Errorf("--continue and --abort: give one")
	}
	if bad := refusedWithConclude(f.given); len(bad) > 0 {
		return "", fmt.Errorf("%s takes no %s: it concludes the update in progress as it was started", flag, strings.Join(bad, ", "))
	}
	return flag, nil
}

// mergeSettings are pkg update's merge settings from the loaded functionConfig cfg
// (its plan acts as --plan): cfg.MergeSettings, as they are. Errors: cfg sets what pkg
// update decides itself, each named: a mode other than 3way, a role path,
// keepSources, inline sources.
func mergeSettings(cfg *config.Config) (*config.MergeSettings, error) {
	var bad []string
	if cfg.Mode != vocab.ThreeWay {
		bad = append(bad, fmt.Sprintf("%s is %s; pkg update is a 3-way merge", config.KeyMode, cfg.Mode))
	}
	for _, f := range []struct{ key, v string }{{config.KeyOriginalPath, cfg.OriginalPath}, {config.KeyUpdatedPath, cfg.UpdatedPath},
		{config.KeyDestPath, cfg.DestPath}, {config.KeySrcPath, cfg.SrcPath}} {
		if f.v != "" {
			bad = append(bad, f.key+" is set; pkg update chooses the roles itself")
		}
	}
	if cfg.KeepSources {
		bad = append(bad, config.KeyKeepSources+" is set; pkg update writes only the package")
	}
	if cfg.Inline() {
		bad = append(bad, "inline sources (spec.original, spec.updated, spec.src) are set; pkg update fetches them")
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("merge config: %s", strings.Join(bad, "; "))
	}
	m := cfg.MergeSettings
	return &m, nil
}

// loadConfig reads a functionConfig file as the function reads its functionConfig;
// "" is the defaults. setsOnConflict reports whether the file gives onConflict (data
// or spec, aliases followed), so that its value, even the function's default, wins over
// the command's. Errors name the file and the field.
func loadConfig(file string) (cfg *config.Config, setsOnConflict bool, err error) {
	if file == "" {
		return config.Defaults(), false, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, false, fmt.Errorf("--config: %w", err)
	}
	n, err := yaml.Parse(string(b))
	if err != nil {
		return nil, false, fmt.Errorf("--config %s: %w", file, err)
	}
	cfg, err = function.LoadConfig(n)
	if err != nil {
		return nil, false, fmt.Errorf("--config %s: %w", file, err)
	}
	return cfg, setsKey(n, config.KeyOnConflict), nil
}

// setsKey reports whether the functionConfig fc, which function.LoadConfig accepted,
// gives key: under data in a ConfigMap, under spec in a ResourceMerge, YAML aliases
// and merge keys expanded as the loader expands them.
func setsKey(fc *yaml.RNode, key string) bool {
	c := fc.Copy()
	if err := c.DeAnchor(); err != nil { // the loader expanded them already
		return false
	}
	for _, form := range []string{"data", "spec"} {
		if v, err := c.Pipe(yaml.Lookup(form, key)); err == nil && v != nil {
			return true
		}
	}
	return false
}

// interruptible is c's context (context.Background when it has none), cancelled by
// Ctrl-C or a TERM: git ends, with every process it started, and an update stops
// before it writes; a write under way finishes or is undone (all or nothing). The
// returned func releases the signals.
func interruptible(c *cobra.Command) (context.Context, context.CancelFunc) {
	ctx := c.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}
