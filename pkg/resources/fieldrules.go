package resources

import (
	"errors"

	"github.com/krm-merge/krm-merge/pkg/fieldrules"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// mergeOptions are the engine's options for one resource: the run's, shared output
// (Options.Share: the run writes merged items only through its output), with the field
// rules of the resource (package fieldrules: the functionConfig's fieldRules that select
// dest, then the fn.krm-merge.dev/field-rules annotation of updated (src in 2-way), then
// dest's), which the engine applies (merge.Options.FieldRules).
// Errors: a malformed annotation, as a *vocab.ItemError naming the item that holds it
// and the annotation's field.
func (r *run) mergeOptions(u, d *roles.Item, twoWay bool) (merge.Options, error) {
	opts := r.opts.Merge
	opts.Share = true
	role := vocab.Updated
	if twoWay {
		role = vocab.Src
	}
	rules, err := fieldrules.For(r.opts.FieldRules, d.Node, u.Node, role)
	if err != nil {
		var ae *fieldrules.AnnotationError
		if errors.As(err, &ae) {
			it := d
			if ae.Role != vocab.Dest {
				it = u
			}
			return opts, it.Errorf(ae.Field(), "%v", ae)
		}
		return opts, d.Errorf("", "%v", err)
	}
	opts.FieldRules = rules
	return opts, nil
}

// valuesMerged records the info results of one resource's values merged inside
// (results.ValueMerged), leaving out the values whose every changed part conflicts:
// their conflicts say all there is.
func (r *run) valuesMerged(d *roles.Item, values []merge.ValueMerge) {
	for _, v := range values {
		if v.Conflicts() < len(v.Parts) {
			res := results.ValueMerged(r.valuesAt(d), v)
			r.notes = append(r.notes, res)
			r.values = append(r.values, ValueMerge{Item: d, Value: v, Result: res})
		}
	}
}

// ruleEffects records the info results of one resource's field rule effects
// (results.RuleEffect): per keepDest or takeUpdated rule that changed the output or
// decided a conflict.
func (r *run) ruleEffects(d *roles.Item, effects []merge.RuleEffect) {
	for _, e := range effects {
		r.notes = append(r.notes, results.RuleEffect(at(d), e))
	}
}
