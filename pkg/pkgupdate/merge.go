package pkgupdate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/function"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/keepfile"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/kptfile"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/stage"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// merge merges the three trees of the package at rel (whose subpackages with their own
// upstream, subs, are updated apart): first each path that is a file on one side and
// a directory on the other (fileOrDir), then resources with the function's engine and
// text files line by line; it adds the package's file changes to u.changes and fills
// pr.
func (u *updater) merge(rel string, src *source, trees map[string]*pkgio.Tree, subs []string, pr *PackageReport) error {
	o, up, d := trees[roleOriginal], trees[roleUpdated], trees[roleDest]
	decided, err := u.fileOrDir(rel, src, o, up, d, subs, pr)
	if err != nil {
		return err
	}
	all := map[string]bool{}
	text := map[string]bool{}
	for _, t := range []*pkgio.Tree{o, up, d} {
		for p, f := range t.Files {
			if decided[p] {
				continue
			}
			all[p] = true
			if !f.KRM() {
				text[p] = true
			}
		}
	}
	paths := make([]string, 0, len(all))
	for p := range all {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var krm, txt []string
	for _, p := range paths {
		if text[p] { // a text file in any version is merged as text in all
			txt = append(txt, p)
		} else {
			krm = append(krm, p)
		}
	}
	mergeResources := u.mergeResources
	if u.cfg.OnConflict == vocab.MarkConflicts {
		mergeResources = u.markResources // mark.go
	}
	if err := mergeResources(rel, src, krm, o, up, d, pr); err != nil {
		return err
	}
	u.mergeText(rel, txt, o, up, d, pr)
	return nil
}

// mergeResources runs function.Run on the resources of the KRM files, given under
// the role directories, and turns its output back into files.
func (u *updater) mergeResources(rel string, src *source, paths []string, o, up, d *pkgio.Tree, pr *PackageReport) error {
	var items []*yaml.RNode
	for _, t := range []*pkgio.Tree{o, up, d} {
		for _, p := range paths {
			if f := t.Files[p]; f != nil {
				for _, doc := range f.Docs {
					items = append(items, doc.Node)
				}
			}
		}
	}
	loc := locator{rel: rel, from: src.fromRef, to: src.toRef}
	// Under onConflict error the merge runs as under updated, so that the report has
	// every count and change; the conflicts then fail the update before any write.
	cfg := *u.cfg
	failOnConflict := cfg.OnConflict == vocab.FailOnConflict
	if failOnConflict {
		cfg.OnConflict = vocab.UpdatedWins
	}
	cfg.Plan = false
	out, err := u.run(items, &cfg)
	if err != nil {
		return loc.relocate(err)
	}
	if u.opts.Plan { // the field changes, as the function's plan lists them
		planCfg := cfg
		planCfg.Plan = true
		planned, err := function.Run(items, &planCfg)
		if err != nil {
			return loc.relocate(err)
		}
		for _, ch := range planned.Changes {
			change := ch.Change
			if !cfg.ShowSecretValues { // a Secret's values end up in CI logs
				change = results.RedactChange(ch.Item.Ref(), change)
			}
			pr.Changes = append(pr.Changes, Note{File: loc.file(ch.Item.File), Resource: describeRef(ch.Item.Ref()),
				Field: ch.Change.Path.String(), Message: results.ChangeText(change)})
		}
	}
	fileOrDirConflicts := pr.Counts.Conflicts // counted by fileOrDir, before the merge
	pr.Counts = out.Counts
	pr.Counts.Conflicts += fileOrDirConflicts
	policy := vocab.UpdatedWins
	switch {
	case failOnConflict:
		policy = vocab.FailOnConflict
	case cfg.OnConflict == vocab.DestWins:
		policy = vocab.DestWins
	}
	isConflict := map[*framework.Result]bool{}
	for _, c := range out.Conflicts {
		isConflict[c.Result] = true
		pc := Conflict{File: loc.file(c.Item.File), Resource: describeRef(c.Item.Ref())}
		if c.Field != nil {
			shown := *c.Field
			if !cfg.ShowSecretValues {
				shown = results.RedactConflict(c.Item.Ref(), shown)
			}
			pc.Field, pc.Message, pc.FieldConflict = c.Field.Path.String(), results.ConflictText(shown, policy), c.Field
			pc.Original, pc.Updated, pc.Dest = results.Value(shown.Original), results.Value(shown.Updated), results.Value(shown.Dest)
		} else {
			pc.Message = results.DeletedUpstreamText(c.What, policy)
		}
		pr.Conflicts = append(pr.Conflicts, pc)
	}
	for _, r := range out.Results {
		if r.Severity == framework.Warning && !isConflict[r] {
			pr.Warnings = append(pr.Warnings, loc.note(r))
		}
	}
	for _, v := range out.ValueMerges {
		pr.MergedInside = append(pr.MergedInside, loc.note(v.Result))
	}
	for _, n := range out.Added {
		pr.Resources = append(pr.Resources, ResourceChange{Action: "added", Resource: describe(n), File: loc.file(vocab.LocationOf(n).File)})
	}
	for _, it := range out.Deleted {
		pr.Resources = append(pr.Resources, ResourceChange{Action: "deleted", Resource: describe(it.Node), File: loc.file(it.File)})
	}
	// Output items by dest file, in index order.
	byFile := map[string][]*yaml.RNode{}
	indexOf := map[*yaml.RNode]int{}
	for _, n := range out.Items {
		l := vocab.LocationOf(n)
		file := roles.Clean(l.File)
		if !strings.HasPrefix(file, roleDest+"/") {
			continue // sources passing through
		}
		p := strings.TrimPrefix(file, roleDest+"/")
		byFile[p] = append(byFile[p], n)
		indexOf[n] = l.Index
	}
	for _, nodes := range byFile {
		sort.SliceStable(nodes, func(i, j int) bool { return indexOf[nodes[i]] < indexOf[nodes[j]] })
	}
	c := newComments(o, up, d)
	for it, n := range out.Merged {
		c.alias(n, it.Node)
	}
	outPaths := append([]string(nil), paths...)
	for p := range byFile {
		if !slices.Contains(paths, p) {
			outPaths = append(outPaths, p)
		}
	}
	sort.Strings(outPaths)
	for _, p := range outPaths {
		nodes := byFile[p]
		df := d.Files[p]
		if p == kptfile.Name && u.record != nil {
			for i, n := range nodes {
				if vocab.IsKptfile(n) {
					cp := n.Copy()
					c.alias(cp, n)
					n = cp
					if err := u.record(n); err != nil {
						return fmt.Errorf("%s: %w", path.Join(rel, p), err)
					}
					nodes[i] = n
				}
			}
		}
		target := path.Join(rel, p)
		if len(nodes) == 0 {
			if df != nil && len(df.Docs) > 0 {
				u.changes = append(u.changes, fileChange{change: stage.Change{Path: target, Delete: true}, action: "deleted", old: df.Data})
			}
			continue
		}
		header, docs := c.docs(p, nodes)
		data, err := pkgio.Encode(header, docs)
		if err != nil {
			return fmt.Errorf("%s: encoding: %w", target, err)
		}
		in := keepfile.Input{Merged: data}
		if df != nil {
			was, err := pkgio.Encode(df.Header, df.Docs)
			if err == nil && bytes.Equal(was, data) {
				continue // unchanged: the file keeps its bytes
			}
			in.Dest, in.DestEncoded = df.Data, was
		}
		if uf := up.Files[p]; uf != nil && uf.KRM() {
			in.Updated = uf.Data // as fetched: kpt's bookkeeping is on its parsed Docs only
		}
		kept := keepfile.File(in)
		if keepHook != nil {
			keepHook(target, kept)
		}
		data = kept.Data
		if df != nil {
			u.changes = append(u.changes, fileChange{change: stage.Change{Path: target, Data: data, Mode: df.Mode}, action: "modified", old: df.Data})
			continue
		}
		mode := fs.FileMode(0o644)
		if uf := up.Files[p]; uf != nil {
			mode = uf.Mode
		}
		u.changes = append(u.changes, fileChange{change: stage.Change{Path: target, Data: data, Mode: mode}, action: "added"})
	}
	return nil
}

// keepHook, when set (by tests), sees how each written KRM file was made.
var keepHook func(path string, r keepfile.Result)

// describe is a resource as results name it: "apiVersion kind [namespace/]name".
func describe(n *yaml.RNode) string {
	r := vocab.ResourceRef(n)
	if r == nil {
		return ""
	}
	return describeRef(r)
}

func describeRef(r *yaml.ResourceIdentifier) string {
	name := r.Name
	if r.Namespace != "" {
		name = r.Namespace + "/" + name
	}
	return strings.TrimSpace(r.APIVersion + " " + r.Kind + " " + name)
}

// locator turns the role-directory paths of the merge into paths of the package.
type locator struct {
	rel, from, to string
}

// file maps "dest/x" to x relative to the update's directory, and the sources' paths to
// the upstream file with its version.
func (l locator) file(p string) string {
	p = roles.Clean(p)
	switch {
	case strings.HasPrefix(p, roleDest+"/"):
		return path.Join(l.rel, strings.TrimPrefix(p, roleDest+"/"))
	case strings.HasPrefix(p, roleOriginal+"/"):
		return path.Join(l.rel, strings.TrimPrefix(p, roleOriginal+"/")) + " (upstream " + l.from + ")"
	case strings.HasPrefix(p, roleUpdated+"/"):
		return path.Join(l.rel, strings.TrimPrefix(p, roleUpdated+"/")) + " (upstream " + l.to + ")"
	}
	return p
}

func (l locator) note(r *framework.Result) Note {
	n := Note{Message: r.Message}
	if r.File != nil {
		n.File = l.file(r.File.Path)
	}
	if r.ResourceRef != nil {
		n.Resource = describeRef(r.ResourceRef)
	}
	if r.Field != nil {
		n.Field = r.Field.Path
	}
	return n
}

// relocate rewrites the file paths in the merge's errors into package paths.
func (l locator) relocate(err error) error {
	var ie *vocab.ItemError
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range joined.Unwrap() {
			out = append(out, l.relocate(e))
		}
		return errors.Join(out...)
	}
	if errors.As(err, &ie) {
		c := *ie
		if c.File != "" {
			c.File = l.file(c.File)
		}
		return &c
	}
	var rs framework.Results
	if errors.As(err, &rs) {
		var out []error
		for _, r := range rs {
			if r.Severity != framework.Error {
				continue
			}
			n := l.note(r)
			out = append(out, errors.New(n.String()))
		}
		return errors.Join(out...)
	}
	return err
}
