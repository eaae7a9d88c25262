package gitfetch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// CacheEnv names the environment variable that overrides the default cache directory.
const CacheEnv = "KRM_MERGE_CACHE_DIR"

// ErrTooLarge is wrapped by Export's error for a file over Fetcher.MaxFileSize, an
// export over Fetcher.MaxTotalSize, or a tree object over the file limit; the error
// names the file, its size and the limit.
var ErrTooLarge = errors.New("too large")

// ErrNoGit is returned (wrapped) by CheckGit when the git CLI is not on PATH.
var ErrNoGit = errors.New("git is not installed")

// CheckGit reports whether the git CLI is on PATH.
// Error: ErrNoGit wrapped in a message saying why git is needed and that the function's
// container image has none.
func CheckGit() error {
	if _, err := exec.LookPath("git"); err != nil {
		return fmt.Errorf("%w (not on PATH): krm-merge pkg update fetches upstream packages with the git CLI; "+
			"install git, or, inside the krm-merge container image (a KRM function image, which has no git), "+
			"run the krm-merge binary on the host instead", ErrNoGit)
	}
	return nil
}

// DefaultCacheDir is $KRM_MERGE_CACHE_DIR, else krm-merge/git under the user's cache
// directory (os.UserCacheDir, e.g. ~/.cache/krm-merge/git).
// Error: neither is available.
func DefaultCacheDir() (string, error) {
	if d := os.Getenv(CacheEnv); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (set %s): %w", CacheEnv, err)
	}
	return filepath.Join(d, "krm-merge", "git"), nil
}

// The limits of Export when the Fetcher's are 0.
const (
	// DefaultMaxFileSize is the largest file Export writes, in bytes (64 MiB): the
	// largest configuration file seen in packages is a few MB.
	DefaultMaxFileSize int64 = 64 << 20
	// DefaultMaxTotalSize is the most bytes one Export writes in all (512 MiB): the
	// package is read into memory next.
	DefaultMaxTotalSize int64 = 512 << 20
	// DefaultMaxFiles is the most files and directories one Export writes (100,000): a
	// tree that names one subtree many times over (a "git bomb") expands without end.
	DefaultMaxFiles = 100_000
	// DefaultMaxFetchSize is the most bytes one fetch downloads (1 GiB): the two
	// releases an update needs are fetched without their history, so this bounds
	// what an upstream's commit can make the cache grow by.
	DefaultMaxFetchSize int64 = 1 << 30
)

// Fetcher fetches from git repositories through a cache. The zero value uses
// DefaultCacheDir, DefaultTimeout and the default limits. It is not safe for concurrent
// use; separate processes are serialised per cached repository.
type Fetcher struct {
	// CacheDir holds one bare repository per remote URL (NormalizeURL's form). It is
	// created with mode 0700; it and each repository in it must be owned by the user
	// (or listed in git's safe.directory), writable by no one else (unless sticky), and
	// every directory above it owned by the user or root and writable by no one else
	// unless sticky. Links in it are resolved once, and the resolved path used.
	CacheDir string
	// Timeout bounds every git command the fetcher runs (its whole process group is
	// killed then) and the wait for another run's lock on a cache repository; 0 is
	// DefaultTimeout().
	Timeout time.Duration
	// Log, when set, is told (one line, no newline) when the fetcher waits for another
	// krm-merge run's lock on a cache repository; nil says nothing.
	Log func(string)
	// MaxFileSize is the largest file (blob) Export writes, in bytes; 0 is
	// DefaultMaxFileSize. MaxTotalSize bounds the bytes of one Export (0:
	// DefaultMaxTotalSize), MaxFiles its files and directories (0: DefaultMaxFiles).
	MaxFileSize, MaxTotalSize int64
	MaxFiles                  int
	// MaxFetchSize bounds the bytes one `git fetch` downloads into the cache (the
	// packs it writes); 0 is DefaultMaxFetchSize. A fetch past it is stopped and
	// nothing of it kept (fetchCapped).
	MaxFetchSize int64
	// Fetches counts the `git fetch` runs (downloads), Queries the `git ls-remote` runs.
	Fetches, Queries int
	// OneQueryPerRemote makes Resolve ask each remote once for the Fetcher's life: the
	// first Resolve of a repository lists all its branches and tags (`git ls-remote
	// --heads --tags`), and every later Resolve of it reads that answer (or its error).
	// For one update, which needs several refs of a remote (two releases, subpackages)
	// and should see one state of it; without it every Resolve asks anew.
	OneQueryPerRemote bool

	timeout   time.Duration         // the effective Timeout, set by setup
	cacheReal string                // CacheDir with links resolved, checked (resolveCacheDir)
	lockFile  *os.File              // the cache repository locked last (lock)
	remotes   map[string]remoteRefs // OneQueryPerRemote's answers, by normalised URL
}

// Resolved is a ref resolved to a commit.
type Resolved struct {
	// Ref is the ref as given.
	Ref string
	// Name is the full name it resolved to: refs/tags/<dir>/<ref>, refs/tags/<ref>,
	// refs/heads/<ref>, or "" for a commit id.
	Name string
	// Commit is the full commit id.
	Commit string
	// Cached is true when nothing was downloaded to resolve it.
	Cached bool
	// Warnings are what the caller should tell the user, one sentence each: a tag that
	// moved upstream (naming the cached and the new commit), a tag taken from the cache
	// because the remote could not be reached.
	Warnings []string
}

var fullSHA = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)
var shortSHA = regexp.MustCompile(`^[0-9a-f]{4,64}$`)

// commits returns the commit each of names (revisions the fetcher built: ref names,
// commit ids) resolves to in the cache, leaving out those that resolve to none; one
// `git cat-file --batch-check` reads them all from its input, where nothing is an option.
func (r *repo) commits(ctx context.Context, names ...string) (map[string]string, error) {
	var in strings.Builder
	for _, n := range names {
		in.WriteString(n + "^{commit}\n")
	}
	out, err := r.f.run(ctx, runOpts{gitDir: r.dir, stdin: strings.NewReader(in.String())},
		"cat-file", "--batch-check=%(objectname) %(objecttype)")
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	found := map[string]string{}
	for i, n := range names {
		if i < len(lines) {
			if id, typ, ok := strings.Cut(lines[i], " "); ok && typ == "commit" && fullSHA.MatchString(id) {
				found[n] = id
			}
		}
	}
	return found, nil
}

// localCommit returns the commit name resolves to in the cache, "" when it does not.
func (r *repo) localCommit(ctx context.Context, name string) (string, error) {
	c, err := r.commits(ctx, name)
	return c[name], err
}

// Resolve returns the commit ref names in the repository at url, for the package in
// directory (slash-separated, "/" or "" for the root; it makes package-scoped tags
// "<directory>/<ref>" take precedence, as in kpt), downloading what is not cached.
//
// A full commit id found in the cache is used without contacting the remote. Any
// other ref is asked of the remote (`git ls-remote`) on every call: a branch moves, and
// so may a tag. A tag whose commit upstream differs from the cached one is fetched anew,
// with a warning naming both commits; when the remote cannot be reached, a tag in the
// cache is used, with a warning (a branch is an error).
//
// Errors: url refused by NormalizeURL; ref no valid ref name (or starting with '-');
// git missing (ErrNoGit) or older than MinGitVersion; the cache not the user's; a git
// command failed (a *GitError with git's message; wrapping ErrTimeout at the timeout),
// among them a fetch whose objects fail git's checks (fetch.fsckObjects); ref names
// no tag, branch or commit of the repository.
func (f *Fetcher) Resolve(ctx context.Context, url, directory, ref string) (Resolved, error) {
	if err := checkRef(ref); err != nil {
		return Resolved{}, fmt.Errorf("%s: %w", url, err)
	}
	d, err := cleanDirectory(directory)
	if err != nil {
		return Resolved{}, fmt.Errorf("%s: %w", url, err)
	}
	r, err := f.open(ctx, url)
	if err != nil {
		return Resolved{}, err
	}
	defer r.unlock()
	res := Resolved{Ref: ref, Cached: true}
	if fullSHA.MatchString(ref) {
		if res, found, err := r.byCommitID(ctx, res, ref); err != nil || found {
			return res, err
		}
		return Resolved{}, fmt.Errorf("%s: commit %s not found", r.url, ref)
	}
	candidates := []string{"refs/tags/" + ref, "refs/heads/" + ref}
	if d != "" {
		candidates = append([]string{"refs/tags/" + path.Join(d, ref)}, candidates...)
	}
	var tags []string
	for _, c := range candidates {
		if strings.HasPrefix(c, "refs/tags/") {
			tags = append(tags, c)
		}
	}
	cached, err := r.commits(ctx, tags...)
	if err != nil {
		return Resolved{}, err
	}
	patterns := candidates
	for _, c := range tags { // an annotated tag's commit is listed only when asked for
		patterns = append(patterns, c+"^{}")
	}
	remote, err := r.lsRemote(ctx, patterns)
	if err != nil {
		if ctx.Err() != nil {
			return Resolved{}, err
		}
		for _, c := range tags {
			if commit := cached[c]; commit != "" {
				res.Name, res.Commit = c, commit
				res.Warnings = append(res.Warnings, fmt.Sprintf("could not reach %s to check tag %s (%s); using its commit %s from the git cache",
					r.url, strings.TrimPrefix(c, "refs/tags/"), firstLine(err.Error()), commit))
				return res, nil
			}
		}
		return Resolved{}, err
	}
	for _, c := range candidates {
		commit, ok := remote[c]
		if !ok {
			continue
		}
		res.Name = c
		local := c
		if strings.HasPrefix(c, "refs/heads/") {
			local = "refs/remotes/origin/" + strings.TrimPrefix(c, "refs/heads/")
		}
		if old := cached[c]; old != "" && old != commit {
			res.Warnings = append(res.Warnings, fmt.Sprintf("tag %s of %s moved upstream: the git cache had commit %s, the remote has %s; using %s",
				strings.TrimPrefix(c, "refs/tags/"), r.url, old, commit, commit))
		}
		have, err := r.commits(ctx, commit, local)
		if err != nil {
			return Resolved{}, err
		}
		switch {
		case have[commit] == "":
			if err := r.fetch(ctx, true, "+"+c+":"+local); err != nil {
				return Resolved{}, err
			}
			res.Cached = false
		case have[local] != commit:
			if _, err := r.git(ctx, "update-ref", "--end-of-options", local, commit); err != nil {
				return Resolved{}, err
			}
		}
		if res.Commit, err = r.localCommit(ctx, local); err != nil {
			return Resolved{}, err
		}
		if res.Commit == "" {
			return Resolved{}, fmt.Errorf("%s: %s fetched but does not name a commit", r.url, c)
		}
		return res, nil
	}
	if shortSHA.MatchString(ref) {
		if res, found, err := r.byCommitID(ctx, res, ref); err != nil || found {
			return res, err
		}
	}
	return Resolved{}, fmt.Errorf("%s: ref %q is no tag, branch or commit of the repository (looked for %s and commit ids)",
		r.url, ref, strings.Join(candidates, ", "))
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// byCommitID resolves id, a full or abbreviated commit id, into res: from the cache,
// else after fetching it alone, without its history (a full id only: servers give a
// commit by its full id) or, failing that (a server refusing to give a commit by id),
// every branch and tag with their whole history (res.Cached false). found is false
// when id names no commit even then; err is a fetch's error.
func (r *repo) byCommitID(ctx context.Context, res Resolved, id string) (_ Resolved, found bool, err error) {
	if c, err := r.localCommit(ctx, id); err != nil || c != "" {
		res.Commit = c
		return res, c != "", err
	}
	if !fullSHA.MatchString(id) || r.fetch(ctx, true, id) != nil {
		if err := r.fetch(ctx, false, "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"); err != nil {
			return Resolved{}, false, err
		}
	}
	res.Cached = false
	c, err := r.localCommit(ctx, id)
	res.Commit = c
	return res, c != "", err
}

// remoteRefs is one answer of a remote to ls-remote: its refs, or its error.
type remoteRefs struct {
	refs map[string]string
	err  error
}

// lsRemote asks the remote for the given refs and returns the commit of each it has
// (annotated tags peeled). Under OneQueryPerRemote, the remote is asked once for all its
// branches and tags, and later calls read that answer.
func (r *repo) lsRemote(ctx context.Context, names []string) (map[string]string, error) {
	if !r.f.OneQueryPerRemote {
		return r.queryRemote(ctx, names)
	}
	if a, ok := r.f.remotes[r.url]; ok {
		return a.refs, a.err
	}
	refs, err := r.queryRemote(ctx, nil)
	r.f.remember(ctx, r.url, refs, err)
	return refs, err
}

// remember keeps the remote's answer at url (its refs, or its error) for the
// Fetcher's life, unless ctx ended: that is this run's end, not an answer.
func (f *Fetcher) remember(ctx context.Context, url string, refs map[string]string, err error) {
	if ctx.Err() != nil {
		return
	}
	if f.remotes == nil {
		f.remotes = map[string]remoteRefs{}
	}
	f.remotes[url] = remoteRefs{refs, err}
}

// queryRemote runs `git ls-remote` for names (nil: every branch and tag).
func (r *repo) queryRemote(ctx context.Context, names []string) (map[string]string, error) {
	r.f.Queries++
	args := []string{"ls-remote", "--end-of-options", r.url}
	if names == nil {
		args = []string{"ls-remote", "--heads", "--tags", "--end-of-options", r.url}
	}
	out, err := r.git(ctx, append(args, names...)...)
	if err != nil {
		return nil, err
	}
	return parseRefs(out), nil
}

// parseRefs reads `git ls-remote` output: a line "<commit>\t<ref>" each, refs maps
// each full ref name (refs/...) to its commit, an annotated tag's peeled commit (its
// "<ref>^{}" line) over the tag object's. Other lines (no tab, not a full commit id,
// not under refs/) are skipped.
func parseRefs(out string) map[string]string {
	refs, peeled := map[string]string{}, map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		id, name, ok := strings.Cut(line, "\t")
		if !ok || !IsCommitID(id) || !strings.HasPrefix(name, "refs/") {
			continue
		}
		if base, ok := strings.CutSuffix(name, "^{}"); ok {
			peeled[base] = id
		} else {
			refs[name] = id
		}
	}
	for k, v := range peeled {
		refs[k] = v
	}
	return refs
}

// fetch downloads refspecs from the remote into the cache, checking every object
// (fetch.fsckObjects), and no more than MaxFetchSize bytes (fetchCapped). shallow
// fetches the commits alone (`--depth 1`: their trees and blobs, none of their
// history; the whole history when the server refuses that, naming "shallow" in its
// error); otherwise their whole history, completing a shallow cache (`--unshallow`).
// Under OneQueryPerRemote, a remote that did not answer in time (ErrTimeout) is not
// asked again: its error is returned.
func (r *repo) fetch(ctx context.Context, shallow bool, refspecs ...string) error {
	if a, ok := r.f.remotes[r.url]; ok && r.f.OneQueryPerRemote && isTimeout(a.err) {
		return a.err
	}
	r.f.Fetches++
	args := []string{"fetch", "--no-tags", "--no-recurse-submodules", "--quiet"}
	if shallow {
		args = append(args, "--depth", "1")
	} else if out, err := r.git(ctx, "rev-parse", "--is-shallow-repository"); err == nil && strings.TrimSpace(out) == "true" {
		args = append(args, "--unshallow")
	}
	err := r.fetchCapped(ctx, append(append(args, "--end-of-options", r.url), refspecs...))
	var gerr *GitError
	if shallow && errors.As(err, &gerr) && !isTimeout(err) && strings.Contains(gerr.Msg, "shallow") {
		// a server that gives no history-less fetch (a dumb http server): the whole history
		return r.fetch(ctx, false, refspecs...)
	}
	if r.f.OneQueryPerRemote && isTimeout(err) && ctx.Err() == nil {
		if r.f.remotes == nil {
			r.f.remotes = map[string]remoteRefs{}
		}
		r.f.remotes[r.url] = remoteRefs{err: err}
	}
	return err
}
