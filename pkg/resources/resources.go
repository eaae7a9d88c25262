package resources

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/parallel"
	"github.com/krm-merge/krm-merge/pkg/fieldrules"
	"github.com/krm-merge/krm-merge/pkg/identity"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/plan"
	"github.com/krm-merge/krm-merge/pkg/resources/internal/host"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Options say how Run applies the rules. Package function builds them from the
// functionConfig.
type Options struct {
	// Roles are the options the items were assigned with (roles.Assign): the run's
	// mode, the role annotation (never merged, removed from added items) and the role
	// directories (with path roles an added item goes to the dest directory,
	// Roles.AddDir).
	Roles roles.Options
	// Identity says how Run indexes the items (identity.Index): mergeOnPath; a nil
	// Namespaced is Merge.Lists' (schema.Resolver.Namespaced).
	Identity identity.Options
	// KeepSources also emits the original, updated and src items unchanged.
	KeepSources bool
	// Merge tunes the field engine (lists, merging inside values, whose merges Run
	// reports as info results, the checks the caller made); Run sets its FieldRules,
	// Share and KeepDestPositions per resource. Its Winner, the run's one winner,
	// decides conflicts of fields and of whole resources: vocab.Updated (kyaml's
	// behaviour, also the zero value), vocab.Dest, or vocab.Original (fields take
	// original's value; resources are decided as under vocab.Updated). Dest does not
	// apply in apply mode.
	Merge merge.Options
	// FailOnConflict says the caller fails the run on any conflict (onConflict error):
	// conflict results are errors without a proposed value (package results), and in
	// apply mode Run refuses what kubectl apply --overwrite=false refuses. The merge
	// still decides conflicts by Merge.Winner, so that the run reports every count and
	// change.
	FailOnConflict bool
	// FieldRules are the functionConfig's field rules (3way and 2way).
	FieldRules []fieldrules.Rule
	// Plan makes Results the plan of the run (what it would change, field by field),
	// and leaves the items out of the outcome's concern (the caller emits its input).
	Plan bool
	// ShowSecretValues prints a Secret's data and stringData values in results; without
	// it package results redacts them (results.At.ShowSecretValues).
	ShowSecretValues bool
}

// Outcome is what a run did, typed, with the output items and the results.
type Outcome struct {
	// Items are the output items: pass-through and merged items in input order, then
	// added items in the order of their source.
	Items []*yaml.RNode
	// Results are the summary, the conflicts, the warnings and the notes (package
	// results' shapes); with Options.Plan, the plan.
	Results framework.Results
	// Counts are the resource outcomes (apply mode counts its own in them: applied as
	// merged, created as added, live only as kept, refused as conflicts).
	Counts vocab.Counts
	// Conflicts are the conflicts found, each with its result (also in Results); with
	// Options.FailOnConflict the caller fails the run on any.
	Conflicts []Conflict
	// ValueMerges are the values merged inside (valueMerge) that took something from
	// each side, each with its info result (also in Results).
	ValueMerges []ValueMerge
	// Merged maps each merged dest item to its output item, Deleted lists the dest items
	// the run deletes (in input order), and Added the items it adds (also at the end of
	// Items).
	Merged  map[*roles.Item]*yaml.RNode
	Deleted []*roles.Item
	Added   []*yaml.RNode
	// Changes are, with Options.Plan in 3way and 2way, the fields the merge would change
	// (also in Results).
	Changes []FieldChange
}

// ValueMerge is a value of a dest item changed on both sides that the merge settled
// inside (docs/merge-semantics.md, "Merging inside a value").
type ValueMerge struct {
	// Item is the dest item.
	Item *roles.Item
	// Value says what came from each side.
	Value merge.ValueMerge
	// Result is its info result (results.ValueMerged).
	Result *framework.Result
}

// FieldChange is one field a merge would change in a dest item.
type FieldChange struct {
	// Item is the dest item.
	Item *roles.Item
	// Change is what happens to the field (Current dest's value, Proposed the merge's).
	Change plan.Change
}

// Conflict is one conflict of a run: a field changed on both sides (Field), a resource
// deleted upstream and changed locally (Field nil), or, in apply mode, a field or object
// kubectl apply --overwrite=false refuses (Refused, Reason).
type Conflict struct {
	// Item is the dest item (the live object in apply mode).
	Item *roles.Item
	// Field is the 3-way field conflict; nil for a whole resource or in apply mode.
	Field *merge.Conflict
	// Refused is, in apply mode, the field kubectl's check refuses; nil for the object.
	Refused *plan.Change
	// What names the resource of a whole-resource 3-way conflict (its identity).
	What string
	// Reason is, in apply mode, why kubectl refuses the object where no field accounts
	// for it.
	Reason string
	// Result is the conflict's result.
	Result *framework.Result
}

// Run applies the rules of opts.Roles.Mode to items (from roles.Assign with opts.Roles).
// Errors (*vocab.ItemError naming the resource, file and field): duplicate identities
// in one role (identity.Index); a field merge error (a malformed 2-way directive); a field
// rule annotation that does not parse; in apply mode the errors of apply.Apply and
// apply.Create, placed at the item at fault; a panic while handling a resource,
// recovered into an error naming it.
func Run(items []roles.Item, opts Options) (*Outcome, error) {
	opts.Merge.KeepDestPositions = hostedByID(items)
	idOpts := opts.Identity
	if idOpts.Namespaced == nil {
		idOpts.Namespaced = opts.Merge.Lists.Namespaced
	}
	sets, err := identity.Index(items, idOpts)
	if err != nil {
		return nil, err
	}
	r := &run{opts: opts, addDir: opts.Roles.AddDir(), replace: map[*roles.Item]*yaml.RNode{}, drop: map[*roles.Item]bool{}, fileEnds: lastIndexes(items)}
	// The engines' work on different resources is independent: compute it on all cores,
	// then apply the rules in set order, so results and output are as a serial run
	// makes them.
	preps := make([]prep, len(sets))
	parallel.ForEach(len(sets), 0, func(i int) { preps[i] = r.prepare(sets[i]) })
	for i, s := range sets {
		if err := r.resource(s, &preps[i]); err != nil {
			return nil, err
		}
		preps[i] = prep{}
	}
	return r.assemble(items), nil
}

// prep is the part of a resource's rule that needs no shared state, computed ahead by
// the mode's prepare.
type prep struct {
	out       *yaml.RNode // the merged (applied) item; the cleaned src (2-way add)
	conflicts []merge.Conflict
	values    []merge.ValueMerge // values merged inside (Options.Merge.ValueMerge)
	effects   []merge.RuleEffect // field rules that changed the output (fieldrules.go)
	copied    []host.Copy        // comments the host copies onto other nodes (output.go)
	err       error              // an error, already located
	equal     bool               // deleted locally or upstream: the survivor equals the original
	added     *yaml.RNode        // the copy to add
	// addedHosted is added with its source's host id kept (output.go), when the source
	// has one and the host's restoration is harmless; add decides which to emit.
	addedHosted *yaml.RNode
	applied     *appliedObject // apply mode (apply.go)
	panicked    interface{}
}

// run is one Run's shared state.
type run struct {
	opts      Options
	addDir    string                      // opts.Roles.AddDir()
	replace   map[*roles.Item]*yaml.RNode // dest items and their merged value
	drop      map[*roles.Item]bool        // dest items deleted
	added     []*yaml.RNode
	counts    vocab.Counts
	changes   results.ChangeCounts
	conflicts []Conflict
	warnings  framework.Results
	notes     framework.Results // info results (field rules; apply's field changes)
	values    []ValueMerge
	fileEnds  map[string]int // last index per dest file
}

// prepareHook, when set, is called first in prepare; tests set it to panic, to check
// that a panic in a resource's merge becomes an error naming the resource.
var prepareHook func(*identity.Set)

// prepare computes a set's engine work; a panic is kept for resource to report.
func (r *run) prepare(s *identity.Set) (p prep) {
	defer func() {
		if x := recover(); x != nil {
			p = prep{panicked: x}
		}
	}()
	if prepareHook != nil {
		prepareHook(s)
	}
	switch r.opts.Roles.Mode {
	case vocab.TwoWay:
		return r.prepareTwoWay(s)
	case vocab.Apply:
		return r.prepareApply(s)
	default:
		return r.prepareThreeWay(s)
	}
}

// resource applies the mode's rules to one identity, with its prep.
func (r *run) resource(s *identity.Set, p *prep) (err error) {
	defer func() {
		if x := recover(); x != nil {
			p.panicked = x
		}
		if p.panicked != nil {
			verb := "merging"
			if r.opts.Roles.Mode == vocab.Apply {
				verb = "applying"
			}
			err = first(s).Errorf("", "internal error %s %s: %v (please report this with the input)", verb, s.ID, p.panicked)
		}
	}()
	if p.panicked != nil {
		return nil
	}
	switch r.opts.Roles.Mode {
	case vocab.TwoWay:
		return r.twoWay(s, p)
	case vocab.Apply:
		return r.applyRules(s, p)
	default:
		return r.threeWay(s, p)
	}
}

// first is the item of s that names the resource in errors: dest's, else updated's,
// src's, original's.
func first(s *identity.Set) *roles.Item {
	for _, role := range []vocab.Role{vocab.Dest, vocab.Updated, vocab.Src, vocab.Original} {
		if it := s.Get(role); it != nil {
			return it
		}
	}
	return nil
}

// at is where a result about it points.
func at(it *roles.Item) results.At {
	return results.At{Location: it.Location()}
}

// valuesAt is at for a result that carries field values: a Secret's are redacted
// unless the run shows them (Options.ShowSecretValues).
func (r *run) valuesAt(it *roles.Item) results.At {
	a := at(it)
	a.ShowSecretValues = r.opts.ShowSecretValues
	return a
}

// fieldOf is the field path of a merge error (a 2-way directive's), "" otherwise.
func fieldOf(err error) string {
	if de, ok := err.(*merge.DirectiveError); ok {
		return de.Path.String()
	}
	return ""
}

// conflict records a 3-way conflict on dest item it: a field (c) or, with c nil, the
// whole resource (what says how).
func (r *run) conflict(it *roles.Item, c *merge.Conflict, what string) {
	var res *framework.Result
	if c != nil {
		res = results.FieldConflict(r.valuesAt(it), *c, r.opts.FailOnConflict)
	} else {
		res = results.DeletedUpstreamChangedLocally(at(it), what, r.opts.Merge.Winner, r.opts.FailOnConflict)
	}
	r.conflicts = append(r.conflicts, Conflict{Item: it, Field: c, What: what, Result: res})
	r.counts.Conflicts++
}

// hostCopied records a warning for each comment the host copies onto another node of
// the merged item of it (host.Copy).
func (r *run) hostCopied(it *roles.Item, copied []host.Copy) {
	for _, c := range copied {
		a := at(it)
		a.Path = c.Path
		r.warnings = append(r.warnings, results.HostCopy(a, c.Comment))
	}
}

// describe names a set for messages (its identity).
func describe(s *identity.Set) string { return fmt.Sprint(s.ID) }

// hostedByID reports whether the items come from a host that restores comments and
// field order by input id (kpt, kustomize): a dest item carries the id. Run sets
// merge.Options.KeepDestPositions from it.
func hostedByID(items []roles.Item) bool {
	for i := range items {
		if items[i].Role == vocab.Dest && host.HasID(items[i].Node) {
			return true
		}
	}
	return false
}
