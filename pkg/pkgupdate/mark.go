package pkgupdate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/scrub"
	"github.com/krm-merge/krm-merge/internal/textmerge"
	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/function"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/kptfile"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/stage"
	"github.com/krm-merge/krm-merge/pkg/resources"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// onConflict mark (docs/pkg-update.md, "Resolving conflicts by hand"): every conflict
// no value merge settles is written into its file as git-style markers around its
// lines, for a person (or an editor's merge tool) to resolve; the update is then in
// progress (state.go) until Continue or Abort (conclude.go).
//
// A KRM file with conflicts is merged three times with the one encoder: L, every
// conflict decided for dest (onConflict dest); U, for updated; B, for original
// (function.MergeTakingOriginal: each conflicting field or part original's, absent where
// original has none; a resource deleted upstream but changed locally is original's
// document in dest's place). Outside the conflicts the three are the same, so every run
// of lines where L and U differ (textmerge.MarkDifferences) surrounds a conflict's
// lines, and only those are hunks. A hunk's local side is L's lines, so choosing every
// local side gives L byte for byte. Its upstream side is the updated release's file as
// fetched, the lines U's lines there stand for (U aligned with that file); its base
// side the original release's lines for B's, or, where B writes the old value in
// another style, those the upstream side's lines stand for in the original file: each
// side is its file's own text, comments and styles, as git merge-file --diff3 writes
// it from the three files (markSides). Each side alone parses where its run does
// (markSides falls back to a run's lines for a side that would not). A text file's
// conflicts are git merge-file --diff3's hunks (textmerge.MergeMarked). A conflict
// markers cannot hold (a binary file changed on both sides, a file on one side and a
// directory on the other) keeps the local copy and writes upstream's beside it
// (besideName).

// Labels of the markers: the local copy, then the releases merged from and to.
const localLabel = "local"

// markedFile is a file an update under onConflict mark left for a person: one holding
// markers (Path), or a local file with upstream's version beside it (Beside).
type markedFile struct {
	// Path is the file, relative to the update's directory.
	Path string `json:"path"`
	// Beside is where upstream's version was written (a file, or a directory of
	// files), relative to the update's directory; "" for markers.
	Beside string `json:"beside,omitempty"`
	// UpstreamAbsent is true when upstream's side has no file here (deleted upstream,
	// changed locally): resolved to nothing but white space, the file is deleted.
	UpstreamAbsent bool `json:"upstreamAbsent,omitempty"`
	// YAML is true when the file must parse as YAML once resolved (a KRM file, or a
	// *.yaml text file whose two sides parse).
	YAML bool `json:"yaml,omitempty"`
	// Separators is how many "=======" lines the file holds of its own (the most of
	// its three sides, each chosen in every hunk), which Continue does not take for
	// markers.
	Separators int `json:"separators,omitempty"`
}

// labels are the marker labels of a package's merge: local, the release merged from
// and the one merged to, each as pr names it (a ref, or the commit where there is
// none), with the short commit where the two refs read alike (a branch that moved);
// characters a terminal would act on escaped, so that a label is one line.
func labels(pr *PackageReport) textmerge.Labels {
	from, to := pr.From.Ref, pr.To.Ref
	if from == to {
		from, to = from+" ("+pr.From.ShortCommit()+")", to+" ("+pr.To.ShortCommit()+")"
	}
	return textmerge.Labels{Dest: localLabel, Base: scrub.Escape(from), Updated: scrub.Escape(to)}
}

// fileVersion is one run's version of a file: its content and mode, or no file.
type fileVersion struct {
	data   []byte
	mode   fs.FileMode
	exists bool
}

// versionOf is the version of target a run's changes leave: the change's, else the
// local file's (df, nil when there is none).
func versionOf(changes map[string]fileChange, target string, df *pkgio.File) fileVersion {
	if c, ok := changes[target]; ok {
		if c.change.Delete {
			return fileVersion{}
		}
		return fileVersion{data: c.change.Data, mode: c.change.Mode, exists: true}
	}
	if df != nil {
		return fileVersion{data: df.Data, mode: df.Mode, exists: true}
	}
	return fileVersion{}
}

func (v fileVersion) same(w fileVersion) bool {
	return v.exists == w.exists && v.mode == w.mode && bytes.Equal(v.data, w.data)
}

// marking is what an update under onConflict mark collects from the merges of its
// packages, for the stage step: the Kptfiles to record when the update is concluded, the
// conflicts marked and the files holding them.
type marking struct {
	// pending are the releases the packages' Kptfiles record once the update is
	// concluded; localKptfiles the local Kptfiles by path, as they were.
	pending       []recording
	localKptfiles map[string]*pkgio.File
	marks         []Mark
	marked        []markedFile
}

// markResources is mergeResources under onConflict mark: the three runs L, U and B (see
// above; U and B only when L meets a conflict), then each file L and U write
// differently written with markers, the others as L writes them (markFiles). Every
// package's Kptfile keeps dest's upstream and upstreamLock (keepUpstream); the release
// is recorded when the update is concluded (m.marking.pending). The report is L's, each
// conflict in a marked file saying so.
func (m *merger) markResources(paths []string, t trees) error {
	if m.recording != nil {
		m.marking.pending = append(m.marking.pending, *m.recording)
		if m.marking.localKptfiles == nil {
			m.marking.localKptfiles = map[string]*pkgio.File{}
		}
		m.marking.localKptfiles[m.recording.File] = t.dest.Files[kptfile.Name]
	}
	// U and B work on copies made before any run, since a run may change the nodes it
	// is given; L, whose report is the package's, on the trees themselves, first: when it
	// meets no conflict the three are the same and U and B are not run.
	copies := map[vocab.Role]trees{}
	for _, side := range []vocab.Role{vocab.Updated, vocab.Original} {
		copies[side] = trees{copyTree(t.original), copyTree(t.updated), copyTree(t.dest)}
	}
	runs := map[vocab.Role]map[string]fileChange{}
	first := len(m.pr.Conflicts)
	for _, side := range []vocab.Role{vocab.Dest, vocab.Updated, vocab.Original} {
		c := *m.cfg
		c.OnConflict = config.UpdatedWins // B too: its resources are decided as under updated
		if side == vocab.Dest {
			c.OnConflict = config.DestWins
		}
		run, tr, rep := resourceRun{cfg: &c, plan: m.plan}, t, m.pr
		if side != vocab.Dest {
			if len(m.pr.Conflicts) == first {
				runs[side] = runs[vocab.Dest]
				continue
			}
			tr, rep, run.plan = copies[side], &PackageReport{}, false
		}
		if side == vocab.Original {
			run.base = tr.original
		}
		if m.recording != nil {
			run.record = keepUpstream(tr.dest)
		}
		one := &merger{cfg: m.cfg, rel: m.rel, src: m.src, pr: rep}
		if err := one.mergeResources(run, paths, tr); err != nil {
			return err
		}
		runs[side] = map[string]fileChange{}
		for _, fc := range one.changes {
			runs[side][fc.change.Path] = fc
		}
	}
	markedHere := m.markFiles(runs, t)
	for i := first; i < len(m.pr.Conflicts); i++ {
		if c := &m.pr.Conflicts[i]; markedHere[c.File] {
			c.Message = strings.TrimSuffix(c.Message, "; dest wins") + "; " + markedText
		}
	}
	return nil
}

// markFiles adds to m.changes each file of the runs L, U and B (by winner: vocab.Dest,
// vocab.Updated, vocab.Original; each a map of target to change) as L writes it where U
// writes it alike, else written with markers (markSides), and returns the files
// marked.
func (m *merger) markFiles(runs map[vocab.Role]map[string]fileChange, t trees) map[string]bool {
	l, up, b := runs[vocab.Dest], runs[vocab.Updated], runs[vocab.Original]
	targets := map[string]bool{}
	for _, run := range runs {
		for target := range run {
			targets[target] = true
		}
	}
	sorted := make([]string, 0, len(targets))
	for target := range targets {
		sorted = append(sorted, target)
	}
	sort.Strings(sorted)
	lab := labels(m.pr)
	markedHere := map[string]bool{}
	for _, target := range sorted {
		p := relTo(m.rel, target)
		df := t.dest.Files[p]
		vl, vu, vb := versionOf(l, target, df), versionOf(up, target, df), versionOf(b, target, df)
		if vl.same(vu) {
			if fc, ok := l[target]; ok {
				m.changes = append(m.changes, fc)
			}
			continue
		}
		mk := markSides(target, vl, vu, vb, t.original.Files[p], t.updated.Files[p], lab)
		mode := vl.mode
		if !vl.exists {
			mode = vu.mode
		}
		fc := fileChange{change: stage.Change{Path: target, Data: mk.Text, Mode: mode}, action: "added"}
		if df != nil {
			fc.action, fc.old = "modified", df.Data
		}
		m.changes = append(m.changes, fc)
		m.marking.addHunks(target, mk, markedFile{Path: target, UpstreamAbsent: !vu.exists, YAML: true,
			Separators: max(separators(vl.data), separators(mk.Updated), separators(mk.Base))})
		markedHere[target] = true
	}
	return markedHere
}

// markSides writes the file target's runs L, U and B (vl, vu, vb) with markers
// (textmerge.MarkDifferences), the upstream and base sides taken from the files of
// the updated and original releases as fetched (uf, of; nil where a release has no
// such file, or no KRM file there). Each side's choice alone parses where that run
// does: when every upstream (or base) side taken from its file would not (a release
// indented otherwise than the local copy), that side is the run's lines instead.
func markSides(target string, vl, vu, vb fileVersion, of, uf *pkgio.File, lab textmerge.Labels) textmerge.Marked {
	s := textmerge.Sides{Dest: vl.data, Updated: vu.data, Base: vb.data}
	if uf != nil && uf.KRM() {
		s.UpdatedText = uf.Data
	}
	if of != nil && of.KRM() {
		s.BaseText = of.Data
	}
	m := textmerge.MarkDifferences(s, lab)
	parses := func(data []byte) bool {
		_, err := pkgio.Parse(data, target)
		return err == nil
	}
	again := false
	if s.UpdatedText != nil && !parses(m.Updated) && parses(vu.data) {
		s.UpdatedText, again = nil, true
	}
	if s.BaseText != nil && !parses(m.Base) && parses(vb.data) {
		s.BaseText, again = nil, true
	}
	if again {
		m = textmerge.MarkDifferences(s, lab)
	}
	return m
}

// markedText ends the message of a conflict written with markers.
const markedText = "marked in the file"

// addHunks records the hunks of m, written into target, and the marked file.
func (mk *marking) addHunks(target string, m textmerge.Marked, f markedFile) {
	for _, h := range m.Hunks {
		mk.marks = append(mk.marks, Mark{File: target, Start: h.Marked.Start, End: h.Marked.Start + h.Marked.Lines - 1})
	}
	mk.marked = append(mk.marked, f)
}

// beside records a conflict markers cannot hold: the local file target kept, upstream's
// version written beside it (besideName).
func (mk *marking) beside(target, beside string) {
	mk.marks = append(mk.marks, Mark{File: target, Beside: beside})
	mk.marked = append(mk.marked, markedFile{Path: target, Beside: beside})
}

// separators counts the "=======" lines of data (textmerge.IsMarker).
func separators(data []byte) int {
	n := 0
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) > 0 && line[0] == '=' && textmerge.IsMarker(line) {
			n++
		}
	}
	return n
}

// relTo is target (relative to the update's directory) relative to the package at rel.
func relTo(rel, target string) string {
	if rel == "." {
		return target
	}
	return strings.TrimPrefix(target, rel+"/")
}

// besideName is where upstream's version of p is written beside the local copy when
// markers cannot hold a conflict: p, a dot and the new release (characters other than
// letters, digits, '.', '_' and '-' written as '-'), e.g. logo.png.v2.
func besideName(p string, pr *PackageReport) string {
	ref := []byte(pr.To.Ref)
	for i, c := range ref {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			ref[i] = '-'
		}
	}
	return p + "." + string(ref)
}

// copyTree copies t, every resource node deeply.
func copyTree(t *pkgio.Tree) *pkgio.Tree {
	out := &pkgio.Tree{Files: make(map[string]*pkgio.File, len(t.Files))}
	for p, f := range t.Files {
		cf := *f
		if f.Docs != nil {
			cf.Docs = make([]*pkgio.Doc, len(f.Docs))
			for i, doc := range f.Docs {
				cd := *doc
				cd.Node = doc.Node.Copy()
				cf.Docs[i] = &cd
			}
		}
		out.Files[p] = &cf
	}
	return out
}

// keepUpstream returns the record step of a run under onConflict mark: the package's
// Kptfile keeps upstream and upstreamLock as the local Kptfile (of d) has them, until
// the update is concluded (recordKptfile).
func keepUpstream(d *pkgio.Tree) func(*yaml.RNode) error {
	var local *yaml.RNode
	if f := d.Files[kptfile.Name]; f != nil {
		for _, doc := range f.Docs {
			if vocab.IsKptfile(doc.Node) {
				local = doc.Node
			}
		}
	}
	return func(n *yaml.RNode) error {
		for _, name := range []string{"upstream", "upstreamLock"} {
			var v *yaml.RNode
			if local != nil {
				if f := local.Field(name); f != nil {
					v = f.Value.Copy()
				}
			}
			f := n.Field(name)
			switch {
			case v == nil:
				if err := n.PipeE(yaml.Clear(name)); err != nil {
					return err
				}
			case f != nil:
				f.Value.SetYNode(v.YNode())
			default:
				if err := n.PipeE(yaml.SetField(name, v)); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// recordKptfile records r's release in the Kptfile data (file names it): upstream.git.ref
// and upstreamLock, as an update records them (kptfile.SetLock), the rest of the file
// as it is.
// Errors: data does not parse, or holds no Kptfile resource.
func recordKptfile(data []byte, file string, r recording) ([]byte, error) {
	docs, err := pkgio.Parse(data, file)
	if err != nil {
		return nil, fmt.Errorf("%s: does not parse: %w", file, err)
	}
	header := pkgio.TakeHeader(data, docs)
	found := false
	for _, doc := range docs {
		if vocab.IsKptfile(doc.Node) {
			if err := kptfile.SetLock(doc.Node, r.Ref, kptfile.Git(r.Lock)); err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			found = true
		}
	}
	if !found {
		return nil, fmt.Errorf("%s: holds no Kptfile resource to record the release in", file)
	}
	return pkgio.Encode(header, docs)
}

// merge is function.Merge for mergeResources (items from resourceItems, dest's from
// fromDest on). In the B run of onConflict mark (r.base set) it is
// function.MergeTakingOriginal, and a resource deleted upstream but changed locally,
// which that run deletes as under updated, is original's document (found in r.base by
// baseDocs) in dest's place, so that the markers show it as the base of that conflict.
func (r resourceRun) merge(items []roles.Item, fromDest int, cfg *config.Config) (*resources.Outcome, error) {
	if r.base == nil {
		return function.Merge(items, cfg)
	}
	out, err := function.MergeTakingOriginal(items, cfg)
	if err != nil {
		return out, err
	}
	var base func(*roles.Item) *yaml.RNode
	for _, c := range out.Conflicts {
		if c.Field != nil || c.Item == nil {
			continue
		}
		if base == nil {
			base = baseDocs(r.base, items[fromDest:])
		}
		n := c.Item.Node
		if b := base(c.Item); b != nil {
			n = b
		}
		cp := n.Copy()
		at := c.Item.Node.GetAnnotations()
		for _, a := range append(vocab.PathAnnotations[:], vocab.IndexAnnotations[:]...) {
			if v, ok := at[a]; ok {
				if err := cp.PipeE(yaml.SetAnnotation(a, v)); err != nil {
					return nil, err
				}
			}
		}
		out.Items = append(out.Items, cp)
	}
	return out, nil
}

// finishRecords records each pending release in its Kptfile among changes (or, when
// the update does not change the Kptfile, in the local one, data), for an update under
// onConflict mark that marked nothing: its Kptfiles then end as a normal update writes
// them. local gives the local Kptfiles by path.
func finishRecords(changes []fileChange, pending []recording, local map[string]*pkgio.File) ([]fileChange, error) {
	at := map[string]int{}
	for i, c := range changes {
		at[c.change.Path] = i
	}
	for _, r := range pending {
		i, ok := at[r.File]
		switch {
		case ok && changes[i].change.Delete:
			continue
		case ok:
			data, err := recordKptfile(changes[i].change.Data, r.File, r)
			if err != nil {
				return nil, err
			}
			changes[i].change.Data = data
		default:
			f := local[r.File]
			if f == nil {
				return nil, errors.New(r.File + ": the local Kptfile is gone")
			}
			data, err := recordKptfile(f.Data, r.File, r)
			if err != nil {
				return nil, err
			}
			if !bytes.Equal(data, f.Data) {
				changes = append(changes, fileChange{change: stage.Change{Path: r.File, Data: data, Mode: f.Mode}, action: "modified", old: f.Data})
			}
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].change.Path < changes[j].change.Path })
	return changes, nil
}

// besideFile writes upstream's version of a file, f, at target (besideName), for a
// conflict markers cannot hold; a KRM file encoded as the update writes it.
func (m *merger) besideFile(f *pkgio.File, target string) error {
	data := f.Data
	if f.KRM() {
		var err error
		if data, err = pkgio.Encode(f.Header, f.Docs); err != nil {
			return fmt.Errorf("%s: encoding: %w", target, err)
		}
	}
	m.changes = append(m.changes, fileChange{change: stage.Change{Path: target, Data: data, Mode: f.Mode}, action: "added"})
	return nil
}

// parsesAsYAML reports whether the text file at target is YAML that must still parse
// once its markers are resolved: kpt reads its name (pkgio.KRMCandidate) and data
// is well-formed YAML.
func parsesAsYAML(target string, data []byte) bool {
	if !pkgio.KRMCandidate(target) {
		return false
	}
	_, err := pkgio.Parse(data, target)
	return err == nil
}
