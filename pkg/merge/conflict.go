package merge

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/render"
	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

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
	// Winner is the side whose value the output holds (Options.Winner: vocab.Updated,
	// Dest or Original); for a conflicting Part, the side whose version of the part it
	// holds.
	Winner vocab.Role
	// Part is, for a value merged inside (Options.ValueMerge), the
	// part both sides changed differently (the tag, a run of elements or of lines, with
	// its place in each source); nil when the whole value conflicts.
	Part *Part
	// Merged is, with Part, the value the output holds at Path: every part merged,
	// the conflicting ones decided by the winner; nil otherwise (the output holds the
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
// on one line, each longer than 60 bytes cut to 60 around the places where the values
// differ (briefAll: `...path: /docs pathType: Exact...`; a mirrored reference with a
// bumped digest `registry.example.com/mirror/...@sha256:aaaaaaaaaaaaaaaaa...`), so that
// the message shows the difference and not the common part.
//
// A conflicting Part is described by its place and its three versions instead, e.g.
// `changed on both sides: the tag (original v3.4.0, updated v3.5.0, dest v3.4.1)`.
func (c Conflict) Describe() string {
	if c.Part != nil {
		return fmt.Sprintf("%s: %s", c.Kind, c.Part.Describe())
	}
	v := render.Brief(c.Original, c.Updated, c.Dest)
	return fmt.Sprintf("%s (original %s, updated %s, dest %s)", c.Kind, v[0], v[1], v[2])
}

// Conflicts are conflicts in the order they were found (a merge's, in document order),
// and an error: a caller that refuses to write a merge with conflicts can return them
// when there are any. Error lists each on a line of its own (Conflict.String).
type Conflicts []Conflict

// Error is "<path>: <what>; <winner> wins" for one conflict, or "<n> conflicts:" and one
// such line per conflict, each indented by two spaces.
func (cs Conflicts) Error() string {
	if len(cs) == 1 {
		return cs[0].String()
	}
	lines := make([]string, len(cs))
	for i, c := range cs {
		lines[i] = "  " + c.String()
	}
	return fmt.Sprintf("%d conflicts:\n%s", len(cs), strings.Join(lines, "\n"))
}
