package merge

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldrules"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Options tune a merge. The zero value merges with heuristic keys only, lets updated win
// conflicts, applies no field rules and returns a fresh tree.
type Options struct {
	// Winner is the role whose value the output holds at a 3-way conflict
	// (docs/merge-semantics.md, "Conflict"): vocab.Updated, as in kyaml merge3, also for
	// the zero value and any role that is not Dest or Original; vocab.Dest; or
	// vocab.Original, every conflicting field and part original's (absent where original
	// has none) while everything else merges as under the other winners: the common
	// ancestor of each conflict's two sides, which conflict markers show between them
	// (package pkgupdate's base side). 2-way merges have no conflicts.
	Winner vocab.Role
	// Lists decides which lists are associative and by which merge keys. Nil means
	// schema.New(schema.Options{}): the default associative keys only, without
	// kyaml's built-in Kubernetes schema.
	Lists *schema.Resolver
	// FieldRules are the resource's field rules (package fieldrules: fieldrules.For
	// selects them), applied to the merge's output (applyFieldRules says how): each sets
	// the value at its path, decides the conflicts at and below it (they leave
	// Result.Conflicts) and drops the values merged inside there from
	// Result.ValueMerges; keepDest and takeUpdated rules that changed the output or
	// decided a conflict are Result.RuleEffects.
	FieldRules []fieldrules.PathRule
	// Share lets the output share the subtrees it takes unchanged with updated (src)
	// and dest: the merge copies only the maps and lists it changes, so its cost is the
	// size of the change, not of the resource. The inputs are still never modified; a
	// caller that changes the output below its root must not use updated or dest
	// afterwards, or copy first. Package resources sets it for whole ResourceLists,
	// where updated and dest are not written out as they were. The zero value returns
	// a new tree that shares no node with the inputs.
	Share bool
	// KeepDestPositions places each list element new upstream as late as updated's
	// order allows in the 3-way merge (right before its nearest successor in updated
	// that the output has, else at the end) instead of right after its predecessor
	// (docs/merge-semantics.md, "Element order"), so that dest's elements keep their
	// positions. Package resources sets it for output that goes to a host which pairs
	// list elements by position. The zero value places them after their predecessor.
	KeepDestPositions bool
	// ValueMerge makes the 3-way merge merge inside a value changed on both sides
	// before calling it a conflict (docs/merge-semantics.md, "Merging inside a
	// value"): an image reference (a string field named image, or a string, list
	// element or line whose three versions differ in one token that is a reference of
	// one image) by repository, tag and digest; an atomic list by runs of elements and a multi-line string by lines, with
	// git merge-file's rules. A part both sides changed differently is a conflict of
	// that part alone (Conflict.Part); Result.ValueMerges lists the values
	// merged. The zero value leaves it off: such a value is one conflict, as in kyaml's
	// merge3, which the differential tests against kyaml rely on; package function
	// turns it on unless the functionConfig's valueMerge is false. 2-way merges ignore
	// it.
	ValueMerge bool

	// AliasFree promises that no input holds a YAML alias (package function measures
	// every item with internal/bounds); the engine then skips its own alias check, a
	// walk of each input. Wrongly set, aliased inputs may be changed by the merge. The
	// zero value promises nothing.
	AliasFree bool
	// NullElementFree promises that no input holds a null element in a list of
	// primitives (bounds.HasNullElement); the engine then skips its walk that drops
	// such elements (docs/merge-semantics.md, rule 5). Wrongly set, a null element may
	// be merged as a value. The zero value promises nothing.
	NullElementFree bool
}

// Result is everything a merge found.
type Result struct {
	// Value is the merged value (nil when the merge clears it); with Options.Share it
	// may share subtrees with updated (src) and dest.
	Value *yaml.RNode
	// Conflicts are every 3-way conflict found, in document order, each already decided
	// by Options.Winner, but those a field rule decided; a conflicting part of a value
	// merged inside is one Conflict with its Part. Nil in 2-way. A caller that
	// refuses a merge with conflicts can return them: Conflicts is an error.
	Conflicts Conflicts
	// ValueMerges are the values original, updated and dest held three different ways
	// that the merge merged inside, in document order, also those whose every changed
	// part conflicts, but those at or below a field rule's path; nil without
	// Options.ValueMerge.
	ValueMerges []ValueMerge
	// RuleEffects are, per keepDest or takeUpdated field rule (Options.FieldRules) that
	// changed the output or decided a conflict, what it did, in rule order.
	RuleEffects []RuleEffect
}

// ThreeWay merges the change from original to updated onto dest, one resource (or any
// YAML value) at a time, by the 3-way rules of docs/merge-semantics.md (kustomize's merge3
// API conventions, kyaml yaml/merge3, with the fixes docs/differences.md lists), then
// applies opts.FieldRules.
//
// Inputs: original, updated and dest as parsed by kyaml; any of them may be nil (absent),
// e.g. original is nil for a resource added on both sides. They are not modified.
// Output: a Result: the merged value (a new tree unless opts.Share; nil when the merge
// clears it, e.g. dest is an explicit null and upstream changed the value), every
// conflict found, in document order, each already decided by opts.Winner, the values
// merged inside (opts.ValueMerge) and the field rules' effects. Errors: none today for
// well-formed YAML; the error is kept for rules that can fail.
func ThreeWay(original, updated, dest *yaml.RNode, opts Options) (Result, error) {
	r := threeWayShared(original, updated, dest, opts)
	if len(opts.FieldRules) > 0 {
		var err error
		if r, err = withFieldRules(r, original, updated, dest, false, opts.FieldRules); err != nil {
			return Result{}, err
		}
	}
	if !opts.Share {
		r.Value = copyRNode(r.Value)
	}
	return r, nil
}

// TwoWay merges src into dest by the 2-way rules of docs/merge-semantics.md (kyaml
// yaml/merge2), then applies opts.FieldRules (updated is src): src wins where it sets a
// value, `null` in src clears, dest-only fields and elements are kept, keyed lists keep
// dest's order with src's new elements appended. Strategic-merge directives in src are
// honoured: `$patch: delete | replace | merge` on maps and keyed elements, a
// sequence-level `{$patch: replace}` (or delete, merge), `$retainKeys`,
// `$setElementOrder/<list>` and `$deleteFromPrimitiveList/<list>` (the last three kyaml
// ignores).
//
// Inputs are not modified; either may be nil. Output: a Result with the merged value (a
// new tree unless opts.Share; nil when src clears the whole value) and the field rules'
// effects. Errors: a *DirectiveError naming the field path of an unknown `$patch`
// value or a malformed directive (also in a src value a takeUpdated rule takes).
func TwoWay(src, dest *yaml.RNode, opts Options) (Result, error) {
	out, err := twoWayShared(src, dest, opts)
	if err != nil {
		return Result{}, err
	}
	r := Result{Value: out}
	if len(opts.FieldRules) > 0 {
		if r, err = withFieldRules(r, nil, src, dest, true, opts.FieldRules); err != nil {
			return Result{}, err
		}
	}
	if !opts.Share {
		r.Value = copyRNode(r.Value)
	}
	return r, nil
}

// withFieldRules applies rules to the merge's result r (applyFieldRules) and drops the
// values merged inside at or below a rule's path (the rule decides the value there).
func withFieldRules(r Result, original, updated, dest *yaml.RNode, twoWay bool, rules []fieldrules.PathRule) (Result, error) {
	out, kept, effects, err := applyFieldRules(r.Value, original, updated, dest, twoWay, rules, r.Conflicts)
	if err != nil {
		return Result{}, err
	}
	var values []ValueMerge
	for _, v := range r.ValueMerges {
		ruled := false
		for _, rule := range rules {
			ruled = ruled || v.Path.HasPrefix(rule.Path)
		}
		if !ruled {
			values = append(values, v)
		}
	}
	return Result{Value: out, Conflicts: kept, ValueMerges: values, RuleEffects: effects}, nil
}

// copyRNode deep-copies r's node into a new RNode; nil stays nil.
func copyRNode(r *yaml.RNode) *yaml.RNode {
	if r == nil {
		return nil
	}
	return yaml.NewRNode(copyNode(r.YNode()))
}

// Equal reports whether a and b hold the same value by the engine's rules: scalars by
// tag and value (never comments or quoting), maps by field name in any order, lists in
// order; nil equals only nil.
func Equal(a, b *yaml.RNode) bool { return equal(ynode(a), ynode(b)) }
