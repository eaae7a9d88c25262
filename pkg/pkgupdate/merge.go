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

	"github.com/krm-merge/krm-merge/pkg/config"
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
func (u *updater) merge(rel string, src *source, t trees, subs []string, pr *PackageReport) error {
	o, up, d := t.original, t.updated, t.dest
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

// mergeResources runs function.Merge on the resources of the KRM files at paths in the
// three trees (resourceItems) and turns its output back into files.
func (u *updater) mergeResources(rel string, src *source, paths []string, o, up, d *pkgio.Tree, pr *PackageReport) error {
	items, fromDest, err := resourceItems(u.cfg, rel, src, paths, trees{o, up, d})
	if err != nil {
		return err
	}
	// Under onConflict error the merge runs as under updated, so that the report has
	// every count and change; the conflicts then fail the update before any write.
	// Added resources go to the package's directory.
	cfg := *u.cfg
	failOnConflict := cfg.OnConflict == vocab.FailOnConflict
	if failOnConflict {
		cfg.OnConflict = vocab.UpdatedWins
	}
	cfg.Plan, cfg.DestPath = false, rel
	out, err := u.run(items, fromDest, &cfg)
	if err != nil {
		return mergeError(err)
	}
	if u.opts.Plan { // the field changes, as the function's plan lists them
		planCfg := cfg
		planCfg.Plan = true
		planned, err := function.Merge(items, &planCfg)
		if err != nil {
			return mergeError(err)
		}
		for _, ch := range planned.Changes {
			change := ch.Change
			if !cfg.ShowSecretValues { // a Secret's values end up in CI logs
				change = results.RedactChange(ch.Item.Ref(), change)
			}
			pr.Changes = append(pr.Changes, Note{File: ch.Item.File, Resource: describeRef(ch.Item.Ref()),
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
		pc := Conflict{File: c.Item.File, Resource: describeRef(c.Item.Ref())}
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
			pr.Warnings = append(pr.Warnings, note(r))
		}
	}
	for _, v := range out.ValueMerges {
		pr.MergedInside = append(pr.MergedInside, note(v.Result))
	}
	for _, n := range out.Added {
		pr.Resources = append(pr.Resources, ResourceChange{Action: "added", Resource: describe(n), File: roles.Clean(vocab.LocationOf(n).File)})
	}
	for _, it := range out.Deleted {
		pr.Resources = append(pr.Resources, ResourceChange{Action: "deleted", Resource: describe(it.Node), File: it.File})
	}
	// Output items by dest file, in index order; an upstream resource whose role
	// annotation makes it dest is no file of the package.
	upstream := map[*yaml.RNode]bool{}
	for i := range items[:fromDest] {
		upstream[items[i].Node] = true
		if n, ok := out.Merged[&items[i]]; ok {
			upstream[n] = true
		}
	}
	byFile := map[string][]*yaml.RNode{}
	indexOf := map[*yaml.RNode]int{}
	for _, n := range out.Items {
		if upstream[n] {
			continue
		}
		l := vocab.LocationOf(n)
		p := relTo(rel, roles.Clean(l.File))
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

// resourceItems are the items of the merge of the package at rel: the resources of the
// KRM files at paths in t's original, updated and dest trees, in that order, each with
// its tree's role (unless its role annotation names another: roles.Assign with the
// tree's role directory at rel, the package's place in the update's directory). An
// item's RelFile is its file's path in the package; its File is where reports place
// it: the path relative to the update's directory, with " (upstream REF)" for a
// release's. fromDest is the index of dest's first item.
// Errors: a malformed head (function.CheckHeads) or roles.Assign's, naming the file as
// the item's File does.
func resourceItems(cfg *config.Config, rel string, src *source, paths []string, t trees) (items []roles.Item, fromDest int, err error) {
	var nodes []*yaml.RNode
	var ends [3]int
	for i, tree := range []*pkgio.Tree{t.original, t.updated, t.dest} {
		for _, p := range paths {
			if f := tree.Files[p]; f != nil {
				for _, doc := range f.Docs {
					nodes = append(nodes, doc.Node)
				}
			}
		}
		ends[i] = len(nodes)
	}
	if err := function.CheckHeads(nodes); err != nil {
		return nil, 0, err
	}
	start := 0
	for i, tree := range []struct {
		opts   roles.Options
		suffix string
	}{
		{roles.Options{OriginalDir: rel}, " (upstream " + src.fromRef + ")"},
		{roles.Options{UpdatedDir: rel}, " (upstream " + src.toRef + ")"},
		{roles.Options{DestDir: rel}, ""},
	} {
		tree.opts.Mode, tree.opts.Annotation = cfg.Mode, cfg.RoleAnnotation
		assigned, err := roles.Assign(nodes[start:ends[i]], tree.opts)
		if err != nil {
			var ie *vocab.ItemError
			if errors.As(err, &ie) && ie.File != "" {
				c := *ie
				c.File += tree.suffix
				return nil, 0, &c
			}
			return nil, 0, err
		}
		for j := range assigned {
			assigned[j].Position = start + j
			assigned[j].File += tree.suffix
		}
		items = append(items, assigned...)
		start = ends[i]
	}
	return items, ends[1], nil
}

// note is a result as a report's note: its message, file, resource and field.
func note(r *framework.Result) Note {
	n := Note{Message: r.Message}
	if r.File != nil {
		n.File = r.File.Path
	}
	if r.ResourceRef != nil {
		n.Resource = describeRef(r.ResourceRef)
	}
	if r.Field != nil {
		n.Field = r.Field.Path
	}
	return n
}

// mergeError is the error of a failed merge as Update returns it: each of joined errors
// in turn; the *vocab.ItemError an error wraps, alone; for a refusal (a
// framework.Results), one error per error result, as a note reads (Note.String).
func mergeError(err error) error {
	var ie *vocab.ItemError
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range joined.Unwrap() {
			out = append(out, mergeError(e))
		}
		return errors.Join(out...)
	}
	if errors.As(err, &ie) {
		return ie
	}
	var rs framework.Results
	if errors.As(err, &rs) {
		var out []error
		for _, r := range rs {
			if r.Severity == framework.Error {
				out = append(out, errors.New(note(r).String()))
			}
		}
		return errors.Join(out...)
	}
	return err
}
