package pkgupdate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/keepbytes"
	"github.com/krm-merge/krm-merge/internal/kptfile"
	"github.com/krm-merge/krm-merge/internal/pkgio"
	"github.com/krm-merge/krm-merge/internal/stage"
	"github.com/krm-merge/krm-merge/pkg/function"
	"github.com/krm-merge/krm-merge/pkg/identity"
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
			pr.Changes = append(pr.Changes, Note{File: loc.file(ch.Item.File), Resource: describeRef(ch.Item.Ref()),
				Field: ch.Change.Path.String(), Message: results.ChangeText(ch.Change)})
		}
	}
	pr.Counts = out.Counts
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
			pc.Field, pc.Message, pc.FieldConflict = c.Field.Path.String(), results.ConflictText(*c.Field, policy), c.Field
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
		if !contains(paths, p) {
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
		in := keepbytes.Input{Merged: data}
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
		kept := keepbytes.File(in)
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

// fileOrDir decides each path that is a file in updated and a directory in dest or the
// other way round (a file replacing a directory, in either direction), as a whole: the
// file and every file under the directory. When dest's side is as original had it,
// upstream's change is taken; when updated's is, dest's is kept; else it is a
// conflict, reported with what each side has, that onConflict decides: updated takes
// upstream's side (every local file under the path is deleted, and listed), dest
// keeps the package's, error fails the update. A directory holding a subpackage with
// its own upstream is never replaced: under updated that conflict is an error.
// Nothing is ever deleted silently. It returns every path it decided (of all three
// trees), which the merges of resources and text then leave alone.
func (u *updater) fileOrDir(rel string, src *source, o, up, d *pkgio.Tree, subs []string, pr *PackageReport) (map[string]bool, error) {
	dirsOf := func(paths []string) map[string]bool {
		dirs := map[string]bool{}
		for _, p := range paths {
			for dir := path.Dir(p); dir != "." && !dirs[dir]; dir = path.Dir(dir) {
				dirs[dir] = true
			}
		}
		return dirs
	}
	upDirs := dirsOf(keys(up.Files))
	destDirs := dirsOf(append(keys(d.Files), subs...))
	for _, s := range subs {
		destDirs[s] = true
	}
	var points []string
	for p := range up.Files {
		if destDirs[p] {
			points = append(points, p)
		}
	}
	for p := range d.Files {
		if upDirs[p] {
			points = append(points, p)
		}
	}
	if len(points) == 0 {
		return nil, nil
	}
	sort.Strings(points)
	decided := map[string]bool{}
	for _, p := range points {
		eo, eu, ed := entry(o, p), entry(up, p), entry(d, p)
		hasSub := false
		for _, s := range subs {
			hasSub = hasSub || s == p || strings.HasPrefix(s, p+"/")
		}
		for _, e := range [][]*pkgio.File{eo, eu, ed} {
			for _, f := range e {
				decided[f.Path] = true
			}
		}
		takeUpdated := false
		switch {
		case sameEntry(eu, eo): // upstream did not change it: dest's stays
		case !hasSub && sameEntry(ed, eo): // dest did not: upstream's change
			takeUpdated = true
		default:
			target := path.Join(rel, p)
			local := shape(ed, p)
			if hasSub {
				local = "a directory holding a subpackage with its own upstream"
			}
			msg := fmt.Sprintf("a file on one side, a directory on the other: upstream %s has %s, the local copy %s (upstream %s had %s)",
				src.toRef, shape(eu, p), local, src.fromRef, shape(eo, p))
			switch u.cfg.OnConflict {
			case vocab.DestWins:
				msg += "; dest wins: the local copy's is kept"
			case vocab.MarkConflicts:
				beside := path.Join(rel, besideName(p, pr))
				msg += "; marked: the local copy's is kept, upstream's written beside it as " + beside
				u.marks = append(u.marks, Mark{File: target, Beside: beside})
				u.marked = append(u.marked, markedFile{Path: target, Beside: beside})
				for _, f := range eu {
					if err := u.besideFile(f, beside+strings.TrimPrefix(f.Path, p)); err != nil {
						return nil, err
					}
				}
			case vocab.FailOnConflict:
				msg += "; onConflict is error, so nothing is written"
			default:
				if hasSub {
					return nil, &pkgio.Error{Path: target, Err: fmt.Errorf("%s; the local directory holds a subpackage with its own upstream, "+
						"which the update never deletes: move it, or update with onConflict dest", msg)}
				}
				msg += fmt.Sprintf("; updated wins: upstream's replaces the local copy's (%s deleted)", count(len(ed), "local file"))
			}
			pr.Conflicts = append(pr.Conflicts, Conflict{File: target, Message: msg})
			pr.Counts.Conflicts++
			takeUpdated = u.cfg.OnConflict != vocab.DestWins && u.cfg.OnConflict != vocab.MarkConflicts && !hasSub
		}
		if !takeUpdated {
			continue
		}
		for _, f := range ed {
			u.changes = append(u.changes, fileChange{change: stage.Change{Path: path.Join(rel, f.Path), Delete: true}, action: "deleted", old: f.Data})
			for _, doc := range f.Docs {
				pr.Resources = append(pr.Resources, ResourceChange{Action: "deleted", Resource: describe(doc.Node), File: path.Join(rel, f.Path)})
			}
		}
		for _, f := range eu {
			data := f.Data
			if f.KRM() {
				var err error
				if data, err = pkgio.Encode(f.Header, f.Docs); err != nil {
					return nil, fmt.Errorf("%s: encoding: %w", path.Join(rel, f.Path), err)
				}
				for _, doc := range f.Docs {
					pr.Resources = append(pr.Resources, ResourceChange{Action: "added", Resource: describe(doc.Node), File: path.Join(rel, f.Path)})
				}
			}
			u.changes = append(u.changes, fileChange{change: stage.Change{Path: path.Join(rel, f.Path), Data: data, Mode: f.Mode},
				action: "added", replacesDir: f.Path == p && len(ed) > 0})
		}
	}
	return decided, nil
}

// entry is what tree t has at p: the file p, or the files under the directory p/ in
// path order, or nothing.
func entry(t *pkgio.Tree, p string) []*pkgio.File {
	if f := t.Files[p]; f != nil {
		return []*pkgio.File{f}
	}
	var out []*pkgio.File
	for q, f := range t.Files {
		if strings.HasPrefix(q, p+"/") {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// sameEntry reports whether two entries (entry) hold the same paths with the same
// content (sameFile).
func sameEntry(a, b []*pkgio.File) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Path != b[i].Path || !sameFile(a[i], b[i]) {
			return false
		}
	}
	return true
}

// sameFile reports whether two versions of a file are the same: KRM files as kpt
// writes them (so that kpt's bookkeeping in the package equals a prepared release),
// other files byte for byte; and the same executable bit (all git records).
func sameFile(a, b *pkgio.File) bool {
	if a.Mode&0o100 != b.Mode&0o100 {
		return false
	}
	if a.KRM() && b.KRM() {
		ea, errA := pkgio.Encode(a.Header, a.Docs)
		eb, errB := pkgio.Encode(b.Header, b.Docs)
		return errA == nil && errB == nil && bytes.Equal(ea, eb)
	}
	return bytes.Equal(a.Data, b.Data)
}

// shape says what an entry at p is: "nothing", "a file", "a directory of 3 files".
func shape(e []*pkgio.File, p string) string {
	switch {
	case len(e) == 0:
		return "nothing"
	case len(e) == 1 && e[0].Path == p:
		return "a file"
	}
	return "a directory of " + count(len(e), "file")
}

// count is "1 file", "2 files".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func keys(m map[string]*pkgio.File) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// keepHook, when set (by tests), sees how each written KRM file was made.
var keepHook func(path string, r keepbytes.Result)

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

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

// comments places the file-level comments of the output: each file's header and the
// document comments around each resource, dest's, or upstream's where dest's equal
// original's and upstream changed them.
type comments struct {
	o, u, d  *pkgio.Tree
	destDoc  map[*yaml.RNode]*pkgio.Doc // dest input node and merged output node to dest's doc
	destFile map[*pkgio.Doc]string
	oDocs    map[identity.ID]*pkgio.Doc // resource identity (identity.Upstream) to original's doc
	uDocs    map[identity.ID]*pkgio.Doc
}

func newComments(o, u, d *pkgio.Tree) *comments {
	c := &comments{o: o, u: u, d: d, destDoc: map[*yaml.RNode]*pkgio.Doc{}, destFile: map[*pkgio.Doc]string{},
		oDocs: map[identity.ID]*pkgio.Doc{}, uDocs: map[identity.ID]*pkgio.Doc{}}
	for _, t := range []struct {
		tree *pkgio.Tree
		keys map[identity.ID]*pkgio.Doc
	}{{o, c.oDocs}, {u, c.uDocs}, {d, nil}} {
		for _, f := range t.tree.Files {
			for _, doc := range f.Docs {
				if t.keys != nil {
					if k := identity.Upstream(doc.Node); t.keys[k] == nil {
						t.keys[k] = doc
					}
				} else {
					c.destDoc[doc.Node] = doc
					c.destFile[doc] = f.Path
				}
			}
		}
	}
	return c
}

// own is a document's comments (none for nil).
func own(doc *pkgio.Doc) pkgio.Doc {
	if doc == nil {
		return pkgio.Doc{}
	}
	return *doc
}

// pick is dest's value, or updated's when dest's equals original's and updated changed it.
func pick(dest, orig, upd string, haveOrig, haveUpd bool) string {
	if haveOrig && haveUpd && dest == orig && upd != orig {
		return upd
	}
	return dest
}

func header(f *pkgio.File) (string, bool) {
	if f == nil || !f.KRM() {
		return "", false
	}
	return f.Header, true
}

// docs returns the header of file p and its output nodes wrapped in documents with
// their comments.
func (c *comments) docs(p string, nodes []*yaml.RNode) (string, []*pkgio.Doc) {
	out := make([]*pkgio.Doc, len(nodes))
	for i, n := range nodes {
		doc := &pkgio.Doc{Node: n}
		d := c.destDoc[n]
		k := identity.Upstream(n)
		od, ud := c.oDocs[k], c.uDocs[k]
		switch {
		case d != nil:
			do, oo, uo := own(d), own(od), own(ud)
			doc.Head = pick(do.Head, oo.Head, uo.Head, od != nil, ud != nil)
			doc.Line = pick(do.Line, oo.Line, uo.Line, od != nil, ud != nil)
			doc.Foot = pick(do.Foot, oo.Foot, uo.Foot, od != nil, ud != nil)
		case ud != nil: // added from updated
			uo := own(ud)
			doc.Head, doc.Line, doc.Foot = uo.Head, uo.Line, uo.Foot
		}
		out[i] = doc
	}
	hd, inD := header(c.d.Files[p])
	ho, inO := header(c.o.Files[p])
	hu, inU := header(c.u.Files[p])
	if !inD {
		return hu, out
	}
	return pick(hd, ho, hu, inO, inU), out
}

// alias records that the node n stands for the node of stands for (a merged output
// for its dest input, a copy for its original), for its comments.
func (c *comments) alias(n, of *yaml.RNode) {
	if d := c.destDoc[of]; d != nil {
		c.destDoc[n] = d
	}
}
