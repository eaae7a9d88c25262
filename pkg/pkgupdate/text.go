package pkgupdate

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"

	"github.com/krm-merge/krm-merge/internal/textmerge"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/stage"
	"github.com/krm-merge/krm-merge/pkg/vocab"
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
func (u *updater) mergeText(rel string, paths []string, o, up, d *pkgio.Tree, pr *PackageReport) {
	favor, winner := textmerge.FavorUpdated, "updated wins"
	switch u.cfg.OnConflict {
	case vocab.DestWins:
		favor, winner = textmerge.FavorDest, "dest wins"
	case vocab.FailOnConflict:
		winner = "onConflict is error, so nothing is written"
	}
	mark := u.cfg.OnConflict == vocab.MarkConflicts // mark.go
	if mark {
		favor, winner = textmerge.FavorDest, markedText
	}
	for _, p := range paths {
		of, uf, df := o.Files[p], up.Files[p], d.Files[p]
		target := path.Join(rel, p)
		conflict := func(lines, msg string) {
			pr.Conflicts = append(pr.Conflicts, Conflict{File: target, Lines: lines, Message: msg + "; " + winner})
			pr.Counts.Conflicts++
		}
		write := func(data []byte, mode uint32, action string) {
			fc := fileChange{change: stage.Change{Path: target, Data: data, Mode: modeBits(mode)}, action: action}
			if df != nil {
				fc.old = df.Data
			}
			u.changes = append(u.changes, fc)
		}
		switch {
		case df == nil && uf == nil:
		case df == nil && of == nil:
			write(uf.Data, uint32(uf.Mode), "added")
		case df == nil:
			if !bytes.Equal(of.Data, uf.Data) {
				pr.Warnings = append(pr.Warnings, Note{File: target, Message: "deleted locally and stays deleted, but upstream changed it meanwhile"})
			}
		case uf == nil && of == nil:
		case uf == nil:
			if bytes.Equal(df.Data, of.Data) {
				u.changes = append(u.changes, fileChange{change: stage.Change{Path: target, Delete: true}, action: "deleted", old: df.Data})
				continue
			}
			if mark && !binary(of.Data) && !binary(df.Data) {
				m := textmerge.MergeMarked(of.Data, df.Data, nil, labels(pr))
				for _, h := range m.Hunks {
					conflict(lines(h.Marked), "deleted upstream but changed locally")
				}
				write(m.Text, uint32(df.Mode), "modified")
				u.addMarks(target, m, markedFile{Path: target, UpstreamAbsent: true, YAML: parsesAsYAML(target, df.Data),
					Separators: separators(df.Data)})
				continue
			}
			if mark {
				pr.Conflicts = append(pr.Conflicts, Conflict{File: target,
					Message: "deleted upstream but changed locally; dest wins: a binary file holds no markers (delete it to take upstream's deletion)"})
				pr.Counts.Conflicts++
				continue
			}
			conflict("", "deleted upstream but changed locally")
			if favor == textmerge.FavorUpdated {
				u.changes = append(u.changes, fileChange{change: stage.Change{Path: target, Delete: true}, action: "deleted", old: df.Data})
			}
		default:
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
			case (binary(base) || binary(df.Data) || binary(uf.Data)) && mark:
				beside := path.Join(rel, besideName(p, pr))
				pr.Conflicts = append(pr.Conflicts, Conflict{File: target,
					Message: "binary file changed on both sides; marked: the local copy's is kept, upstream's written beside it as " + beside})
				pr.Counts.Conflicts++
				u.marks = append(u.marks, Mark{File: target, Beside: beside})
				u.marked = append(u.marked, markedFile{Path: target, Beside: beside})
				u.changes = append(u.changes, fileChange{change: stage.Change{Path: beside, Data: uf.Data, Mode: modeBits(uint32(uf.Mode))}, action: "added"})
			case binary(base) || binary(df.Data) || binary(uf.Data):
				conflict("", "binary file changed on both sides")
				if favor == textmerge.FavorUpdated {
					merged = uf.Data
				}
			default:
				r := textmerge.Merge(base, df.Data, uf.Data, favor)
				if mark && len(r.Conflicts) > 0 {
					m := textmerge.MergeMarked(base, df.Data, uf.Data, labels(pr))
					for _, h := range m.Hunks {
						conflict(lines(h.Marked), fmt.Sprintf("changed on both sides (local lines %s, upstream lines %s)", lines(h.Dest), lines(h.Updated)))
					}
					upd := textmerge.Merge(base, df.Data, uf.Data, textmerge.FavorUpdated).Merged
					u.addMarks(target, m, markedFile{Path: target, YAML: parsesAsYAML(target, r.Merged) && parsesAsYAML(target, upd),
						Separators: max(separators(r.Merged), separators(upd), separators(m.Base))})
					merged = m.Text
					break
				}
				for _, c := range r.Conflicts {
					conflict(lines(c.Dest), fmt.Sprintf("changed on both sides (local lines %s, upstream lines %s)", lines(c.Dest), lines(c.Updated)))
				}
				merged = r.Merged
			}
			if !bytes.Equal(merged, df.Data) || mode != uint32(df.Mode) {
				write(merged, mode, "modified")
			}
		}
	}
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
