package gitfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// WorkTree is what WorkTreeStatus found about the git work tree holding a directory.
type WorkTree struct {
	// Top is the top of the work tree ("" when the directory is in none).
	Top string
	// Changes are `git status --porcelain` lines for the directory: uncommitted
	// changes, untracked files included; empty when it is clean.
	Changes []string
	// Skipped, when not "", says why git was not run at all (one sentence naming the
	// repository and its owner): the repository is not the user's.
	Skipped string
}

// WorkTreeStatus reports the uncommitted changes under dir (absolute, links resolved)
// in the git work tree holding it, running git only in a repository that is the
// user's own.
//
// A repository's configuration runs commands in `git status` (filter drivers of
// info/attributes, core.fsmonitor), and another user can plant one where the user
// cannot stop it: a .git in a shared parent such as /tmp, read by git wherever its
// ownership check is off (safe.directory=* in a global configuration, common in CI
// images). So the repository is first found as git finds it (findRepository: the
// nearest directory above dir holding .git, or that is itself a repository, not
// crossing a filesystem boundary or GIT_CEILING_DIRECTORIES), and git runs only when
// its work tree, its .git and the directory a .git file points to (and its commondir)
// are owned by the user (git's own rule, ensure_valid_ownership), or when the user's
// protected configuration lists the work tree by name in safe.directory ("*" is not
// enough). Otherwise WorkTree.Skipped says so, and nothing runs. git then runs with
// safe.directory reset to that work tree alone and GIT_CEILING_DIRECTORIES above it,
// so that it reads no other repository, with ConfigArgs (no hooks, no fsmonitor) and
// without optional locks (GIT_OPTIONAL_LOCKS=0: a kill would leave index.lock behind).
//
// Errors: git missing (ErrNoGit) or older than MinGitVersion; a git command failed or timed out (*GitError, wrapping ErrTimeout), naming
// dir.
func WorkTreeStatus(ctx context.Context, dir string, timeout time.Duration) (WorkTree, error) {
	wt, git, err := openWorkTree(ctx, dir, timeout)
	if git == nil {
		return wt, err
	}
	out, err := git("status", "--porcelain", "--untracked-files=all", "--", ".")
	if err != nil {
		return WorkTree{}, fmt.Errorf("git status in %s: %w", dir, err)
	}
	if s := strings.TrimRight(out, "\n"); s != "" {
		wt.Changes = strings.Split(s, "\n")
	}
	return wt, nil
}

// openWorkTree finds the work tree holding dir and makes the checks WorkTreeStatus
// describes; git, when not nil, runs a git command in dir within timeout as
// WorkTreeStatus runs its status. git is nil, with wt saying why (no work tree, or
// Skipped), when git is not to run. Errors: WorkTreeStatus's.
func openWorkTree(ctx context.Context, dir string, timeout time.Duration) (wt WorkTree, git func(args ...string) (string, error), err error) {
	top, dotGit, found := findRepository(dir)
	if !found || top == "" {
		return WorkTree{}, nil, nil // in no work tree (or in a bare repository: none)
	}
	f := &Fetcher{Timeout: timeout}
	if err := f.setup(ctx); err != nil {
		return WorkTree{}, nil, err
	}
	wt = WorkTree{Top: top}
	listed := false
	if why := foreignRepository(top, dotGit); why != "" {
		if listed = f.listedSafe(ctx, top); !listed {
			wt.Skipped = fmt.Sprintf("the check for uncommitted changes was skipped: the git repository at %s is not yours (%s), "+
				"and its configuration could run commands as you; commit your changes before updating, or, if you trust the repository, "+
				"list it in git's safe.directory (git config --global --add safe.directory %s)", top, why, top)
			return wt, nil, nil
		}
	}
	o := runOpts{dir: dir, config: []string{"safe.directory="}, env: []string{"GIT_OPTIONAL_LOCKS=0"}}
	if listed {
		o.config = append(o.config, "safe.directory="+top)
	}
	if parent := filepath.Dir(top); parent != top {
		o.env = append(o.env, "GIT_CEILING_DIRECTORIES="+parent)
	}
	out, err := f.run(ctx, o, "rev-parse", "--show-toplevel")
	if err != nil || filepath.Clean(strings.TrimSpace(out)) != top {
		if ctx.Err() == nil && (err == nil || !isTimeout(err)) {
			return WorkTree{}, nil, nil // git reads no work tree there (a bare repository, core.bare)
		}
		return WorkTree{}, nil, fmt.Errorf("git in %s: %w", dir, err)
	}
	return wt, func(args ...string) (string, error) { return f.run(ctx, o, args...) }, nil
}

// isTimeout reports whether err is a git command killed at its timeout.
func isTimeout(err error) bool {
	var g *GitError
	return errors.As(err, &g) && g.Err == ErrTimeout
}

// findRepository finds the repository git would use for dir (absolute), as git's
// discovery does: the nearest directory D from dir up holding an entry .git (top is D,
// dotGit D/.git), or that is itself a git directory (a bare repository: top "", dotGit
// D); it stops at a filesystem boundary (unless GIT_DISCOVERY_ACROSS_FILESYSTEM is
// true) and does not go up into a directory of GIT_CEILING_DIRECTORIES.
func findRepository(dir string) (top, dotGit string, found bool) {
	ceilings := map[string]bool{}
	for _, c := range filepath.SplitList(os.Getenv("GIT_CEILING_DIRECTORIES")) {
		if filepath.IsAbs(c) {
			ceilings[filepath.Clean(c)] = true
		}
	}
	across := strings.EqualFold(os.Getenv("GIT_DISCOVERY_ACROSS_FILESYSTEM"), "true") || os.Getenv("GIT_DISCOVERY_ACROSS_FILESYSTEM") == "1"
	dev := func(p string) (uint64, bool) {
		fi, err := os.Stat(p)
		if err != nil {
			return 0, false
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		return uint64(st.Dev), ok
	}
	for d := filepath.Clean(dir); ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, filepath.Join(d, ".git"), true
		}
		if isGitDirectory(d) {
			return "", d, true
		}
		parent := filepath.Dir(d)
		if parent == d || ceilings[parent] {
			return "", "", false
		}
		if !across {
			a, okA := dev(d)
			b, okB := dev(parent)
			if !okA || !okB || a != b {
				return "", "", false
			}
		}
		d = parent
	}
}

// isGitDirectory reports whether d looks like a git directory to git
// (is_git_directory): objects/ and refs/ directories and a HEAD that is a symbolic ref
// or a commit id.
func isGitDirectory(d string) bool {
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(d, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	head, err := readSmall(filepath.Join(d, "HEAD"))
	return err == nil && (strings.HasPrefix(head, "ref: refs/") || fullSHA.MatchString(strings.TrimSpace(head)))
}

// readSmall reads the first 4 KiB of the regular file p.
func readSmall(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s: not a regular file", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	return string(b), err
}

// foreignRepository says why the repository with work tree top and .git entry dotGit
// is not the user's ("" when it is): top, dotGit (the entry, and what it leads to
// when it is a link), the git directory a .git file names and that directory's
// commondir must each be owned by the user.
func foreignRepository(top, dotGit string) string {
	check := []string{top, dotGit}
	fi, err := os.Lstat(dotGit)
	if err != nil {
		return err.Error()
	}
	if why := notMine(dotGit, fi); why != "" {
		return why
	}
	if fi, err = os.Stat(dotGit); err != nil {
		return err.Error()
	}
	gitDir := dotGit
	if fi.Mode().IsRegular() {
		content, err := readSmall(dotGit)
		if err != nil {
			return err.Error()
		}
		line, _, _ := strings.Cut(content, "\n")
		target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
		if !ok {
			return dotGit + " is no git directory or gitdir file"
		}
		gitDir = strings.TrimSpace(target)
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(top, gitDir)
		}
		check = append(check, gitDir)
	}
	if common, err := readSmall(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(common)
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		check = append(check, c)
	}
	for _, p := range check {
		fi, err := os.Stat(p)
		if err != nil {
			return err.Error()
		}
		if why := notMine(p, fi); why != "" {
			return why
		}
	}
	return ""
}

// notMine says who owns p (fi its stat) when it is not the user running; "" when it
// is.
func notMine(p string, fi os.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return p + ": owner unknown"
	}
	if int(st.Uid) != os.Geteuid() {
		return fmt.Sprintf("%s is owned by uid %d, you are uid %d", p, st.Uid, os.Geteuid())
	}
	return ""
}

// listedSafe reports whether the user's protected configuration lists p by name in
// safe.directory (safeDirectory without "*" and "<dir>/*").
func (f *Fetcher) listedSafe(ctx context.Context, p string) bool {
	return f.safeDirectoryRule(ctx, p, false)
}
