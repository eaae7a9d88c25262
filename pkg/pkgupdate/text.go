package pkgupdate

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"

	"github.com/krm-merge/krm-merge/internal/textmerge"
	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/stage"
)

// mergeText merges the text files at paths (README.md, scripts, YAML that is not KRM)
// 3-way, file by file:
//
//	original upstream dest
//	   -        U      -     added upstream: added
//	   O        U      -     deleted locally: stays deleted (a warning when U differs from O)
//	   O        -      D     deleted upstream: deleted when D equals O, else a conflict
//	                         (updated: deleted; dest: kept)
//	   -        -      D     local only: kept
//	   O?       U      D     line merge (git merge-file), O empty when absent; a
//	                         conflicting hunk takes the onConflict side
//
// A binary file (binary: a NUL byte among its first 8000, as git decides) in any
// version is not merged by lines: it is taken whole from whichever side changed it, a
// conflict when both did. A file's mode follows upstream's when dest kept original's.
func (m *merger) mergeText(paths []string, t trees) {
	favor, winner := textmerge.FavorUpdated, "updated wins"
	switch m.cfg.OnConflict {
	case config.DestWins:
		favor, winner = textmerge.FavorDest, "dest wins"
	case config.FailOnConflict:
		winner = "onConflict is error, so nothing is written"
	}
	mark := m.cfg.OnConflict == config.MarkConflicts // mark.go
	if mark {
		favor, winner = textmerge.FavorDest, markedText
	}
	for _, p := range paths {
		f := &textFile{m: m, p: p, target: path.Join(m.rel, p), of: t.original.Files[p], uf: t.updated.Files[p], df: t.dest.Files[p],
			favor: favor, winner: winner, mark: mark}
		switch of, uf, df := f.of, f.uf, f.df; {
		case df == nil && uf == nil:
		case df == nil && of == nil:
			f.write(uf.Data, uint32(uf.Mode), "added")
		case df == nil:
			if !bytes.Equal(of.Data, uf.Data) {
				m.pr.Warnings = append(m.pr.Warnings, Note{File: f.target, Message: "deleted locally and stays deleted, but upstream changed it meanwhile"})
			}
		case uf == nil && of == nil:
		case uf == nil:
			f.deletedUpstream()
		default:
			f.changed()
		}
	}
}

// textFile is the merge of one text file (mergeText): the package's file p (target
// from the update's directory), its original, updated and dest versions (nil where
// absent), and how conflicts are decided (favor, named winner in the conflicts; mark:
// onConflict mark).
type textFile struct {
	m          *merger
	p, target  string
	of, uf, df *pkgio.File
	favor      textmerge.Favor
	winner     string
	mark       bool
}

// conflict reports a conflict at lines ("" for the whole file).
func (f *textFile) conflict(lines, msg string) {
	f.m.pr.Conflicts = append(f.m.pr.Conflicts, Conflict{File: f.target, Lines: lines, Message: msg + "; " + f.winner})
	f.m.pr.Counts.Conflicts++
}

// write writes the file with data and mode.
func (f *textFile) write(data []byte, mode uint32, action string) {
	fc := fileChange{change: stage.Change{Path: f.target, Data: data, Mode: modeBits(mode)}, action: action}
	if f.df != nil {
		fc.old = f.df.Data
	}
	f.m.changes = append(f.m.changes, fc)
}

// deletedUpstream merges a file upstream deleted that the package has: deleted when
// unchanged locally, else a conflict (marked, under mark, when neither side is binary).
func (f *textFile) deletedUpstream() {
	m, of, df, target := f.m, f.of, f.df, f.target
	if bytes.Equal(df.Data, of.Data) {
		m.changes = append(m.changes, fileChange{change: stage.Change{Path: target, Delete: true}, action: "deleted", old: df.Data})
		return
	}
	if f.mark && !binary(of.Data) && !binary(df.Data) {
		mk := textmerge.MergeMarked(of.Data, df.Data, nil, labels(m.pr))
		for _, h := range mk.Hunks {
			f.conflict(lines(h.Marked), "deleted upstream but changed locally")
		}
		f.write(mk.Text, uint32(df.Mode), "modified")
		m.marking.addHunks(target, mk, markedFile{Path: target, UpstreamAbsent: true, YAML: parsesAsYAML(target, df.Data),
			Separators: separators(df.Data)})
		return
	}
	if f.mark {
		m.pr.Conflicts = append(m.pr.Conflicts, Conflict{File: target,
			Message: "deleted upstream but changed locally; dest wins: a binary file holds no markers (delete it to take upstream's deletion)"})
		m.pr.Counts.Conflicts++
		return
	}
	f.conflict("", "deleted upstream but changed locally")
	if f.favor == textmerge.FavorUpdated {
		m.changes = append(m.changes, fileChange{change: stage.Change{Path: target, Delete: true}, action: "deleted", old: df.Data})
	}
}

// changed merges a file upstream and the package both have (original's, when absent,
// empty): by lines (git merge-file), a binary file whole; the mode follows upstream's
// when dest kept original's.
func (f *textFile) changed() {
	m, of, uf, df, target := f.m, f.of, f.uf, f.df, f.target
	var base []byte
	baseMode := uint32(df.Mode)
	if of != nil {
		base, baseMode = of.Data, uint32(of.Mode)
	}
	mode := uint32(df.Mode)
	if mode == baseMode && uint32(uf.Mode) != baseMode {
		mode = uint32(uf.Mode)
	}
	merged := df.Data
	switch {
	case bytes.Equal(uf.Data, base), bytes.Equal(uf.Data, df.Data):
	case bytes.Equal(df.Data, base) && of != nil:
		merged = uf.Data
	case (binary(base) || binary(df.Data) || binary(uf.Data)) && f.mark:
		beside := path.Join(m.rel, besideName(f.p, m.pr))
		m.pr.Conflicts = append(m.pr.Conflicts, Conflict{File: target,
			Message: "binary file changed on both sides; marked: the local copy's is kept, upstream's written beside it as " + beside})
		m.pr.Counts.Conflicts++
		m.marking.beside(target, beside)
		m.changes = append(m.changes, fileChange{change: stage.Change{Path: beside, Data: uf.Data, Mode: modeBits(uint32(uf.Mode))}, action: "added"})
	case binary(base) || binary(df.Data) || binary(uf.Data):
		f.conflict("", "binary file changed on both sides")
		if f.favor == textmerge.FavorUpdated {
			merged = uf.Data
		}
	default:
		merged = f.byLines(base)
	}
	if !bytes.Equal(merged, df.Data) || mode != uint32(df.Mode) {
		f.write(merged, mode, "modified")
	}
}

// byLines is the file merged by lines from base (textmerge.Merge), each conflicting
// hunk reported and taking the favoured side, or, under mark, written with markers.
func (f *textFile) byLines(base []byte) []byte {
	df, uf, target := f.df, f.uf, f.target
	r := textmerge.Merge(base, df.Data, uf.Data, f.favor)
	if f.mark && len(r.Conflicts) > 0 {
		mk := textmerge.MergeMarked(base, df.Data, uf.Data, labels(f.m.pr))
		for _, h := range mk.Hunks {
			f.conflict(lines(h.Marked), fmt.Sprintf("changed on both sides (local lines %s, upstream lines %s)", lines(h.Dest), lines(h.Updated)))
		}
		upd := textmerge.Merge(base, df.Data, uf.Data, textmerge.FavorUpdated).Merged
		f.m.marking.addHunks(target, mk, markedFile{Path: target, YAML: parsesAsYAML(target, r.Merged) && parsesAsYAML(target, upd),
			Separators: max(separators(r.Merged), separators(upd), separators(mk.Base))})
		return mk.Text
	}
	for _, c := range r.Conflicts {
		f.conflict(lines(c.Dest), fmt.Sprintf("changed on both sides (local lines %s, upstream lines %s)", lines(c.Dest), lines(c.Updated)))
	}
	return r.Merged
}

// binaryPrefix is how much of a file git looks at to decide it is binary
// (FIRST_FEW_BYTES in git's xdiff-interface.c).
const binaryPrefix = 8000

// binary reports whether b is binary as git decides it (buffer_is_binary): a NUL byte
// among its first 8000 bytes.
func binary(b []byte) bool { return bytes.IndexByte(b[:min(len(b), binaryPrefix)], 0) >= 0 }

// lines formats a line range: "12", "12-15", or "before 12" for an empty one.
func lines(r textmerge.Range) string {
	switch r.Lines {
	case 0:
		return fmt.Sprintf("before %d", r.Start)
	case 1:
		return fmt.Sprint(r.Start)
	default:
		return fmt.Sprintf("%d-%d", r.Start, r.Start+r.Lines-1)
	}
}

// modeBits is a file mode from its permission bits.
func modeBits(m uint32) fs.FileMode { return fs.FileMode(m).Perm() }
