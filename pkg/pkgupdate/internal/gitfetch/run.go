package gitfetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// TimeoutEnv names the environment variable that sets DefaultTimeout, as a Go duration
// ("90s", "20m").
const TimeoutEnv = "KRM_MERGE_GIT_TIMEOUT"

// ErrTimeout is wrapped by the error of a git command killed at the fetcher's timeout,
// and of a wait for a cache repository's lock given up at it.
var ErrTimeout = errors.New("timed out")

// DefaultTimeout is the limit of every git command (and of the wait for a cache
// repository's lock) when Fetcher.Timeout is 0: $KRM_MERGE_GIT_TIMEOUT as a Go
// duration, else 5 minutes.
// Error: the variable is set but is no positive duration (naming it).
func DefaultTimeout() (time.Duration, error) {
	v := os.Getenv(TimeoutEnv)
	if v == "" {
		return 5 * time.Minute, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration such as 90s or 20m", TimeoutEnv, v)
	}
	return d, nil
}

// MinGitVersion is the oldest git the fetcher runs: `--end-of-options` (2.24),
// `git config --show-scope` (2.26), and git's own check that a repository it finds is
// the user's (safe.directory, 2.35.2: an older git runs the configuration of a .git
// another user planted above the package).
const MinGitVersion = "2.35.2"

// gitConfig is given to every git command with -c, where it takes precedence over
// every configuration file (system, global, the repository's own):
var gitConfig = []string{
	// No hook of the repository git runs in, nor of the user's core.hooksPath, runs:
	// the cache is a store of objects, and fetch and update-ref run the
	// reference-transaction hook.
	"core.hooksPath=/dev/null",
	// No file system monitor command runs.
	"core.fsmonitor=false",
	// No command lists the refs of an alternate object store (the cache has none:
	// checkRepository); `true` prints none.
	"core.alternateRefsCommand=true",
	// Never into submodules.
	"submodule.recurse=false",
	"fetch.recurseSubmodules=false",
	// No bundle a server advertises is downloaded (git 2.42 and later).
	"transfer.bundleURI=false",
	// Every object fetched is checked (git fsck's checks): malformed objects, and trees
	// with duplicate entries, `.git`, `..` or '/' in names.
	"fetch.fsckObjects=true",
}

// fsckIgnored are the findings of fetch.fsckObjects that are accepted: malformed
// metadata of old or converted history (commit and tag dates and identities written
// by early or foreign tools), and zero-padded tree modes (written by git before 2005
// and still in well-known repositories' history). None concerns the names or kinds of
// the files fetched. Source: fsck.<msg-id> in git-config(1).
var fsckIgnored = []string{"zeroPaddedFilemode", "badTimezone", "badDate", "badDateOverflow", "zeroPaddedDate",
	"missingSpaceBeforeDate", "missingEmail", "badEmail", "badName", "missingNameBeforeEmail", "missingSpaceBeforeEmail"}

// fsckRefused are the findings always refused, even when the user's configuration
// ignores them: the ones about the names in a tree.
var fsckRefused = []string{"duplicateEntries", "treeNotSorted", "hasDot", "hasDotdot", "hasDotgit", "fullPathname", "emptyName"}

// ConfigArgs are the -c arguments ("-c", "core.hooksPath=/dev/null", ...) the fetcher
// gives every git command: no hooks, no fsmonitor, no submodules, no bundle URIs,
// checked fetches (fsckIgnored ignored, fsckRefused refused). A caller running git
// elsewhere (in the package's work tree) puts them before the subcommand, so that no
// repository configuration runs a command.
func ConfigArgs() []string {
	var out []string
	for _, c := range gitConfig {
		out = append(out, "-c", c)
	}
	for _, id := range fsckIgnored {
		out = append(out, "-c", "fetch.fsck."+id+"=ignore")
	}
	for _, id := range fsckRefused {
		out = append(out, "-c", "fetch.fsck."+id+"=error")
	}
	return out
}

// repositoryEnv are the variables that point git at another repository, index or
// object store (git rev-parse --local-env-vars, less the user's own configuration): a
// krm-merge run from a git hook inherits them, and they would redirect the cache's
// commands into the user's repository.
var repositoryEnv = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_GRAFT_FILE", "GIT_SHALLOW_FILE",
	"GIT_REPLACE_REF_BASE", "GIT_IMPLICIT_WORK_TREE", "GIT_PREFIX", "GIT_INTERNAL_SUPER_PREFIX", "GIT_QUARANTINE_PATH"}

// Environ is the environment of every git command the fetcher runs, as os.Environ
// gives it ("NAME=value" entries): the user's (credentials, proxies, ssh settings)
// without the variables that point git at another repository (those a git hook
// inherits), and no prompt, C messages, only AllowedProtocols, no replace refs. A
// caller running git elsewhere (in the package's work tree) gives it too, with
// ConfigArgs.
func Environ() []string { return gitEnv() }

// gitEnv is Environ.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, v := range repositoryEnv {
			drop = drop || name == v
		}
		if !drop {
			env = append(env, kv)
		}
	}
	return append(env, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_ALLOW_PROTOCOL="+AllowedProtocols,
		"GIT_NO_REPLACE_OBJECTS=1")
}

// GitError is a failed git command.
type GitError struct {
	// Args are git's arguments (without the cache's --git-dir and the -c settings).
	Args []string
	// Msg is git's error output (or the exec error when git printed none).
	Msg string
	// Err is the exec error, or ErrTimeout.
	Err error
}

// Error is "git <args>: <git's message>".
func (e *GitError) Error() string {
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), e.Msg)
}

// Unwrap returns the exec error or ErrTimeout.
func (e *GitError) Unwrap() error { return e.Err }

// setup checks git (on PATH, at least MinGitVersion) and the timeout, once per Fetcher.
func (f *Fetcher) setup(ctx context.Context) error {
	if err := CheckGit(); err != nil {
		return err
	}
	if f.timeout != 0 {
		return nil
	}
	t := f.Timeout
	if t <= 0 {
		d, err := DefaultTimeout()
		if err != nil {
			return err
		}
		t = d
	}
	f.timeout = t
	out, err := f.run(ctx, runOpts{}, "version")
	if err != nil {
		f.timeout = 0
		return err
	}
	if !versionAtLeast(out, MinGitVersion) {
		f.timeout = 0
		return fmt.Errorf("%s: krm-merge needs git %s or newer (it ends git's options with --end-of-options, and an older git "+
			"runs the configuration of a repository another user owns)", strings.TrimSpace(out), MinGitVersion)
	}
	return nil
}

var versionRE = regexp.MustCompile(`(\d+)\.(\d+)(?:\.(\d+))?`)

// versionAtLeast reports whether `git version`'s output names min ("2.35.2") or
// later; a missing patch number is 0.
func versionAtLeast(out, min string) bool {
	have, want := versionRE.FindStringSubmatch(out), versionRE.FindStringSubmatch(min)
	if have == nil {
		return false
	}
	for i := 1; i <= 3; i++ {
		h, _ := strconv.Atoi(have[i])
		w, _ := strconv.Atoi(want[i])
		if h != w {
			return h > w
		}
	}
	return true
}

// runOpts says where a git command runs.
type runOpts struct {
	gitDir string    // --git-dir, when set
	dir    string    // working directory, when set
	stdin  io.Reader // standard input, when set
	config []string  // more -c settings, after ConfigArgs
	env    []string  // more environment, after gitEnv
}

// command is git with args, hardened (ConfigArgs, gitEnv), in a session and process
// group of its own, killed with its whole group at the fetcher's timeout or when ctx
// ends. The caller calls done when the command has been waited for.
func (f *Fetcher) command(ctx context.Context, o runOpts, args ...string) (cmd *exec.Cmd, tctx context.Context, done func()) {
	var full []string
	if o.gitDir != "" {
		full = []string{"--git-dir", o.gitDir}
	}
	full = append(full, ConfigArgs()...)
	for _, c := range o.config {
		full = append(full, "-c", c)
	}
	full = append(full, args...)
	tctx, cancel := context.WithTimeout(ctx, f.timeout)
	cmd = exec.CommandContext(tctx, "git", full...)
	cmd.Env = append(gitEnv(), o.env...)
	cmd.Dir = o.dir
	cmd.Stdin = o.stdin
	// A session of its own: git and every process it starts (ssh, upload-pack, a
	// credential helper) share one process group, killed together; and none has a
	// terminal, so that ssh fails at once where it would prompt (a stopped prompt in a
	// background process group would wait for the timeout).
	cmd.SysProcAttr = procAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A process git left behind holding its output (ssh's ControlPersist master) does
	// not hold the fetcher.
	cmd.WaitDelay = 2 * time.Second
	return cmd, tctx, cancel
}

// run runs git and returns its stdout. Errors: a *GitError naming the command with
// git's message, wrapping ErrTimeout when it was killed at the timeout; ctx's error
// when ctx ended.
func (f *Fetcher) run(ctx context.Context, o runOpts, args ...string) (string, error) {
	cmd, tctx, done := f.command(ctx, o, args...)
	defer done()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), f.gitError(ctx, tctx, args, stderr.String(), err)
}

// gitError turns a git command's outcome into the error run describes (nil for none).
func (f *Fetcher) gitError(ctx, tctx context.Context, args []string, stderr string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("git %s: %w", strings.Join(args, " "), ctx.Err())
	}
	if tctx.Err() != nil {
		return &GitError{Args: args, Err: ErrTimeout, Msg: fmt.Sprintf(
			"timed out after %v, and was stopped (every git command krm-merge runs has this limit; set %s, e.g. %s=20m, to raise it)",
			f.timeout, TimeoutEnv, TimeoutEnv)}
	}
	if err == nil {
		return nil
	}
	msg := strings.TrimSpace(stderr)
	if msg == "" {
		msg = err.Error()
	}
	return &GitError{Args: args, Msg: msg, Err: err}
}
