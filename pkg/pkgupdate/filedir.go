package pkgupdate

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/stage"
)

// fileOrDir decides each path that is a file in updated and a directory in dest or the
// other way round (a file replacing a directory, in either direction), as a whole: the
// file and every file under the directory. When dest's side is as original had it,
// upstream's change is taken; when updated's is, dest's is kept; else it is a
// conflict, reported with what each side has, that onConflict decides
// (fileOrDirConflict). A directory holding a subpackage with its own upstream is never
// replaced. Nothing is ever deleted silently. It returns every path it decided (of all
// three trees), which the merges of resources and text then leave alone.
func (m *merger) fileOrDir(t trees, subs []string) (map[string]bool, error) {
	points := fileOrDirPaths(t, subs)
	if len(points) == 0 {
		return nil, nil
	}
	decided := map[string]bool{}
	for _, p := range points {
		eo, eu, ed := entry(t.original, p), entry(t.updated, p), entry(t.dest, p)
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
			var err error
			if takeUpdated, err = m.fileOrDirConflict(p, eo, eu, ed, hasSub); err != nil {
				return nil, err
			}
		}
		if takeUpdated {
			if err := m.takeUpstream(p, eu, ed); err != nil {
				return nil, err
			}
		}
	}
	return decided, nil
}

// fileOrDirPaths are, in order, the paths that are a file in t's updated tree and a
// directory in its dest tree (a subpackage's directory, subs, is one), or the other way
// round.
func fileOrDirPaths(t trees, subs []string) []string {
	dirsOf := func(paths []string) map[string]bool {
		dirs := map[string]bool{}
		for _, p := range paths {
			for dir := path.Dir(p); dir != "." && !dirs[dir]; dir = path.Dir(dir) {
				dirs[dir] = true
			}
		}
		return dirs
	}
	upDirs := dirsOf(keys(t.updated.Files))
	destDirs := dirsOf(append(keys(t.dest.Files), subs...))
	for _, s := range subs {
		destDirs[s] = true
	}
	var points []string
	for p := range t.updated.Files {
		if destDirs[p] {
			points = append(points, p)
		}
	}
	for p := range t.dest.Files {
		if upDirs[p] {
			points = append(points, p)
		}
	}
	sort.Strings(points)
	return points
}

// fileOrDirConflict reports the conflict at p, where the original, updated and dest
// trees have eo, eu and ed (entry; hasSub: dest's holds a subpackage with its own
// upstream), and says whether upstream's side is taken: onConflict updated takes it
// (every local file under the path is deleted, and listed), dest keeps the package's,
// mark keeps it and writes upstream's beside it, error fails the update. Under updated
// a subpackage's directory is an error.
func (m *merger) fileOrDirConflict(p string, eo, eu, ed []*pkgio.File, hasSub bool) (bool, error) {
	target := path.Join(m.rel, p)
	local := shape(ed, p)
	if hasSub {
		local = "a directory holding a subpackage with its own upstream"
	}
	msg := fmt.Sprintf("a file on one side, a directory on the other: upstream %s has %s, the local copy %s (upstream %s had %s)",
		m.src.toRef, shape(eu, p), local, m.src.fromRef, shape(eo, p))
	switch m.cfg.OnConflict {
	case config.DestWins:
		msg += "; dest wins: the local copy's is kept"
	case config.MarkConflicts:
		beside := path.Join(m.rel, besideName(p, m.pr))
		msg += "; marked: the local copy's is kept, upstream's written beside it as " + beside
		m.marking.beside(target, beside)
		for _, f := range eu {
			if err := m.besideFile(f, beside+strings.TrimPrefix(f.Path, p)); err != nil {
				return false, err
			}
		}
	case config.FailOnConflict:
		msg += "; onConflict is error, so nothing is written"
	default:
		if hasSub {
			return false, &pkgio.Error{Path: target, Err: fmt.Errorf("%s; the local directory holds a subpackage with its own upstream, "+
				"which the update never deletes: move it, or update with onConflict dest", msg)}
		}
		msg += fmt.Sprintf("; updated wins: upstream's replaces the local copy's (%s deleted)", count(len(ed), "local file"))
	}
	m.pr.Conflicts = append(m.pr.Conflicts, Conflict{File: target, Message: msg})
	m.pr.Counts.Conflicts++
	return m.cfg.OnConflict != config.DestWins && m.cfg.OnConflict != config.MarkConflicts && !hasSub, nil
}

// takeUpstream replaces dest's entry at p, ed, by updated's, eu: each local file
// deleted, each upstream file added (a KRM file encoded as the update writes it), and
// their resources listed in the report.
func (m *merger) takeUpstream(p string, eu, ed []*pkgio.File) error {
	for _, f := range ed {
		m.changes = append(m.changes, fileChange{change: stage.Change{Path: path.Join(m.rel, f.Path), Delete: true}, action: "deleted", old: f.Data})
		for _, doc := range f.Docs {
			m.pr.Resources = append(m.pr.Resources, ResourceChange{Action: "deleted", Resource: describe(doc.Node), File: path.Join(m.rel, f.Path)})
		}
	}
	for _, f := range eu {
		data := f.Data
		if f.KRM() {
			var err error
			if data, err = pkgio.Encode(f.Header, f.Docs); err != nil {
				return fmt.Errorf("%s: encoding: %w", path.Join(m.rel, f.Path), err)
			}
			for _, doc := range f.Docs {
				m.pr.Resources = append(m.pr.Resources, ResourceChange{Action: "added", Resource: describe(doc.Node), File: path.Join(m.rel, f.Path)})
			}
		}
		m.changes = append(m.changes, fileChange{change: stage.Change{Path: path.Join(m.rel, f.Path), Data: data, Mode: f.Mode},
			action: "added", replacesDir: f.Path == p && len(ed) > 0})
	}
	return nil
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
