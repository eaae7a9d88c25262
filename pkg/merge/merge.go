package merge

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/schema"
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
	// schema.New(schema.Options{}): the default associative keys only, without
	// kyaml's built-in Kubernetes schema.
	Lists *schema.Resolver
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
	// that part alone (vocab.Conflict.Part); ThreeWayResult lists the values merged. The zero
	// value leaves it off: such a value is one conflict, as in kyaml's merge3, which
	// the differential tests against kyaml rely on; package function turns it on
	// unless the functionConfig's valueMerge is false. 2-way merges ignore it.
	ValueMerge bool
}

// Equal reports whether a and b hold the same value by the engine's rules: scalars by
// tag and value (never comments or quoting), maps by field name in any order, lists in
// order; nil equals only nil.
func Equal(a, b *yaml.RNode) bool { return equal(ynode(a), ynode(b)) }
