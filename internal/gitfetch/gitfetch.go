package gitfetch

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
)

// CacheEnv names the environment variable that overrides the default cache directory.
const CacheEnv = "KRM_MERGE_CACHE_DIR"

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

// Fetcher fetches from git repositories through a cache. The zero value uses
// DefaultCacheDir. It is not safe for concurrent use; separate processes are
// serialised per cached repository.
type Fetcher struct {
	// CacheDir holds one bare repository per remote URL.
	CacheDir string
	// Fetches counts the `git fetch` runs (downloads), Queries the `git ls-remote` runs.
	Fetches, Queries int
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
}

// repo is one cached repository, locked.
type repo struct {
	f      *Fetcher
	url    string
	dir    string // the bare cache repository
	unlock func()
}

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)
var shortSHA = regexp.MustCompile(`^[0-9a-f]{4,40}$`)
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// open returns the locked cache repository of url, creating it.
func (f *Fetcher) open(url string) (*repo, error) {
	if f.CacheDir == "" {
		d, err := DefaultCacheDir()
		if err != nil {
			return nil, err
		}
		f.CacheDir = d
	}
	if err := os.MkdirAll(f.CacheDir, 0o755); err != nil {
		return nil, fmt.Errorf("git cache %s: %w", f.CacheDir, err)
	}
	sum := sha256.Sum256([]byte(url))
	base := strings.TrimSuffix(path.Base(strings.TrimRight(filepath.ToSlash(url), "/")), ".git")
	base = unsafeName.ReplaceAllString(base, "_")
	dir := filepath.Join(f.CacheDir, hex.EncodeToString(sum[:8])+"-"+base+".git")
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		tmp, err := os.MkdirTemp(f.CacheDir, ".init-")
		if err != nil {
			return nil, fmt.Errorf("git cache %s: %w", f.CacheDir, err)
		}
		if _, err := runGit(context.Background(), "", "init", "--bare", "-q", tmp); err != nil {
			os.RemoveAll(tmp)
			return nil, err
		}
		if err := os.Rename(tmp, dir); err != nil {
			os.RemoveAll(tmp)
			if _, statErr := os.Stat(filepath.Join(dir, "HEAD")); statErr != nil { // not made by another run meanwhile
				return nil, fmt.Errorf("git cache %s: %w", dir, err)
			}
		}
	}
	lock, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("git cache %s: %w", dir, err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		lock.Close()
		return nil, fmt.Errorf("git cache %s: locking: %w", dir, err)
	}
	r := &repo{f: f, url: url, dir: dir, unlock: func() {
		_ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
		lock.Close()
	}}
	r.removeStaleLocks()
	return r, nil
}

// removeStaleLocks removes the *.lock files a killed git process left in the cache
// repository: under the flock no other krm-merge run is using it.
func (r *repo) removeStaleLocks() {
	_ = filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == "objects" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".lock") {
			_ = os.Remove(p)
		}
		return nil
	})
}

func (r *repo) git(ctx context.Context, args ...string) (string, error) {
	return runGit(ctx, r.dir, args...)
}

// runGit runs git (in the bare repository gitDir when set) and returns its stdout.
// Errors name the command and carry git's stderr.
func runGit(ctx context.Context, gitDir string, args ...string) (string, error) {
	if err := CheckGit(); err != nil {
		return "", err
	}
	full := args
	if gitDir != "" {
		full = append([]string{"--git-dir", gitDir}, args...)
	}
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return stdout.String(), &GitError{Args: args, Msg: msg, Err: err}
	}
	return stdout.String(), nil
}

// GitError is a failed git command.
type GitError struct {
	// Args are git's arguments (without the cache's --git-dir).
	Args []string
	// Msg is git's error output (or the exec error when git printed none).
	Msg string
	// Err is the exec error.
	Err error
}

// Error is "git <args>: <git's message>".
func (e *GitError) Error() string {
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), e.Msg)
}

// Unwrap returns the exec error.
func (e *GitError) Unwrap() error { return e.Err }

// localCommit returns the commit name resolves to in the cache, "" when it does not.
func (r *repo) localCommit(ctx context.Context, name string) string {
	out, err := r.git(ctx, "rev-parse", "--verify", "-q", name+"^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// Resolve returns the commit ref names in the repository at url, for the package in
// directory (slash-separated, "/" or "" for the root; it makes package-scoped tags
// "<directory>/<ref>" take precedence, as in kpt), downloading what is not cached.
// Errors: git missing (ErrNoGit); the remote cannot be reached or read (a *GitError
// with git's message); ref names no tag, branch or commit of the repository.
func (f *Fetcher) Resolve(ctx context.Context, url, directory, ref string) (Resolved, error) {
	if ref == "" {
		return Resolved{}, fmt.Errorf("%s: no ref given", url)
	}
	r, err := f.open(url)
	if err != nil {
		return Resolved{}, err
	}
	defer r.unlock()
	res := Resolved{Ref: ref, Cached: true}
	if fullSHA.MatchString(ref) {
		if res, found, err := r.byCommitID(ctx, res, ref); err != nil || found {
			return res, err
		}
		return Resolved{}, fmt.Errorf("%s: commit %s not found", url, ref)
	}
	candidates := []string{"refs/tags/" + ref, "refs/heads/" + ref}
	if d := strings.Trim(directory, "/"); d != "" {
		candidates = append([]string{"refs/tags/" + path.Join(d, ref)}, candidates...)
	}
	// Tags are taken from the cache; they do not move.
	for _, c := range candidates {
		if strings.HasPrefix(c, "refs/tags/") {
			if commit := r.localCommit(ctx, c); commit != "" {
				res.Name, res.Commit = c, commit
				return res, nil
			}
		}
	}
	remote, err := r.lsRemote(ctx, candidates)
	if err != nil {
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
		if r.localCommit(ctx, commit) == "" {
			if err := r.fetch(ctx, "+"+c+":"+local); err != nil {
				return Resolved{}, err
			}
			res.Cached = false
		} else if _, err := r.git(ctx, "update-ref", local, commit); err != nil {
			return Resolved{}, err
		}
		if res.Commit = r.localCommit(ctx, local); res.Commit == "" {
			return Resolved{}, fmt.Errorf("%s: %s fetched but does not name a commit", url, c)
		}
		return res, nil
	}
	if shortSHA.MatchString(ref) {
		if res, found, err := r.byCommitID(ctx, res, ref); err != nil || found {
			return res, err
		}
	}
	return Resolved{}, fmt.Errorf("%s: ref %q is no tag, branch or commit of the repository (looked for %s and commit ids)",
		url, ref, strings.Join(candidates, ", "))
}

// byCommitID resolves id, a full or abbreviated commit id, into res: from the cache,
// else after fetching it (a full id only: servers give a commit by its full id) or,
// failing that, every branch and tag (res.Cached false). found is false when id names
// no commit even then; err is a fetch's error.
func (r *repo) byCommitID(ctx context.Context, res Resolved, id string) (_ Resolved, found bool, err error) {
	if c := r.localCommit(ctx, id); c != "" {
		res.Commit = c
		return res, true, nil
	}
	if !fullSHA.MatchString(id) || r.fetch(ctx, id) != nil {
		if err := r.fetch(ctx, "+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"); err != nil {
			return Resolved{}, false, err
		}
	}
	res.Cached = false
	if c := r.localCommit(ctx, id); c != "" {
		res.Commit = c
		return res, true, nil
	}
	return res, false, nil
}

// lsRemote asks the remote for the given refs and returns the commit of each it has
// (annotated tags peeled).
func (r *repo) lsRemote(ctx context.Context, names []string) (map[string]string, error) {
	r.f.Queries++
	out, err := r.git(ctx, append([]string{"ls-remote", r.url}, names...)...)
	if err != nil {
		return nil, err
	}
	refs := map[string]string{}
	peeled := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		fields := strings.Fields(line)
		if len(fields) != 2 {
			continue
		}
		if strings.HasSuffix(fields[1], "^{}") {
			peeled[strings.TrimSuffix(fields[1], "^{}")] = fields[0]
		} else {
			refs[fields[1]] = fields[0]
		}
	}
	for k, v := range peeled {
		refs[k] = v
	}
	return refs, nil
}

func (r *repo) fetch(ctx context.Context, refspecs ...string) error {
	r.f.Fetches++
	_, err := r.git(ctx, append([]string{"fetch", "--no-tags", "--quiet", r.url}, refspecs...)...)
	return err
}

// Export writes the files of directory (slash-separated, "/" or "" for the root) at
// commit of the repository at url into dst, which must not exist or be empty: regular
// files with their content byte for byte and mode 0644 or 0755, symbolic links as
// links; submodules are left out. commit must have been resolved by Resolve.
// Errors: directory is not a directory at commit (naming url, directory and commit);
// git or filesystem failures.
func (f *Fetcher) Export(ctx context.Context, url, commit, directory, dst string) error {
	r, err := f.open(url)
	if err != nil {
		return err
	}
	defer r.unlock()
	tree := commit + "^{tree}"
	if d := strings.Trim(directory, "/"); d != "" {
		tree = commit + ":" + d
	}
	typ, err := r.git(ctx, "cat-file", "-t", tree)
	if err != nil || strings.TrimSpace(typ) != "tree" {
		return fmt.Errorf("%s: directory %q does not exist at commit %s", url, "/"+strings.Trim(directory, "/"), commit)
	}
	out, err := r.git(ctx, "ls-tree", "-r", "-z", tree)
	if err != nil {
		return err
	}
	type blob struct{ mode, oid, path string }
	var blobs []blob
	for _, rec := range strings.Split(out, "\x00") {
		if rec == "" {
			continue
		}
		meta, p, ok := strings.Cut(rec, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 {
			return fmt.Errorf("git ls-tree: unexpected output %q", rec)
		}
		if fields[1] != "blob" { // submodules (commit entries)
			continue
		}
		if p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") || path.IsAbs(p) {
			return fmt.Errorf("%s: unsafe path %q at %s", url, p, commit)
		}
		blobs = append(blobs, blob{mode: fields[0], oid: fields[2], path: p})
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	if len(blobs) == 0 {
		return nil
	}
	// Read every blob with one cat-file --batch.
	var in bytes.Buffer
	for _, b := range blobs {
		in.WriteString(b.oid + "\n")
	}
	cmd := exec.CommandContext(ctx, "git", "--git-dir", r.dir, "cat-file", "--batch")
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	br := bufio.NewReader(stdout)
	var werr error
	for _, b := range blobs {
		content, err := readBatchEntry(br)
		if err != nil {
			werr = fmt.Errorf("git cat-file --batch: %w", err)
			break
		}
		target := filepath.Join(dst, filepath.FromSlash(b.path))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			werr = err
			break
		}
		switch b.mode {
		case "120000":
			werr = os.Symlink(string(content), target)
		case "100755":
			werr = os.WriteFile(target, content, 0o755)
		default:
			werr = os.WriteFile(target, content, 0o644)
		}
		if werr != nil {
			break
		}
	}
	_, _ = io.Copy(io.Discard, br)
	if err := cmd.Wait(); err != nil && werr == nil {
		werr = fmt.Errorf("git cat-file --batch: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return werr
}

// readBatchEntry reads one "<oid> <type> <size>\n<content>\n" entry of cat-file --batch.
func readBatchEntry(br *bufio.Reader) ([]byte, error) {
	header, err := br.ReadString('\n')
	if err != nil {
		return nil, err
	}
	fields := strings.Fields(header)
	if len(fields) != 3 {
		return nil, fmt.Errorf("unexpected header %q", header)
	}
	size, err := strconv.Atoi(fields[2])
	if err != nil {
		return nil, fmt.Errorf("unexpected header %q", header)
	}
	content := make([]byte, size+1)
	if _, err := io.ReadFull(br, content); err != nil {
		return nil, err
	}
	return content[:size], nil
}
