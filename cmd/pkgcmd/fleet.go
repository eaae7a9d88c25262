package pkgcmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/krm-merge/krm-merge/pkg/pkgupdate"
)

// isFleet reports whether `pkg update` with flags f and args runs over a fleet (more
// than one DIR, --all, --shard, --jobs or --output markdown) rather than one package.
func isFleet(f *updateFlags, args []string) bool {
	return len(args) != 1 || f.all || f.shard != "" || f.jobs != 0 || f.output == "markdown"
}

// runFleetUpdate runs `pkg update` over a fleet (isFleet): the packages args name
// (DIR[@VERSION] each, or the roots of --all, "." when none), --continue and --abort
// over them too, and writes the fleet's report to out as --output says (text: a line
// per package as it is done, then the summary; json: a JSON Lines record per package
// as it is done; markdown: a pull request's body, at the end). Its error is the
// report's (*pkgupdate.FleetError, whose exit status is 1 or 2) or the run's.
func runFleetUpdate(ctx context.Context, f *updateFlags, args []string, out io.Writer) error {
	if f.output != "text" && f.output != "json" && f.output != "markdown" {
		return fmt.Errorf("--output %q: want text, json or markdown", f.output)
	}
	if f.repo != "" || f.directory != "" || f.from != "" {
		return fmt.Errorf("--repo, --directory and --from are for one directory without a Kptfile upstream, not for several packages")
	}
	opts, err := fleetOptions(f, args)
	if err != nil {
		return err
	}
	var writeErr error
	if f.output != "markdown" { // each row as it comes; its report is not needed after
		opts.Each = func(p *pkgupdate.FleetPackage) {
			if f.output == "json" {
				if err := writeEscapedJSONLine(out, p); err != nil && writeErr == nil {
					writeErr = err
				}
			} else {
				printFleetRow(out, p, f.plan)
			}
			p.Report = nil
		}
	}
	var rep *pkgupdate.FleetReport
	switch {
	case f.cont || f.abort:
		if _, err := concludeFlag(f); err != nil {
			return err
		}
		if f.cont {
			rep, err = pkgupdate.ContinueFleet(ctx, opts)
		} else {
			rep, err = pkgupdate.AbortFleet(ctx, opts)
		}
	default:
		if err := updateSettings(f, &opts.Update); err != nil {
			return err
		}
		rep, err = pkgupdate.UpdateFleet(ctx, opts)
	}
	if err != nil {
		return err
	}
	switch f.output {
	case "json":
		if writeErr != nil {
			return writeErr
		}
	case "markdown":
		writeFleetMarkdown(out, rep)
	default:
		printFleetSummary(out, rep)
	}
	return rep.Err()
}

// fleetOptions reads the packages and the fleet flags (--all, --to, --shard, --jobs)
// and the limits every package's update and conclusion take. Errors: a bad DIR@VERSION
// (splitArg's), a version given with --all (--to gives it), --to with a version, a bad
// --shard, --jobs or size.
func fleetOptions(f *updateFlags, args []string) (pkgupdate.FleetOptions, error) {
	opts := pkgupdate.FleetOptions{To: f.to, Jobs: f.jobs}
	if f.jobs < 0 {
		return opts, fmt.Errorf("--jobs %d: want a positive number of packages at once, or 0 for the number of CPUs", f.jobs)
	}
	if f.shard != "" {
		s, err := pkgupdate.ParseShard(f.shard)
		if err != nil {
			return opts, fmt.Errorf("--shard: %w", err)
		}
		opts.Shard = s
	}
	if f.all && len(args) == 0 {
		args = []string{"."}
	}
	for _, a := range args {
		dir, version, err := splitArg(a)
		if err != nil {
			return opts, err
		}
		switch {
		case version != "" && f.all:
			return opts, fmt.Errorf("%s: --all takes directories to look under; give the version with --to", a)
		case version != "" && f.to != "":
			return opts, fmt.Errorf("the version is given twice (%s@%s and --to %s)", dir, version, f.to)
		case f.all:
			opts.Roots = append(opts.Roots, dir)
		default:
			opts.Targets = append(opts.Targets, pkgupdate.Target{Dir: dir, Version: version})
		}
	}
	maxFileSize, err := parseSize(f.maxFileSize)
	if err != nil {
		return opts, fmt.Errorf("--max-file-size %w", err)
	}
	opts.Update = pkgupdate.Options{MaxFileSize: maxFileSize, LockTimeout: f.lockTimeout, Log: f.log}
	return opts, nil
}

// updateSettings fills u with what each package's update takes from the flags and
// --config: the merge settings, --plan, --allow-dirty, the cache and the git limits.
// Errors: a bad --config, --on-conflict or size, naming it.
func updateSettings(f *updateFlags, u *pkgupdate.Options) error {
	maxFetchSize, err := parseSize(f.maxFetchSize)
	if err != nil {
		return fmt.Errorf("--max-fetch-size %w", err)
	}
	cfg, configSets, err := loadConfig(f.config)
	if err != nil {
		return err
	}
	if cfg.OnConflict, err = conflictPolicy(f.onConflict, cfg.OnConflict, configSets); err != nil {
		return err
	}
	cfg.ShowSecretValues = cfg.ShowSecretValues || f.showSecretValues
	if u.Merge, err = mergeSettings(cfg); err != nil {
		return err
	}
	u.Plan, u.AllowDirty, u.CacheDir = f.plan || cfg.Plan, f.allowDirty, f.cacheDir
	u.MaxFetchSize, u.GitTimeout, u.Timeout = maxFetchSize, f.gitTimeout, f.timeout
	return nil
}

// concludeCommand is the command that concludes the packages of rep left at conflict
// markers, as the report prints it: `krm-merge pkg update` with those packages'
// directories, shell-quoted (the caller adds --continue or --abort).
func concludeCommand(rep *pkgupdate.FleetReport) string {
	parts := []string{"krm-merge", "pkg", "update"}
	for _, p := range rep.Packages {
		if p.Status == pkgupdate.StatusMarked {
			parts = append(parts, shellQuote(p.Dir))
		}
	}
	return strings.Join(parts, " ")
}

// shellQuote is s as one word of a POSIX shell command: as it is when it holds only
// characters no shell treats specially, else in single quotes (a ' inside as '\”).
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@+,%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
