package pkgupdate

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/gitfetch"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/kptfile"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/kptprep"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// prepare is the prepare step of an update: it gives the fetched releases f of the
// package at dir (rel from the root) the bookkeeping kpt pkg get adds (prepareTree), so
// that what kpt added to the local copy is not a local change, and, for a package whose
// Kptfile records its upstream, returns what its Kptfile will record (pr.Recorded set);
// nil for another package.
// Errors: a resource of a release kptprep refuses, a directory named Kptfile upstream,
// a Kptfile that cannot take the bookkeeping (kptfile.Prepare).
func prepare(dir, rel string, src *source, f *fetched, pr *PackageReport) (*recording, error) {
	if src.kf == nil {
		return nil, nil
	}
	pr.Recorded = true
	name := src.kf.Name
	if name == "" {
		name = filepath.Base(dir)
	}
	upstreamNode := src.kfNode.Field("upstream").Value
	lockRef := func(r gitfetch.Resolved) string {
		if r.Name == "" {
			return r.Ref
		}
		return strings.TrimPrefix(strings.TrimPrefix(r.Name, "refs/tags/"), "refs/heads/")
	}
	at := annotationPath(rel, kptfile.Name)
	if err := prepareTree(f.trees.original, at, name, upstreamNode, src.kf.Git.Ref, *src.kf.Lock); err != nil {
		return nil, err
	}
	lock := kptfile.Git{Repo: src.kf.Git.Repo, Directory: src.kf.Git.Directory, Ref: lockRef(f.to), Commit: f.to.Commit}
	if err := prepareTree(f.trees.updated, at, name, upstreamNode, src.toRef, lock); err != nil {
		return nil, err
	}
	return &recording{File: path.Join(rel, kptfile.Name), Ref: src.toRef, Lock: lockGit(lock)}, nil
}

// prepareTree gives a fetched tree kpt pkg get's bookkeeping: every resource's (kptprep),
// and the root Kptfile's (created as kpt creates it when the upstream has none, with
// the path annotation at).
func prepareTree(t *pkgio.Tree, at, name string, upstream *yaml.RNode, ref string, lock kptfile.Git) error {
	docs, _ := treeDocs(t) // in path order: the first error is the same in every run
	for _, d := range docs {
		if err := kptprep.Resource(d.Node); err != nil {
			return fmt.Errorf("%s: %w", d.File, err)
		}
	}
	for p := range t.Files {
		if strings.HasPrefix(p, kptfile.Name+"/") {
			return &pkgio.Error{Path: kptfile.Name, Err: errors.New("a directory in the upstream release; a package's Kptfile is a file")}
		}
	}
	f := t.Files[kptfile.Name]
	if f == nil || !f.KRM() {
		n := kptfile.Default(name)
		for _, k := range vocab.PathAnnotations {
			if err := n.PipeE(yaml.SetAnnotation(k, at)); err != nil {
				return err
			}
		}
		for _, k := range vocab.IndexAnnotations {
			if err := n.PipeE(yaml.SetAnnotation(k, "0")); err != nil {
				return err
			}
		}
		f = &pkgio.File{Path: kptfile.Name, Mode: 0o600, Docs: []*pkgio.Doc{{Node: n}}}
		t.Files[kptfile.Name] = f
	}
	for _, d := range f.Docs {
		if vocab.IsKptfile(d.Node) {
			return kptfile.Prepare(d.Node, name, upstream, ref, lock)
		}
	}
	return nil
}

// recording is the new release a package's Kptfile records: upstream.git.ref and
// upstreamLock.git.
type recording struct {
	// File is the Kptfile, relative to the update's directory.
	File string `json:"kptfile"`
	// Ref is upstream.git.ref; Lock upstreamLock.git.
	Ref  string  `json:"ref"`
	Lock lockGit `json:"lock"`
}

// lockGit is kptfile.Git as the state of an update in progress records it.
type lockGit struct {
	Repo      string `json:"repo"`
	Directory string `json:"directory"`
	Ref       string `json:"ref"`
	Commit    string `json:"commit"`
}

// setter is r.set, or nil for a nil r (a package that records no release).
func (r *recording) setter() func(*yaml.RNode) error {
	if r == nil {
		return nil
	}
	return r.set
}

// set records r in the Kptfile resource n (kptfile.SetLock): upstream.git.ref and
// upstreamLock.git, the rest as it is. Errors: kptfile.SetLock's.
func (r *recording) set(n *yaml.RNode) error {
	return kptfile.SetLock(n, r.Ref, kptfile.Git(r.Lock))
}
