package pkgcmd

import (
	"bytes"
	"context"
	"encoding/json"
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
	"unicode"
	"unicode/utf16"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/gitfetch"
	"github.com/krm-merge/krm-merge/internal/pkgio"
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
	return pkg
}

type updateFlags struct {
	config, onConflict, output string
	plan, allowDirty           bool
	cont, abort                bool
	showSecretValues           bool
	repo, directory, from, to  string
	cacheDir                   string
	maxFileSize                string
	gitTimeout                 time.Duration
	log                        func(string) // progress messages, on stderr
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

With --on-conflict mark, every conflict no value merge settles is written into its
file as git-style markers around its lines (<<<<<<< local, ||||||| the old release
with its lines, =======, >>>>>>> the new release), which editors' merge tools read;
each side alone parses. A binary file changed on both sides, or a path that is a file
on one side and a directory on the other, keeps the local copy and gets upstream's
beside it (FILE.<new release>). Everything without a conflict is updated; the Kptfile
keeps the old release, and the command exits 1 listing the markers. Resolve them, then
run --continue (refused while a marker is left, a file does not parse or an upstream
version is still beside its file) to record the new release, or --abort to put DIR
back exactly as it was. Until then every other update of DIR, of a package above it
or of one inside it is refused.

A directory without a Kptfile upstream (a kustomize base or plain manifests vendored
from git) is updated with --repo, --from and the new version (DIR@VERSION or --to);
nothing is recorded.

In DIR@VERSION, an existing directory decides where the @ splits: a@2/pkg is the
directory a@2/pkg, pkg@release/1.2 is pkg at the branch release/1.2 (--to VERSION
is never ambiguous). DIR may be reached
through a symbolic link. Only regular files are read, in DIR and in both releases, none
over --max-file-size; a symbolic link, FIFO, device or socket is an error naming it. A
path that is a file on one side and a directory on the other is a conflict like any
other, never a silent deletion. Names and values are printed with control characters
escaped (\x1b); binary files are never printed.

Exit status: 0 on success, 1 on an error, when --on-conflict error finds conflicts, or
when --on-conflict mark wrote markers.
git must be installed; the krm-merge container image has none.`

const updateExample = `  # take release v0.4.4 of the package fetched into my-project
  krm-merge pkg update my-project@project-blueprint-v0.4.4

  # what would change, without writing anything
  krm-merge pkg update my-project@project-blueprint-v0.4.4 --plan

  # fail (in CI) when the upgrade conflicts with local changes
  krm-merge pkg update my-project@v2 --on-conflict error --output json

  # resolve conflicts by hand: markers in the files, then conclude (or undo)
  krm-merge pkg update my-app@v2 --on-conflict mark
  krm-merge pkg update my-app --continue
  krm-merge pkg update my-app --abort

  # a kustomize base vendored from git without a Kptfile
  krm-merge pkg update bases --repo https://github.com/fluxcd/flux2 \
      --directory /manifests/bases --from v2.7.0 --to v2.9.4`

func updateCommand() *cobra.Command {
	f := &updateFlags{}
	cmd := &cobra.Command{
		Use:           "update DIR[@VERSION]",
		Short:         "Update a package to a new upstream release with krm-merge's 3-way merge",
		Long:          updateLong,
		Example:       updateExample,
		Args:          cobra.ExactArgs(1),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			// Ctrl-C or a TERM ends git (with every process it started) and the update
			// before it writes; a write under way finishes or is undone (all or nothing).
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
			defer stop()
			f.log = func(msg string) { fmt.Fprintln(c.ErrOrStderr(), pkgio.Escape(msg)) }
			err := runUpdate(ctx, f, args[0], c.OutOrStdout())
			if err != nil && f.output != "json" {
				printError(c.ErrOrStderr(), err)
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "merge options: a functionConfig file (fn.krm-merge.dev/v1alpha1 ResourceMerge or ConfigMap), as for the function")
	fl.StringVar(&f.onConflict, "on-conflict", "", "conflict policy, overriding the config's onConflict: updated, dest, error, or mark (conflict markers in the files)")
	fl.BoolVar(&f.showSecretValues, "show-secret-values", false, "print a Secret's data and stringData values in conflict and plan lines (the config's showSecretValues); without it they are redacted")
	fl.BoolVar(&f.cont, "continue", false, "conclude an update stopped at conflict markers, once they are resolved: record the new release")
	fl.BoolVar(&f.abort, "abort", false, "undo an update stopped at conflict markers: DIR exactly as before it")
	fl.StringVar(&f.output, "output", "text", "output format: text or json")
	fl.BoolVar(&f.plan, "plan", false, "print what the update would change and change nothing")
	fl.BoolVar(&f.allowDirty, "allow-dirty", false, "update a package with uncommitted changes in git")
	fl.StringVar(&f.repo, "repo", "", "upstream repository, for a directory without a Kptfile upstream")
	fl.StringVar(&f.directory, "directory", "", "the package's directory in --repo (default the root)")
	fl.StringVar(&f.from, "from", "", "the upstream version the directory was made from (with --repo)")
	fl.StringVar(&f.to, "to", "", "the upstream version to update to (instead of DIR@VERSION)")
	fl.StringVar(&f.cacheDir, "cache-dir", "", "git cache directory (default $KRM_MERGE_CACHE_DIR, else ~/.cache/krm-merge/git)")
	fl.StringVar(&f.maxFileSize, "max-file-size", "64MiB", "the size limit of every file read, in DIR and in the upstream releases: bytes, or with KiB, MiB or GiB")
	fl.DurationVar(&f.gitTimeout, "git-timeout", 0, "the time limit of every git command and of the wait for the git cache's lock, e.g. 90s or 20m (default $KRM_MERGE_GIT_TIMEOUT, else 5m)")
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
		return fmt.Errorf("--output %q: want text or json", f.output)
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
	cfg, err := loadConfig(f.config)
	if err != nil {
		return err
	}
	if f.onConflict != "" {
		switch p := vocab.ConflictPolicy(f.onConflict); p {
		case vocab.UpdatedWins, vocab.DestWins, vocab.FailOnConflict, vocab.MarkConflicts:
			cfg.OnConflict = p
		default:
			return fmt.Errorf("--on-conflict %q: want updated, dest, error or mark", f.onConflict)
		}
	}
	cfg.ShowSecretValues = cfg.ShowSecretValues || f.showSecretValues
	var rep *pkgupdate.Report
	merge, err := mergeOptions(cfg)
	if err == nil {
		rep, err = pkgupdate.Update(ctx, pkgupdate.Options{
			Dir: dir, Version: version, Repo: f.repo, Directory: f.directory, From: f.from,
			Merge: merge, Plan: f.plan || cfg.Plan, AllowDirty: f.allowDirty, CacheDir: f.cacheDir,
			MaxFileSize: maxFileSize, GitTimeout: f.gitTimeout, Log: f.log,
		})
	}
	if errors.Is(err, gitfetch.ErrTimeout) {
		err = fmt.Errorf("%w (raise the limit with --git-timeout or %s)", err, gitfetch.TimeoutEnv)
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
// DIR (arg: no version; no other update flag).
func runConclude(ctx context.Context, f *updateFlags, arg string, out io.Writer) error {
	flag := "--continue"
	if f.abort {
		flag = "--abort"
	}
	if f.cont && f.abort {
		return fmt.Errorf("--continue and --abort: give one")
	}
	var bad []string
	for _, o := range []struct {
		name string
		set  bool
	}{{"--config", f.config != ""}, {"--on-conflict", f.onConflict != ""}, {"--plan", f.plan}, {"--allow-dirty", f.allowDirty},
		{"--repo", f.repo != ""}, {"--directory", f.directory != ""}, {"--from", f.from != ""}, {"--to", f.to != ""}, {"--cache-dir", f.cacheDir != ""}} {
		if o.set {
			bad = append(bad, o.name)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s takes no %s: it concludes the update in progress as it was started", flag, strings.Join(bad, ", "))
	}
	if dir, version, err := splitArg(arg); err == nil && version != "" {
		return fmt.Errorf("%s takes DIR without a version (%s@%s): the update in progress records the release it was started for", flag, dir, version)
	}
	maxFileSize, err := parseSize(f.maxFileSize)
	if err != nil {
		return fmt.Errorf("--max-file-size %w", err)
	}
	opts := pkgupdate.Options{Dir: arg, MaxFileSize: maxFileSize}
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
				fmt.Fprintf(out, "  %-8s %s\n", fc.Action, pkgio.Escape(fc.Path))
			}
		}
	}
	switch {
	case err != nil:
	case rep.Recovered != "" && len(rep.Files) == 0:
		fmt.Fprintf(out, "No update of %s is in progress any more.\n", pkgio.Escape(arg))
	case f.cont:
		fmt.Fprintf(out, "Update of %s concluded: the new release is recorded.\n", pkgio.Escape(arg))
	default:
		fmt.Fprintf(out, "Update of %s aborted: the package is as it was before it.\n", pkgio.Escape(arg))
	}
	return err
}

// writeJSON writes the report (or an empty one for dir) and the error as one JSON
// document. encoding/json escapes C0 controls, U+2028 and U+2029; every other character
// a terminal could act on (DEL, C1 controls, bidi and other format characters) is
// escaped as \uXXXX too, so that the document can be shown on a terminal as it is; it
// decodes to the same values.
func writeJSON(out io.Writer, rep *pkgupdate.Report, dir string, err error) error {
	doc := struct {
		*pkgupdate.Report
		Error string `json:"error,omitempty"`
	}{Report: rep}
	if rep == nil {
		doc.Report = &pkgupdate.Report{Dir: dir}
	}
	if err != nil {
		doc.Error = err.Error()
	}
	b, encErr := json.MarshalIndent(doc, "", "  ")
	if encErr != nil {
		return encErr
	}
	var w bytes.Buffer
	for _, r := range string(b) { // valid UTF-8: encoding/json replaced invalid bytes
		switch {
		case r == '\n' || unicode.IsGraphic(r):
			w.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&w, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&w, `\u%04x`, r)
		}
	}
	w.WriteByte('\n')
	_, encErr = out.Write(w.Bytes())
	return encErr
}

// printError writes "Error: " and err for a person, escaped line by line (pkgio.Escape:
// a file name in it may hold escape bytes).
func printError(w io.Writer, err error) {
	lines := strings.Split(err.Error(), "\n")
	for i := range lines {
		lines[i] = pkgio.Escape(lines[i])
	}
	fmt.Fprintln(w, "Error:", strings.Join(lines, "\n"))
}

// mergeOptions are pkg update's merge settings from the loaded functionConfig cfg (its
// plan acts as --plan). Errors: cfg sets what pkg update decides itself, each named:
// a mode other than 3way, a role path, keepSources, inline sources.
func mergeOptions(cfg *config.Config) (*pkgupdate.MergeOptions, error) {
	var bad []string
	if cfg.Mode != vocab.ThreeWay {
		bad = append(bad, fmt.Sprintf("mode is %s; pkg update is a 3-way merge", cfg.Mode))
	}
	for _, f := range []struct{ key, v string }{{"originalPath", cfg.OriginalPath}, {"updatedPath", cfg.UpdatedPath},
		{"destPath", cfg.DestPath}, {"srcPath", cfg.SrcPath}} {
		if f.v != "" {
			bad = append(bad, f.key+" is set; pkg update chooses the roles itself")
		}
	}
	if cfg.KeepSources {
		bad = append(bad, "keepSources is set; pkg update writes only the package")
	}
	if cfg.Inline() {
		bad = append(bad, "inline sources (spec.original, spec.updated, spec.src) are set; pkg update fetches them")
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("merge config: %s", strings.Join(bad, "; "))
	}
	return &pkgupdate.MergeOptions{OnConflict: cfg.OnConflict, RoleAnnotation: cfg.RoleAnnotation,
		MergeOnPath: cfg.MergeOnPath, ValueMerge: cfg.ValueMerge, Schema: cfg.Schema,
		AssociativeKeys: cfg.AssociativeKeys, MergeKeys: cfg.MergeKeys, FieldRules: cfg.FieldRules, ShowSecretValues: cfg.ShowSecretValues}, nil
}

// loadConfig reads a functionConfig file as the function reads its functionConfig;
// "" is the defaults. Errors name the file and the field.
func loadConfig(file string) (*config.Config, error) {
	if file == "" {
		return config.Defaults(), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	n, err := yaml.Parse(string(b))
	if err != nil {
		return nil, fmt.Errorf("--config %s: %w", file, err)
	}
	cfg, err := function.LoadConfig(n)
	if err != nil {
		return nil, fmt.Errorf("--config %s: %w", file, err)
	}
	return cfg, nil
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// printReport writes the report for a person. Every name, path, field, value and diff
// line comes from the package or the upstream and is escaped (pkgio.Escape; diff
// lines keep their tabs): raw escape bytes could clear the screen and fake the plan.
func printReport(w io.Writer, r *pkgupdate.Report, err error) {
	esc := pkgio.Escape
	if r.Recovered != "" {
		fmt.Fprintf(w, "Recovered: %s.\n", r.Recovered)
	}
	for _, p := range r.Packages {
		name := r.Dir
		if p.Path != "." {
			name = strings.TrimSuffix(r.Dir, "/") + "/" + p.Path
		}
		cache := ""
		if p.From.Cached && p.To.Cached {
			cache = " (from the git cache)"
		}
		fmt.Fprintf(w, "Package %q: %s%s %s (%s) -> %s (%s)%s\n", name, esc(p.Repo), esc(dirSuffix(p.Directory)),
			esc(p.From.Ref), esc(short(p.From.Commit)), esc(p.To.Ref), esc(short(p.To.Commit)), cache)
		c := p.Counts
		fmt.Fprintf(w, "  resources: %d merged, %d added, %d deleted, %d kept", c.Merged, c.Added, c.Deleted, c.Kept)
		if c.StayedDeleted > 0 {
			fmt.Fprintf(w, ", %d stayed deleted locally", c.StayedDeleted)
		}
		fmt.Fprintf(w, "; conflicts: %d\n", len(p.Conflicts))
		for _, rc := range p.Resources {
			fmt.Fprintf(w, "  %-8s %s (%s)\n", rc.Action, esc(rc.Resource), esc(rc.File))
		}
		for _, cf := range p.Conflicts {
			fmt.Fprintf(w, "  conflict %s\n", cf)
		}
		for _, n := range p.MergedInside {
			fmt.Fprintf(w, "  merged   %s\n", n)
		}
		for _, n := range p.Warnings {
			fmt.Fprintf(w, "  warning  %s\n", n)
		}
		if r.Plan {
			for _, n := range p.Changes {
				fmt.Fprintf(w, "  change   %s\n", n)
			}
		}
	}
	if len(r.Files) > 0 {
		fmt.Fprintln(w, "Files:")
	}
	for _, f := range r.Files {
		fmt.Fprintf(w, "  %-8s %s\n", f.Action, esc(f.Path))
		if f.Diff != "" {
			for _, l := range strings.Split(strings.TrimSuffix(f.Diff, "\n"), "\n") {
				fmt.Fprintf(w, "    %s\n", pkgio.EscapeLine(l))
			}
		}
	}
	if len(r.Marks) > 0 {
		fmt.Fprintln(w, "Conflict markers:")
		for _, m := range r.Marks {
			fmt.Fprintf(w, "  %s\n", m)
		}
	}
	var ce *pkgupdate.ConflictError
	var me *pkgupdate.MarkedError
	switch {
	case errors.As(err, &ce):
		fmt.Fprintf(w, "Nothing written: %d conflicts under --on-conflict error.\n", ce.Conflicts)
	case errors.As(err, &me):
		fmt.Fprintf(w, "Updated everything else; the Kptfile still records the old release. Resolve each conflict above "+
			"(an editor's merge tool reads the markers), then run\n  krm-merge pkg update %s --continue\nor put the package back as it was with\n  krm-merge pkg update %s --abort\n",
			pkgio.Escape(me.Dir), pkgio.Escape(me.Dir))
	case r.Plan && len(r.Marks) > 0:
		fmt.Fprintf(w, "Plan: %d files would change, %d conflicts would be marked; nothing written.\n", len(r.Files), len(r.Marks))
	case err != nil:
	case r.Plan:
		fmt.Fprintf(w, "Plan: %d files would change; nothing written.\n", len(r.Files))
	case len(r.Files) == 0:
		fmt.Fprintln(w, "Already up to date: nothing changed.")
	default:
		fmt.Fprintf(w, "Updated %d package(s), %d files changed.\n", len(r.Packages), len(r.Files))
	}
}

func dirSuffix(d string) string {
	if d == "" || d == "/" {
		return ""
	}
	return " " + d
}
