package merge

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/listkind"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Options tune a merge. The zero value merges with heuristic keys only and lets updated
// win conflicts.
type Options struct {
	// Policy decides 3-way conflicts (docs/merge-semantics.md, "Conflict"): the output
	// holds the value of its Winner (updated for the zero value, as in kyaml merge3;
	// dest under vocab.DestWins; original's under vocab.OriginalWins, while everything
	// else merges as under the other policies: the common ancestor of each conflict's
	// two sides, which conflict markers show between them). 2-way merges have none.
	Policy vocab.ConflictPolicy
	// Lists decides which lists are associative and by which merge keys. Nil means
	// listkind.New(false, listkind.SeedKeys): the seed's associative keys only, without
	// kyaml's built-in Kubernetes schema.
	Lists *listkind.Resolver
	// AliasFree says the caller has checked that no input tree holds a YAML alias
	// (package function measures every item before merging); the engines then skip
	// their own check, a walk of each input. Set it wrongly and aliased inputs may be
	// changed (the engines copy them before merging in place).
	AliasFree bool
	// NullElementFree says the caller has checked that no input holds a null element in
	// a list of primitives (HasNullElement); the engines then skip their own walk that
	// drops such elements (rule 5). Set it wrongly and a null element may be merged as a
	// value.
	NullElementFree bool
	// PositionalHost says the output goes to a host that copies comments and field order
	// from each input item onto its output pairing list elements by position (kpt and
	// kustomize: kyaml's comments.CopyComments and order.SyncOrder, for items that carry
	// the host's id; they pair every list by position first, keyed or not). The 3-way
	// merge then places an element new upstream as late as updated's order allows (right
	// before its nearest successor in updated that the output has, else at the end)
	// instead of right after its predecessor, so that dest's elements keep their
	// positions and the host pairs them with themselves.
	PositionalHost bool
	// ValueMerge makes the 3-way merge merge inside a value changed on both sides
	// before calling it a conflict (docs/merge-semantics.md, "Merging inside a
	// value"): an image reference (a string field named image) by repository, tag and
	// digest; an atomic list by runs of elements and a multi-line string by lines, with
	// git merge-file's rules. A part both sides changed differently is a conflict of
	// that part alone (Conflict.Part); ThreeWayResult lists the values merged. The zero
	// value leaves it off: such a value is one conflict, as in kyaml's merge3, which
	// the differential tests against kyaml rely on; package function turns it on
	// unless the functionConfig's valueMerge is false. 2-way merges ignore it.
	ValueMerge bool
}

// ConflictKind says which three-sided disagreement a Conflict is.
type ConflictKind string

const (
	// BothChanged: original, updated and dest all differ (a value changed on both sides,
	// or added on both sides with different values).
	BothChanged ConflictKind = "changed on both sides"
	// DeletedUpstream: updated deleted a field, map or element that dest changed.
	DeletedUpstream ConflictKind = "deleted upstream, changed locally"
	// DeletedLocally: dest deleted a field, map or element that updated changed.
	DeletedLocally ConflictKind = "deleted locally, changed upstream"
)

// Conflict is one field that original, updated and dest hold three different ways
// (an absent field counting as a value). Explicit nulls are never conflicts.
type Conflict struct {
	// Path is where the conflict is, from the resource root.
	Path fieldpath.Path
	// Kind says which disagreement it is.
	Kind ConflictKind
	// Original, Updated and Dest are the three values at Path; nil where absent.
	Original, Updated, Dest *yaml.RNode
	// Winner is the side whose value the output holds: "updated", "dest", or under
	// vocab.OriginalWins "original"; for a conflicting Part, the side whose version of the
	// part it holds.
	Winner string
	// Part is, for a value merged inside (Options.ValueMerge), the part both sides
	// changed differently (the tag, a run of elements or of lines, with its place in
	// each source); nil when the whole value conflicts.
	Part *Part
	// Merged is, with Part, the value the output holds at Path: every part merged,
	// the conflicting ones decided by the policy; nil otherwise (the output holds the
	// Winner's value).
	Merged *yaml.RNode
}

// String renders the conflict with its path and winner, e.g.
// `spec.replicas: changed on both sides (original 1, updated 2, dest 3); updated wins`.
func (c Conflict) String() string {
	return fmt.Sprintf("%s: %s; %s wins", c.Path, c.Describe(), c.Winner)
}

// Describe renders what disagrees, without path or winner (a result carries the path in
// field.path), e.g. `changed on both sides (original 1, updated 2, dest 3)`. Values are
// on one line and cut to 60 characters; where long values share their beginning, each is
// shown from shortly before the first place they differ (`...path: /docs pathType:
// Exact...`), so that the message shows the difference and not the common part.
//
// A conflicting Part is described by its place and its three versions instead, e.g.
// `changed on both sides: the tag (original v3.4.0, updated v3.5.0, dest v3.4.1)`.
func (c Conflict) Describe() string {
	if c.Part != nil {
		return fmt.Sprintf("%s: %s", c.Kind, c.Part.Describe())
	}
	v := briefAll(c.Original, c.Updated, c.Dest)
	return fmt.Sprintf("%s (original %s, updated %s, dest %s)", c.Kind, v[0], v[1], v[2])
}

// briefMax is the longest value a message shows, in bytes; briefLead is how much of the
// common beginning briefAll keeps before the first difference.
const (
	briefMax  = 60
	briefLead = 16
)

// briefAll renders each value as short does, except that where two or more values are
// longer than briefMax and begin alike for more than briefLead bytes, every such value is
// cut at the front to start briefLead bytes before the first byte where any of them
// differ, marked with "...".
func briefAll(ns ...*yaml.RNode) []string {
	full := make([]string, len(ns))
	var long []string
	for i, n := range ns {
		full[i] = oneLine(n)
		if n != nil && !n.IsNil() && len(full[i]) > briefMax {
			long = append(long, full[i])
		}
	}
	start := 0
	if len(long) > 1 {
		p := commonPrefix(long)
		if p > briefLead {
			start = p - briefLead
			for start > 0 && !utf8.RuneStart(long[0][start]) {
				start--
			}
		}
	}
	out := make([]string, len(ns))
	for i, n := range ns {
		s := full[i]
		if start > 0 && n != nil && !n.IsNil() && len(s) > briefMax {
			s = "..." + s[start:]
		}
		out[i] = limit(s)
	}
	return out
}

// commonPrefix returns the length in bytes of the beginning all of ss share.
func commonPrefix(ss []string) int {
	p := len(ss[0])
	for _, s := range ss[1:] {
		if len(s) < p {
			p = len(s)
		}
		for i := 0; i < p; i++ {
			if s[i] != ss[0][i] {
				p = i
				break
			}
		}
	}
	return p
}

// short renders a value on one line, cut to 60 characters; "<absent>" for nil.
func short(n *yaml.RNode) string { return limit(oneLine(n)) }

// oneLine renders a value on one line, whole: a scalar's value, a collection's YAML with
// its white space folded; "<absent>" for nil.
func oneLine(n *yaml.RNode) string {
	if n.IsNil() {
		return "<absent>"
	}
	if n.YNode().Kind == yaml.ScalarNode {
		return n.YNode().Value
	}
	s, err := n.String()
	if err != nil {
		return "<unprintable>"
	}
	return strings.Join(strings.Fields(s), " ")
}

// limit cuts s to briefMax bytes, ending in "..." and never inside a UTF-8 sequence.
func limit(s string) string {
	if len(s) <= briefMax {
		return s
	}
	end := briefMax - 3
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "..."
}

// Equal reports whether a and b hold the same value by the engine's rules: scalars by
// tag and value (never comments or quoting), maps by field name in any order, lists in
// order; nil equals only nil.
func Equal(a, b *yaml.RNode) bool { return equal(ynode(a), ynode(b)) }
