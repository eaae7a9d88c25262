package pkgupdate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/function"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/keepfile"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/kptfile"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/stage"
	"github.com/krm-merge/krm-merge/pkg/resources"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// resourceRun is one merge of a package's resources (mergeResources; onConflict mark
// runs three).
type resourceRun struct {
	// cfg holds the run's onConflict.
	cfg *config.Config
	// plan lists the field changes in the report.
	plan bool
	// record, when set, gives the package's Kptfile resource what it records.
	record func(*yaml.RNode) error
	// base is, in the run of onConflict mark that gives each conflict original's
	// value, the original tree (merge).
	base *pkgio.Tree
}

// mergeResources runs function.Merge on the resources of the KRM files at paths in the
// three trees (resourceItems), reports the outcome in m.pr (reportOutcome) and turns the
// output back into files, added to m.changes.
func (m *merger) mergeResources(run resourceRun, paths []string, t trees) error {
	items, fromDest, err := resourceItems(run.cfg, m.rel, m.src, paths, t)
	if err != nil {
		return err
	}
	// Under onConflict error the merge runs as under updated, so that the report has
	// every count and change; the conflicts then fail the update before any write.
	// Added resources go to the package's directory.
	cfg := *run.cfg
	failOnConflict := cfg.OnConflict == config.FailOnConflict
	if failOnConflict {
		cfg.OnConflict = config.UpdatedWins
	}
	cfg.Plan, cfg.DestPath = false, m.rel
	out, err := run.merge(items, fromDest, &cfg) // mark.go
	if err != nil {
		return mergeError(err)
	}
	if run.plan {
		if err := planChanges(items, cfg, m.pr); err != nil {
			return err
		}
	}
	reportOutcome(m.pr, out, cfg.OnConflict.Winner(), failOnConflict, cfg.ShowSecretValues)
	byFile := outputFiles(m.rel, items, fromDest, out)
	c := newComments(t.original, t.updated, t.dest)
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
		if err := m.writeFile(p, byFile[p], t, c, run.record); err != nil {
			return err
		}
	}
	return nil
}

// planChanges adds to pr the field changes of the merge of items by cfg, as the
// function's plan lists them, a Secret's values redacted unless cfg shows them.
func planChanges(items []roles.Item, cfg config.Config, pr *PackageReport) error {
	cfg.Plan = true
	planned, err := function.Merge(items, &cfg)
	if err != nil {
		return mergeError(err)
	}
	for _, ch := range planned.Changes {
		change := ch.Change
		if !cfg.ShowSecretValues { // a Secret's values end up in CI logs
			change = results.RedactChange(ch.Item.Ref(), change)
		}
		pr.Changes = append(pr.Changes, Note{File: ch.Item.File, Resource: vocab.DescribeResource(ch.Item.Ref()),
			Field: ch.Change.Path.String(), Message: results.ChangeText(change)})
	}
	return nil
}

// reportOutcome fills pr from a merge's outcome: its counts (with the conflicts
// fileOrDir counted before), each conflict as decided for winner, or refused when the
// update fails on conflicts (fails: onConflict error) (a Secret's values redacted unless
// showSecrets), the warnings that are no conflict, the values merged
// inside, the resources added and deleted.
func reportOutcome(pr *PackageReport, out *resources.Outcome, winner vocab.Role, fails, showSecrets bool) {
	fileOrDirConflicts := pr.Counts.Conflicts // counted by fileOrDir, before the merge
	pr.Counts = out.Counts
	pr.Counts.Conflicts += fileOrDirConflicts
	isConflict := map[*framework.Result]bool{}
	for _, c := range out.Conflicts {
		isConflict[c.Result] = true
		pc := Conflict{File: c.Item.File, Resource: vocab.DescribeResource(c.Item.Ref())}
		if c.Field != nil {
			shown := *c.Field
			if !showSecrets {
				shown = results.RedactConflict(c.Item.Ref(), shown)
			}
			pc.Field, pc.Message, pc.FieldConflict = c.Field.Path.String(), results.ConflictText(shown, fails), c.Field
			pc.Original, pc.Updated, pc.Dest = results.Value(shown.Original), results.Value(shown.Updated), results.Value(shown.Dest)
		} else {
			pc.Message = results.DeletedUpstreamText(c.What, winner, fails)
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
}

// outputFiles are a merge's output items by the package's file they go to (relative to
// the package at rel), each file's in index order. An item of the releases (before
// fromDest in items) whose role annotation makes it dest is no file of the package.
func outputFiles(rel string, items []roles.Item, fromDest int, out *resources.Outcome) map[string][]*yaml.RNode {
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
	return byFile
}

// writeFile adds to m.changes the change of the package's KRM file p whose output
// resources are nodes (none: the file is deleted): its Kptfile resource given what it
// records (record, when set), the documents with their comments (c), encoded and
// keeping the bytes of what did not change (keepfile); nothing when the file is as it
// was.
func (m *merger) writeFile(p string, nodes []*yaml.RNode, t trees, c *comments, record func(*yaml.RNode) error) error {
	df := t.dest.Files[p]
	if p == kptfile.Name && record != nil {
		for i, n := range nodes {
			if vocab.IsKptfile(n) {
				cp := n.Copy()
				c.alias(cp, n)
				n = cp
				if err := record(n); err != nil {
					return fmt.Errorf("%s: %w", path.Join(m.rel, p), err)
				}
				nodes[i] = n
			}
		}
	}
	target := path.Join(m.rel, p)
	if len(nodes) == 0 {
		if df != nil && len(df.Docs) > 0 {
			m.changes = append(m.changes, fileChange{change: stage.Change{Path: target, Delete: true}, action: "deleted", old: df.Data})
		}
		return nil
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
			return nil // unchanged: the file keeps its bytes
		}
		in.Dest, in.DestEncoded = df.Data, was
	}
	uf := t.updated.Files[p]
	if uf != nil && uf.KRM() {
		in.Updated = uf.Data // as fetched: kpt's bookkeeping is on its parsed Docs only
	}
	kept := keepfile.File(in)
	if keepHook != nil {
		keepHook(target, kept)
	}
	data = kept.Data
	if df != nil {
		m.changes = append(m.changes, fileChange{change: stage.Change{Path: target, Data: data, Mode: df.Mode}, action: "modified", old: df.Data})
		return nil
	}
	mode := fs.FileMode(0o644)
	if uf != nil {
		mode = uf.Mode
	}
	m.changes = append(m.changes, fileChange{change: stage.Change{Path: target, Data: data, Mode: mode}, action: "added"})
	return nil
}

// keepHook, when set (by tests), sees how each written KRM file was made.
var keepHook func(path string, r keepfile.Result)

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
		n.Resource = vocab.DescribeResource(r.ResourceRef)
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
