package pkgupdate

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/gitfetch"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
)

// releases is the fetch step's git, for one update or shared by the updates of a fleet
// run (UpdateFleet): each distinct upstream version is resolved once and each distinct
// release (repository, commit, directory) exported once, into dir, for every package
// that needs it; the packages read the exports and never write them. Its git is one
// gitfetch.Fetcher with OneQueryPerRemote, so every package of a run sees one state of
// each remote. Safe for concurrent use: one mutex serialises the git work (a
// gitfetch.Fetcher is not safe for concurrent use), and a package whose releases are
// known waits only for the map lookup.
type releases struct {
	mu       sync.Mutex
	git      *gitfetch.Fetcher
	dir      string // the run's temporary directory, where releases are exported
	resolved map[releaseKey]gitfetch.Resolved
	failed   map[releaseKey]error // resolutions that failed, other than by a context's end
	exported map[releaseKey]exportResult
	n        int // exports made under dir
	// trees are the releases read (tree), the latest maxTrees, oldest first.
	trees []readTree
}

// maxTrees is how many read releases a run keeps for the packages that read them
// again: a fleet's packages mostly share a few releases, and a run over packages of
// many upstreams keeps no more than this many in memory.
const maxTrees = 8

// readTree is one release as tree read it: its key (the export, the path prefix, the
// subpackages left out), the tree, or the read's error.
type readTree struct {
	key  string
	tree *pkgio.Tree
	err  error
}

// releaseKey names a version of an upstream: the repository as the Kptfile names it,
// the package's directory in it, and a ref or commit id.
type releaseKey struct{ repo, directory, version string }

// exportResult is one Export: the directory it wrote, or its error.
type exportResult struct {
	dir string
	err error
}

// newReleases is the shared fetch step of a fleet run with opts (the git cache, its
// limits and timeout, Log), exporting under dir.
func newReleases(opts Options, dir string) *releases {
	return &releases{dir: dir, git: newGitFetcher(opts),
		resolved: map[releaseKey]gitfetch.Resolved{}, failed: map[releaseKey]error{}, exported: map[releaseKey]exportResult{}}
}

// newGitFetcher is the gitfetch.Fetcher of an update with opts: through the git cache
// (opts.CacheDir) with opts' limits, each remote asked for its refs once.
func newGitFetcher(opts Options) *gitfetch.Fetcher {
	return &gitfetch.Fetcher{CacheDir: opts.CacheDir, Timeout: opts.GitTimeout, Log: opts.Log,
		MaxFileSize: opts.MaxFileSize, MaxFetchSize: opts.MaxFetchSize, OneQueryPerRemote: true}
}

// resolve is gitfetch.Fetcher.Resolve of want (a ref or a commit id) in the repository
// repo at directory, once per run: a later call for the same version returns the first
// answer as it is (Cached says whether the run downloaded it, the same for every
// package, whichever of them asked first), or the first error. An error from a context
// that ended is not kept, so that one package's deadline does not fail the others.
func (r *releases) resolve(ctx context.Context, repo, directory, want string) (gitfetch.Resolved, error) {
	k := releaseKey{repo, directory, want}
	r.mu.Lock()
	defer r.mu.Unlock()
	if res, ok := r.resolved[k]; ok {
		return res, nil
	}
	if err, ok := r.failed[k]; ok {
		return gitfetch.Resolved{}, err
	}
	res, err := r.git.Resolve(ctx, repo, directory, want)
	switch {
	case err == nil:
		r.resolved[k] = res
	case ctx.Err() == nil:
		r.failed[k] = err
	}
	return res, err
}

// export returns the directory holding directory of commit of repo, exported
// (gitfetch.Fetcher.Export) on the first call for that release and shared by every
// later one, or the first call's error (but for a context's end, as resolve).
func (r *releases) export(ctx context.Context, repo, commit, directory string) (string, error) {
	k := releaseKey{repo, directory, commit}
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.exported[k]; ok {
		return e.dir, e.err
	}
	r.n++
	out := filepath.Join(r.dir, strconv.Itoa(r.n))
	err := r.git.Export(ctx, repo, commit, directory, out)
	if err != nil {
		out = "" // Export removed what it wrote
	}
	if err == nil || ctx.Err() == nil {
		r.exported[k] = exportResult{out, err}
	}
	return out, err
}

// tree returns a copy of the tree read (read: pkgio.Read of the export out, with the
// path prefix and the subpackages subs left out) on the first call for that export,
// prefix and subs, or that call's error: each package gets a tree of its own to
// prepare and merge (mark.go's copyTree), without parsing the release again. read runs
// under the lock, once per release (again once more than maxTrees others were read
// since).
func (r *releases) tree(out, prefix string, subs []string, read func() (*pkgio.Tree, error)) (*pkgio.Tree, error) {
	key := out + "\x00" + prefix + "\x00" + strings.Join(subs, "\x00")
	r.mu.Lock()
	var hit *readTree
	for i := range r.trees {
		if r.trees[i].key == key {
			hit = &r.trees[i]
		}
	}
	if hit == nil {
		t, err := read()
		if len(r.trees) == maxTrees {
			r.trees = r.trees[1:]
		}
		r.trees = append(r.trees, readTree{key, t, err})
		hit = &r.trees[len(r.trees)-1]
	}
	t, err := hit.tree, hit.err
	r.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return copyTree(t), nil
}
