package pkgupdate

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/gitfetch"
)

// OutdatedOptions says which packages Outdated reads and how it asks their upstreams.
type OutdatedOptions struct {
	// Dirs are the directories to walk (each resolved once when it is a symbolic
	// link); none is the current directory.
	Dirs []string
	// CacheDir is the git cache (default gitfetch's: $KRM_MERGE_CACHE_DIR, else
	// ~/.cache/krm-merge/git); each remote is asked in its cache repository, so that
	// no configuration of a repository around the working directory applies.
	CacheDir string
	// GitTimeout bounds every git command (0: $KRM_MERGE_GIT_TIMEOUT, else 5m);
	// Timeout the whole run (0: DefaultTimeout).
	GitTimeout, Timeout time.Duration
	// MaxFileSize is the size limit of a Kptfile read (0: DefaultMaxFileSize).
	MaxFileSize int64
	// MaxRefsSize bounds the `git ls-remote` output read of one remote (0:
	// gitfetch.DefaultMaxRefsSize, 32 MiB); a remote past it is that remote's packages'
	// error.
	MaxRefsSize int64
	// MaxDirs bounds the directories walked (0: DefaultMaxOutdatedDirs).
	MaxDirs int
	// Log, when set, is told (one line) when a remote's cache repository is locked by
	// another krm-merge run and the check waits for it; nil says nothing.
	Log func(string)
}

// OutdatedPackage is one package's line of the report (and, with its JSON names, of
// `krm-merge pkg outdated --output json`).
type OutdatedPackage struct {
	// Dir is the package directory: the DIR given joined with the path under it.
	Dir string `json:"dir"`
	// Repo, Directory and Ref are the Kptfile's upstream.git fields, Commit its
	// upstreamLock.git.commit (the release the package holds).
	Repo      string `json:"repo"`
	Directory string `json:"directory"`
	Ref       string `json:"ref"`
	Commit    string `json:"commit"`
	// Newest is the newest release of Ref's kind: for a tag with a version, the newest
	// tag of its form (the name to give pkg update: package-scoped tags without their
	// directory, as Ref names them); for a branch or a tag without a version, Ref
	// itself; "" for a commit id (KindPinned). NewestCommit is its commit ("" with
	// Newest "").
	Newest       string `json:"newest"`
	NewestCommit string `json:"newestCommit"`
	// Kind is how far behind: KindMajor, KindMinor, KindPatch, KindCommit, KindPinned,
	// or KindNone.
	Kind OutdatedKind `json:"kind"`
	// Behind is true when NewestCommit is not Commit (never with KindPinned).
	Behind bool `json:"behind"`
	// Subpackages are the packages below Dir that move with it when it is updated to a
	// version (group's rule), as their Dir would read; they have no line of their own.
	Subpackages []string `json:"subpackages,omitempty"`
	// Error says why the package could not be checked (its Kptfile, its upstream's
	// URL or ref, the remote); the fields after Dir may then be empty.
	Error string `json:"error,omitempty"`

	lockRef string // upstreamLock.git.ref, for lockedVersion
}

// OutdatedReport is what Outdated found.
type OutdatedReport struct {
	// Packages are the packages in the order of OutdatedOptions.Dirs, each walked in
	// tree order (names sorted).
	Packages []*OutdatedPackage
	// Remotes is the number of distinct upstream repositories (by gitfetch.NormalizeURL's
	// form), Queries the `git ls-remote` runs: one per remote.
	Remotes, Queries int
}

// Behind reports whether any package is behind its newest release.
func (r *OutdatedReport) Behind() bool {
	for _, p := range r.Packages {
		if p.Behind {
			return true
		}
	}
	return false
}

// Failed returns the packages that could not be checked (Error set), in report order.
func (r *OutdatedReport) Failed() []*OutdatedPackage {
	var out []*OutdatedPackage
	for _, p := range r.Packages {
		if p.Error != "" {
			out = append(out, p)
		}
	}
	return out
}

// Outdated reports, for every package under opts.Dirs (each directory whose Kptfile
// names a git upstream: upstream.git.repo, directory, ref and upstreamLock.git.commit),
// its newest release and how far behind it is (docs/pkg-update.md, "What is behind").
// Each distinct upstream repository is asked once (`git ls-remote --heads --tags`
// through gitfetch.Fetcher.ListRefs, with its safety rules: the URL checked by
// gitfetch.NormalizeURL before git runs, --end-of-options, a timeout); nothing is
// fetched or written.
//
// A package's problem (a Kptfile that cannot be read, a URL or ref refused, a remote
// that fails or lists too much, a ref it does not have) is its OutdatedPackage.Error;
// the others are still reported. Errors: bad options; a DIR missing or no directory;
// more than MaxDirs directories (ErrTooManyDirs); the walk's I/O errors; ctx ended or
// Timeout passed (ErrDeadline).
func Outdated(ctx context.Context, opts OutdatedOptions) (*OutdatedReport, error) {
	if opts.MaxFileSize < 0 || opts.MaxRefsSize < 0 || opts.MaxDirs < 0 || opts.Timeout < 0 || opts.GitTimeout < 0 {
		return nil, errors.New("OutdatedOptions: a limit is negative (0 is its default)")
	}
	dirs := opts.Dirs
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	limit, maxDirs, timeout := opts.MaxFileSize, opts.MaxDirs, opts.Timeout
	if limit == 0 {
		limit = DefaultMaxFileSize
	}
	if maxDirs == 0 {
		maxDirs = DefaultMaxOutdatedDirs
	}
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	all, err := discover(dirs, limit, maxDirs)
	if err != nil {
		return nil, err
	}
	rep := &OutdatedReport{Packages: group(all)}
	byRemote := map[string][]*OutdatedPackage{}
	var remotes []string // first-seen order
	for _, p := range rep.Packages {
		if p.Error != "" {
			continue
		}
		url, err := gitfetch.NormalizeURL(p.Repo)
		if err != nil {
			p.Error = fmt.Sprintf("%s/Kptfile: upstream.git.repo: %v", p.Dir, err)
			continue
		}
		if err := checkOutdatedRef(p.Ref); err != nil {
			p.Error = fmt.Sprintf("%s/Kptfile: upstream.git.ref: %v", p.Dir, err)
			continue
		}
		if byRemote[url] == nil {
			remotes = append(remotes, url)
		}
		byRemote[url] = append(byRemote[url], p)
	}
	rep.Remotes = len(remotes)
	if len(remotes) == 0 {
		return rep, nil
	}
	if err := gitfetch.CheckGit(); err != nil {
		return nil, err
	}
	f := &gitfetch.Fetcher{CacheDir: opts.CacheDir, Timeout: opts.GitTimeout, Log: opts.Log, OneQueryPerRemote: true}
	for _, url := range remotes {
		refs, err := f.ListRefs(ctx, url, opts.MaxRefsSize)
		if ctx.Err() != nil {
			return nil, deadlineError(ctx, timeout)
		}
		var rt *remoteTags
		if err == nil {
			rt = newRemoteTags(refs)
		}
		for _, p := range byRemote[url] {
			if err != nil {
				p.Error = fmt.Sprintf("upstream %s: %v", p.Repo, err)
				continue
			}
			newest(p, rt)
		}
	}
	rep.Queries = f.Queries
	return rep, nil
}

// deadlineError is Outdated's error when ctx ended: ErrDeadline when its timeout
// passed, else ctx's error.
func deadlineError(ctx context.Context, timeout time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w: the check took longer than %v", ErrDeadline, timeout)
	}
	return ctx.Err()
}

// checkOutdatedRef refuses a ref that could be read as an option or holds a control
// character (gitfetch's rule for refs): none reaches git, but such a Kptfile is
// refused here as pkg update refuses it.
func checkOutdatedRef(ref string) error {
	if strings.HasPrefix(ref, "-") {
		return fmt.Errorf("%q must not start with '-' (git would read it as an option)", ref)
	}
	for _, r := range ref {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("%q holds a control character (%U)", ref, r)
		}
	}
	return nil
}

// shortCommit matches an abbreviated or full commit id, as kpt takes one for a ref.
func shortCommit(ref string) bool {
	if len(ref) < 4 || len(ref) > 64 {
		return false
	}
	return strings.Trim(ref, "0123456789abcdef") == ""
}

// newest fills p's Newest, NewestCommit, Kind and Behind from rt (the remote's
// branches and tags). The ref resolves as kpt resolves it
// (gitfetch.Fetcher.Resolve): the package-scoped tag <directory>/<ref> first, then the
// tag, then the branch, then a commit id (KindPinned); a ref that is none of them is
// p's error.
func newest(p *OutdatedPackage, rt *remoteTags) {
	refs := rt.refs
	dir := strings.Trim(path.Clean("/"+p.Directory), "/")
	scope := ""
	if dir != "" {
		scope = dir + "/"
	}
	tagCommit := func(name string) (string, bool) { // kpt's precedence for a tag name
		if scope != "" {
			if c, ok := refs["refs/tags/"+scope+name]; ok {
				return c, true
			}
		}
		c, ok := refs["refs/tags/"+name]
		return c, ok
	}
	_, scoped := refs["refs/tags/"+scope+p.Ref]
	scoped = scoped && scope != ""
	cur, isTag := tagCommit(p.Ref)
	switch {
	case isTag:
	case refs["refs/heads/"+p.Ref] != "":
		p.Newest, p.NewestCommit = p.Ref, refs["refs/heads/"+p.Ref]
		p.Behind = p.NewestCommit != p.Commit
		if p.Behind {
			p.Kind = KindCommit
		}
		return
	case shortCommit(p.Ref):
		p.Kind = KindPinned
		return
	default:
		p.Error = fmt.Sprintf("upstream %s: ref %q is no tag or branch of the repository (looked for %s)", p.Repo, p.Ref,
			strings.Join(candidateNames(scope, p.Ref), ", "))
		return
	}
	p.Newest, p.NewestCommit = p.Ref, cur
	if v, ok := parseVersion(p.Ref); ok {
		prefix := ""
		if scoped {
			prefix = scope
		}
		nv := v
		if name, newer, ok := newestTag(p.Ref, v, rt.under(prefix, v.prefix), rt.version); ok {
			p.Newest, nv = name, newer
			if p.NewestCommit, _ = tagCommit(name); scoped {
				p.NewestCommit = refs["refs/tags/"+scope+name]
			}
		}
		if from := lockedVersion(p.lockRef, scope, v); nv.compare(from) > 0 {
			p.Kind = kindOf(from, nv)
		}
	}
	p.Behind = p.NewestCommit != p.Commit
	if p.Behind && p.Kind == KindNone {
		p.Kind = KindCommit
	}
}

// candidateNames are the full ref names a ref is looked up by, in kpt's order.
func candidateNames(scope, ref string) []string {
	var out []string
	if scope != "" {
		out = append(out, "refs/tags/"+scope+ref)
	}
	return append(out, "refs/tags/"+ref, "refs/heads/"+ref)
}

// lockedVersion is the version the package holds: upstreamLock.git.ref's (lockRef,
// without its package scope) when it has the form of upstream.git.ref's version v (a
// bot may have changed upstream.git.ref without updating the package), else v.
func lockedVersion(lockRef, scope string, v refVersion) refVersion {
	if scope != "" {
		lockRef = strings.TrimPrefix(lockRef, scope)
	}
	if lv, ok := parseVersion(lockRef); ok && lv.sameForm(v) {
		return lv
	}
	return v
}
