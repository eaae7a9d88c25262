package pkgupdate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/scrub"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/gitfetch"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/gitpath"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/kptfile"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/stage"
)

// source is where a package comes from.
type source struct {
	repo, directory string
	fromRef         string // as recorded (upstreamLock.git.ref) or given
	fromCommit      string // upstreamLock.git.commit, when recorded
	toRef           string
	kf              *kptfile.Upstream // nil without a Kptfile upstream
	kfNode          *yaml.RNode       // the local Kptfile resource, when there is one
}

// fetcher is the fetch step of an update: where each package comes from (source), its
// two releases exported from the git cache and the package read (fetch). It keeps what
// the packages fetched so far say about the next: the local repositories their
// releases ship subpackages from, the root's upstream.
type fetcher struct {
	opts     Options
	releases *releases // resolves and exports the releases, once each
	// shipped maps a subpackage (relative to the root) to the local repositories its
	// Kptfile names as shipped by its parent's upstream, each to the release that
	// shipped it (noteShipped).
	shipped map[string]map[string]string
	// rootGit is the root package's upstream.git as recorded before the update (nil
	// without a Kptfile upstream), for the subpackages that move with it (movesWithRoot).
	rootGit *kptfile.Git
}

// newFetcher is the fetch step of an update with opts, through r (the update's own, or
// a fleet run's shared by its packages).
func newFetcher(opts Options, r *releases) *fetcher {
	return &fetcher{opts: opts, releases: r}
}

// dir is the directory of the package at rel (relative to the update's directory).
func (f *fetcher) dir(rel string) string {
	return filepath.Join(f.opts.Dir, filepath.FromSlash(rel))
}

// readKptfile reads the Kptfile of the package at dir (rel from the root) into s: the
// resource and its upstream (kf nil when the Kptfile, or its upstream, is absent).
// Errors: a Kptfile that cannot be read or parsed, holds other than one resource, or
// whose upstream kptfile.Read refuses, naming it.
func readKptfile(dir, rel string, limit int64) (*source, error) {
	kfPath := path.Join(rel, kptfile.Name)
	s := &source{}
	data, _, err := pkgio.ReadFile(filepath.Join(dir, kptfile.Name), limit)
	switch {
	case err == nil:
		docs, perr := pkgio.Parse(data, kptfile.Name)
		if perr != nil {
			return nil, fmt.Errorf("%s: %w", kfPath, perr)
		}
		if len(docs) != 1 {
			return nil, &kptfile.Error{File: kfPath, Msg: "must hold exactly one Kptfile resource"}
		}
		s.kfNode = docs[0].Node
		if s.kf, err = kptfile.Read(s.kfNode, kfPath); err != nil {
			return nil, err
		}
		if s.kf.Git == nil {
			s.kf = nil
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, &pkgio.Error{Path: kfPath, Err: err}
	}
	return s, nil
}

// source reads where the package at rel comes from: its Kptfile's upstream, or (for
// the root) the options.
func (f *fetcher) source(rel, version string, root bool) (*source, error) {
	kfPath := path.Join(rel, kptfile.Name)
	s, err := readKptfile(f.dir(rel), rel, f.opts.MaxFileSize)
	if err != nil {
		return nil, err
	}
	if s.kf != nil {
		if root && (f.opts.Repo != "" || f.opts.Directory != "" || f.opts.From != "") {
			return nil, fmt.Errorf("--repo, --directory and --from are for a directory without a Kptfile upstream; %s records upstream %s", kfPath, s.kf.Git.Repo)
		}
		if s.kf.Lock == nil || s.kf.Lock.Commit == "" {
			return nil, &kptfile.Error{File: kfPath, Field: "upstreamLock.git.commit",
				Msg: "missing: the Kptfile records no fetched commit to merge from (kpt pkg get records it)"}
		}
		if !gitfetch.IsCommitID(s.kf.Lock.Commit) {
			return nil, &kptfile.Error{File: kfPath, Field: "upstreamLock.git.commit",
				Msg: fmt.Sprintf("%q is not a full commit id (40 or 64 hex digits, as kpt pkg get records it)", s.kf.Lock.Commit)}
		}
		if from, ok := f.shipped[rel][s.kf.Git.Repo]; ok && !root && isLocalRepo(s.kf.Git.Repo) {
			return nil, &kptfile.Error{File: kfPath, Field: "upstream.git.repo", Msg: fmt.Sprintf(
				"%q is a local repository, and this Kptfile came from upstream (%s): an upstream may not have the update read a "+
					"repository of this machine; nothing was changed. If you trust it, change upstream.git.repo in %s (to its URL)",
				s.kf.Git.Repo, from, kfPath)}
		}
		s.repo, s.directory = s.kf.Git.Repo, s.kf.Git.Directory
		s.fromRef, s.fromCommit = s.kf.Lock.Ref, s.kf.Lock.Commit
		if s.fromRef == "" {
			s.fromRef = s.fromCommit
		}
		s.toRef = version
		if root {
			g := *s.kf.Git
			f.rootGit = &g
		} else if f.movesWithRoot(s.kf.Git) {
			s.toRef = f.opts.Version
		}
		if s.toRef == "" {
			s.toRef = s.kf.Git.Ref
		}
		if s.toRef == "" {
			return nil, &kptfile.Error{File: kfPath, Field: "upstream.git.ref", Msg: "missing; give the version to update to (DIR@VERSION)"}
		}
		return s, nil
	}
	if !root {
		return nil, fmt.Errorf("%s: no upstream", kfPath)
	}
	if f.opts.Repo == "" {
		return nil, fmt.Errorf("%w: %s has no Kptfile with an upstream; give --repo, --from and the version to update to (DIR@VERSION or --to)",
			ErrNoUpstream, f.opts.Dir)
	}
	if f.opts.From == "" {
		return nil, fmt.Errorf("--from is required with --repo: the upstream version the local copy was made from")
	}
	if version == "" {
		return nil, fmt.Errorf("the version to update to is required with --repo (DIR@VERSION or --to)")
	}
	s.repo, s.directory, s.fromRef, s.toRef = f.opts.Repo, f.opts.Directory, f.opts.From, version
	if s.directory == "" {
		s.directory = "/"
	}
	return s, nil
}

// movesWithRoot reports whether a subpackage with its own upstream sub moves to the
// version the root is updated to, by kpt pkg update's rule (shouldUpdateSubPkgRef): a
// version was given for the root, and sub is the root's repository at the root's
// upstream.git.ref as it was, in the root's directory or one under it. Any other
// subpackage is updated to its own upstream.git.ref. kpt compares the directories as
// strings (/app-extra counts as under /app); here they are compared as paths.
func (f *fetcher) movesWithRoot(sub *kptfile.Git) bool {
	root := f.rootGit
	if root == nil || f.opts.Version == "" || sub.Repo != root.Repo || sub.Ref != root.Ref {
		return false
	}
	rd, sd := path.Clean("/"+root.Directory), path.Clean("/"+sub.Directory)
	return rd == "/" || sd == rd || strings.HasPrefix(sd, rd+"/")
}

// fetched is what fetch brings for one package: the three trees (original and updated
// from upstream, dest the package itself), the package's subpackages with their own
// upstream (left out of the trees), and the release updated to as it resolved.
type fetched struct {
	trees trees
	subs  []string
	to    gitfetch.Resolved
}

// trees are the three versions of a package a merge takes, each file by its path
// relative to the package; each resource's path annotation is its path relative to the
// update's directory (annotationPath).
type trees struct {
	original, updated, dest *pkgio.Tree
}

// annotationPath is the path annotation of the resources of file p of the package at
// rel (relative to the update's directory): p joined to rel.
func annotationPath(rel, p string) string {
	return path.Join(rel, p)
}

// annotationPrefix is pkgio.Options.PathPrefix for the package at rel: what
// annotationPath puts before a file's path.
func annotationPrefix(rel string) string {
	if rel == "." {
		return ""
	}
	return rel + "/"
}

// fetch resolves the package's two releases (src.fromRef, src.toRef) through the git
// cache and exports them, and reads the package at rel (from the root), each tree
// without the subpackages that have their own upstream; it records the versions and the
// fetch's warnings (a moved tag, an unreachable remote) in pr.
func (f *fetcher) fetch(ctx context.Context, rel string, src *source, pr *PackageReport) (*fetched, error) {
	dir := f.dir(rel)
	from, err := f.resolve(ctx, src, src.fromRef, src.fromCommit)
	if err != nil {
		return nil, err
	}
	to, err := f.resolve(ctx, src, src.toRef, "")
	if err != nil {
		return nil, err
	}
	pr.From = Version{Ref: src.fromRef, Commit: from.Commit, Cached: from.Cached}
	pr.To = Version{Ref: src.toRef, Commit: to.Commit, Cached: to.Cached}
	for _, w := range append(from.Warnings, to.Warnings...) { // a moved tag, an unreachable remote
		pr.Warnings = append(pr.Warnings, Note{Message: w})
	}
	subs, err := subpackages(dir, f.opts.MaxFileSize)
	if err != nil {
		return nil, prefixed(rel, err)
	}
	skip := func(p string, isDir bool) bool {
		if reservedName(path.Base(p)) {
			return true
		}
		for _, s := range subs {
			if p == s || strings.HasPrefix(p, s+"/") {
				return true
			}
		}
		return false
	}
	var t trees
	for _, v := range []struct {
		tree   **pkgio.Tree
		commit string
	}{{&t.original, from.Commit}, {&t.updated, to.Commit}} {
		out, err := f.releases.export(ctx, src.repo, v.commit, src.directory)
		if err != nil {
			if errors.Is(err, gitfetch.ErrTooLarge) {
				err = tooLarge{err}
			}
			return nil, err
		}
		read, err := f.releases.tree(out, annotationPrefix(rel), subs, func() (*pkgio.Tree, error) {
			reserved := ""
			skipUpstream := func(p string, isDir bool) bool {
				if reserved == "" && reservedName(path.Base(p)) {
					reserved = p
				}
				return skip(p, isDir)
			}
			read, err := pkgio.Read(out, pkgio.Options{PathPrefix: annotationPrefix(rel), Skip: skipUpstream,
				MaxFileSize: f.opts.MaxFileSize, RefuseGitPaths: true})
			if err == nil && reserved != "" {
				err = fmt.Errorf("%s: the name of krm-merge's own state or staging directory (%s, %s), to a case-insensitive file system; "+
					"an upstream may not ship it", scrub.Escape(reserved), stateDirName, ".krm-merge-update")
			}
			return read, err
		})
		if err != nil {
			return nil, fmt.Errorf("upstream %s at %s: %w", src.repo, v.commit, err)
		}
		*v.tree = read
		if err := f.noteShipped(rel, out, subs, src.repo+" at "+v.commit); err != nil {
			return nil, err
		}
	}
	if t.dest, err = pkgio.Read(dir, pkgio.Options{PathPrefix: annotationPrefix(rel), Skip: skip, MaxFileSize: f.opts.MaxFileSize}); err != nil {
		return nil, prefixed(rel, err)
	}
	return &fetched{trees: t, subs: subs, to: to}, nil
}

// noteShipped records, for each subpackage of the package at rel whose Kptfile the
// upstream release exported to out (from, named in errors) ships too, the local
// repositories (gitfetch.IsLocal) that Kptfile names as its upstream: source refuses
// them (an upstream may not make the update read a repository of this machine).
func (f *fetcher) noteShipped(rel, out string, subs []string, from string) error {
	for _, s := range subs {
		kfPath := path.Join(s, kptfile.Name)
		data, _, err := pkgio.ReadFile(filepath.Join(out, filepath.FromSlash(kfPath)), f.opts.MaxFileSize)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) { // not shipped, or a file above it
			continue
		}
		if err != nil {
			return fmt.Errorf("upstream %s: %w", from, &pkgio.Error{Path: kfPath, Err: err})
		}
		docs, err := pkgio.Parse(data, kptfile.Name)
		if err != nil || len(docs) != 1 {
			continue // not a Kptfile this update reads
		}
		kf, err := kptfile.Read(docs[0].Node, kfPath)
		if err != nil || kf.Git == nil || !isLocalRepo(kf.Git.Repo) {
			continue
		}
		if f.shipped == nil {
			f.shipped = map[string]map[string]string{}
		}
		sub := path.Join(rel, s)
		if f.shipped[sub] == nil {
			f.shipped[sub] = map[string]string{}
		}
		f.shipped[sub][kf.Git.Repo] = from
	}
	return nil
}

// isLocalRepo reports whether repo is a valid repository URL (gitfetch.NormalizeURL:
// one it refuses is refused with its own error when fetched) naming a repository of
// this machine (gitfetch.IsLocal).
func isLocalRepo(repo string) bool {
	_, err := gitfetch.NormalizeURL(repo)
	return err == nil && gitfetch.IsLocal(repo)
}

// resolve resolves a version of src: the recorded commit when there is one, else ref.
func (f *fetcher) resolve(ctx context.Context, src *source, ref, commit string) (gitfetch.Resolved, error) {
	want := ref
	if commit != "" {
		want = commit
	}
	r, err := f.releases.resolve(ctx, src.repo, src.directory, want)
	if err != nil {
		return r, fmt.Errorf("upstream %s: %w", src.repo, err)
	}
	r.Ref = ref
	return r, nil
}

// subpackages lists the directories under dir (relative, slash-separated) holding a
// Kptfile with its own upstream; none inside another. Each Kptfile is read as
// pkgio.ReadFile reads (limit bytes at most).
// Errors: a Kptfile that cannot be read (a link, a FIFO, over the limit: *pkgio.Error
// naming it relative to dir); the walk's I/O errors.
func subpackages(dir string, limit int64) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || p == dir {
			return nil
		}
		if pkgio.GitPath(d.Name()) || reservedName(d.Name()) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		data, _, err := pkgio.ReadFile(filepath.Join(p, kptfile.Name), limit)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return &pkgio.Error{Path: rel + "/" + kptfile.Name, Err: err}
		}
		docs, err := pkgio.Parse(data, kptfile.Name)
		if err != nil || len(docs) != 1 {
			return nil // read as part of this package, which reports what is wrong
		}
		if kf, err := kptfile.Read(docs[0].Node, rel+"/"+kptfile.Name); err == nil && kf.Git != nil {
			out = append(out, rel)
			return filepath.SkipDir
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// reservedName reports whether name (one path component) is, in any spelling a
// case-insensitive or normalising file system opens as one (gitpath.Key), the state
// directory of an update in progress or a staging directory (stage.IsStagingName):
// readers of the package leave it out, and an upstream tree may not hold it.
func reservedName(name string) bool {
	return gitpath.Key(name) == stateKey || stage.IsStagingName(name)
}

// stateKey is the state directory's name as gitpath.Key compares it.
var stateKey = gitpath.Key(stateDirName)

// prefixed puts the package path before a package-relative error.
func prefixed(rel string, err error) error {
	if rel == "." {
		return err
	}
	return fmt.Errorf("%s/%w", rel, err)
}

// tooLarge marks a fetch's size error (gitfetch.ErrTooLarge) as ErrTooLarge too, the
// one error a caller tests for a file over the limit, in the package or upstream.
type tooLarge struct{ error }

// Is reports ErrTooLarge.
func (e tooLarge) Is(target error) bool { return target == ErrTooLarge }

// Unwrap returns the fetch's error.
func (e tooLarge) Unwrap() error { return e.error }
