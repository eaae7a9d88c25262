package merge

import (
	"fmt"
	"strings"

	"github.com/krm-merge/krm-merge/internal/render"
)

// PartKind names the kind of a Part of a value.
type PartKind string

const (
	// RepositoryPart is an image reference's repository name (registry and path).
	RepositoryPart PartKind = "repository"
	// TagPart is an image reference's tag.
	TagPart PartKind = "tag"
	// DigestPart is an image reference's digest.
	DigestPart PartKind = "digest"
	// VersionPart is an image reference's tag and digest taken as one part, where both
	// differ among the three references.
	VersionPart PartKind = "tag and digest"
	// ElementsPart is a run of list elements.
	ElementsPart PartKind = "elements"
	// LinesPart is a run of lines of a string.
	LinesPart PartKind = "lines"
)

// PartChange says who changed a Part.
type PartChange string

const (
	// ChangedUpstream: only updated changed the part; the merge takes updated's.
	ChangedUpstream PartChange = "updated"
	// ChangedLocally: only dest changed the part; the merge keeps dest's.
	ChangedLocally PartChange = "dest"
	// ChangedAlike: both sides made the same change; the merge keeps it (dest's copy).
	ChangedAlike PartChange = "both alike"
	// ChangedBoth: both sides changed the part differently (or, for elements and
	// lines, changed runs that touch): a conflict the winner decides (Options.Winner).
	ChangedBoth PartChange = "conflict"
)

// Span is a run of elements or lines of one source: Start is 0-based; Len may be 0 (an
// insertion point: the run would sit before Start).
type Span struct {
	Start, Len int
}

// Part is one part of a value that one or both sides changed.
type Part struct {
	// Kind is what the part is.
	Kind PartKind
	// Change says who changed it.
	Change PartChange
	// OriginalAt, UpdatedAt and DestAt are, for elements and lines, where the part is
	// in each source (0-based element or line indexes); for an image part found in an
	// element or a line (Within), that element or line; zero for the other image parts.
	OriginalAt, UpdatedAt, DestAt Span
	// Within is, for a part of an image reference found in one element of an atomic
	// list or one line of a multi-line string, ElementsPart or LinesPart (the spans
	// say which element or line, Len 1 on each side); "" for every other part.
	Within PartKind
	// Original, Updated and Dest are the part as each source holds it: an image
	// component ("" where the reference has none), a run of elements as a flow list
	// ("[a, b]"), or a run of lines with their line ends.
	Original, Updated, Dest string
}

// Where names the part in a message by its place in dest (where the output's field
// path points): "the tag"; "element [2]" or "elements [2..3]" (positions as field
// paths number them), "line 3" or "lines 3-5" (from 1); where original has no element
// or line there (an insertion), "an insertion at [2]" or "an insertion at line 3"; a
// part of an image reference in an element or a line (Within), "the tag in element
// [2]", "the digest in line 3".
func (p Part) Where() string {
	d := p.DestAt
	switch {
	case p.Within != "":
		in := Part{Kind: p.Within, OriginalAt: p.OriginalAt, UpdatedAt: p.UpdatedAt, DestAt: p.DestAt}
		return "the " + string(p.Kind) + " in " + in.Where()
	case p.Kind == ElementsPart && p.OriginalAt.Len == 0:
		return fmt.Sprintf("an insertion at [%d]", d.Start)
	case p.Kind == ElementsPart && d.Len == 1:
		return fmt.Sprintf("element [%d]", d.Start)
	case p.Kind == ElementsPart && d.Len == 0:
		return fmt.Sprintf("the elements before [%d]", d.Start)
	case p.Kind == ElementsPart:
		return fmt.Sprintf("elements [%d..%d]", d.Start, d.Start+d.Len-1)
	case p.Kind == LinesPart && p.OriginalAt.Len == 0:
		return fmt.Sprintf("an insertion at line %d", d.Start+1)
	case p.Kind == LinesPart && d.Len == 1:
		return fmt.Sprintf("line %d", d.Start+1)
	case p.Kind == LinesPart && d.Len == 0:
		return fmt.Sprintf("the lines before line %d", d.Start+1)
	case p.Kind == LinesPart:
		return fmt.Sprintf("lines %d-%d", d.Start+1, d.Start+d.Len)
	}
	return "the " + string(p.Kind)
}

// Describe renders what a part's change is, on one line: where it is and, for a
// change of one side, the part before and after it, e.g. `the tag (v3.4.0 -> v3.5.0)`;
// for a conflict the three versions, e.g. `the tag (original v3.4.0, updated v3.5.0,
// dest v3.4.1)`. Long texts are cut as Conflict.Describe cuts values.
func (p Part) Describe() string {
	o, u, d := p.text(p.Original), p.text(p.Updated), p.text(p.Dest)
	v := render.BriefTexts(o, u, d)
	switch p.Change {
	case ChangedUpstream:
		return fmt.Sprintf("%s (%s -> %s)", p.Where(), v[0], v[1])
	case ChangedLocally, ChangedAlike:
		return fmt.Sprintf("%s (%s -> %s)", p.Where(), v[0], v[2])
	}
	return fmt.Sprintf("%s (original %s, updated %s, dest %s)", p.Where(), v[0], v[1], v[2])
}

// text renders one side's text of the part for a message: an absent image component is
// "none", no lines are "(no lines)", lines are folded onto one line.
func (p Part) text(s string) string {
	switch {
	case p.Kind == LinesPart && s == "":
		return "(no lines)"
	case p.Kind == LinesPart:
		return strings.Join(strings.Fields(s), " ")
	case s == "" && p.Kind != ElementsPart:
		return "none"
	}
	return s
}
