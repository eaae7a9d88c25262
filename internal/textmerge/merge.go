package textmerge

import "bytes"

// Favor says which side a conflicting region takes in the merged text.
type Favor int

const (
	// FavorUpdated takes updated's lines (git merge-file --theirs, with updated as
	// "theirs").
	FavorUpdated Favor = iota
	// FavorDest takes dest's lines (git merge-file --ours, with dest as "ours").
	FavorDest
)

// Range is a run of lines: Start is 1-based, Lines may be 0 (then Start is the line
// before which the run would sit).
type Range struct {
	Start, Lines int
}

// Conflict is a region both sides changed differently.
type Conflict struct {
	// Base, Dest and Updated are the region in each input.
	Base, Dest, Updated Range
	// Merged is where the favoured side's lines are in the merged text.
	Merged Range
}

// Result is a 3-way merge.
type Result struct {
	// Merged is the merged text: dest with updated's changes, each conflict resolved
	// by the Favor given.
	Merged []byte
	// Conflicts lists the conflicting regions in order; empty when the merge is clean.
	Conflicts []Conflict
}

// Merge merges the change from base to updated into dest, line by line, as
// `git merge-file -p dest base updated` does, resolving conflicts towards favor as
// `--theirs` (FavorUpdated) or `--ours` (FavorDest) do. Texts are compared byte for
// byte, line terminators included (a last line without "\n" differs from the same line
// with one). It never fails; binary input is merged as lines too (callers decide
// whether to).
func Merge(base, dest, updated []byte, favor Favor) Result {
	ml := MergeLines(base, dest, updated)
	ld, lu, list := ml.Dest, ml.Updated, ml.Regions

	// xdl_fill_merge_buffer: dest's lines, with each region replaced.
	var out bytes.Buffer
	var res Result
	line, at := 0, 1 // next dest line to copy; next line number of the output
	write := func(lines [][]byte) {
		for _, l := range lines {
			out.Write(l)
		}
		at += len(lines)
	}
	for _, r := range list {
		write(ld[line:r.Dest.Start])
		line = r.Dest.End()
		switch r.Kind {
		case DestChanged, SameChange:
			write(ld[r.Dest.Start:r.Dest.End()])
		case UpdatedChanged:
			write(lu[r.Updated.Start:r.Updated.End()])
		default:
			c := Conflict{
				Base:    Range{Start: r.Base.Start + 1, Lines: r.Base.Len},
				Dest:    Range{Start: r.Dest.Start + 1, Lines: r.Dest.Len},
				Updated: Range{Start: r.Updated.Start + 1, Lines: r.Updated.Len},
				Merged:  Range{Start: at},
			}
			if favor == FavorDest {
				write(ld[r.Dest.Start:r.Dest.End()])
			} else {
				write(lu[r.Updated.Start:r.Updated.End()])
			}
			c.Merged.Lines = at - c.Merged.Start
			res.Conflicts = append(res.Conflicts, c)
		}
	}
	write(ld[line:])
	res.Merged = out.Bytes()
	if res.Merged == nil {
		res.Merged = []byte{}
	}
	return res
}
