package resources

import (
	"errors"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldrules"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// withFieldRules applies the field rules of one merged resource (package fieldrules:
// the functionConfig's fieldRules that select dest, then the fn.krm-merge.dev/field-rules
// annotation of updated (src), then dest's) to the merge's result m: its output and
// conflicts (merge.ApplyFieldRules), and the values it merged inside, of which those at
// or below a rule's path are dropped (the rule decides the value there). u is updated
// (src in 2-way), o original (nil in 2-way or when absent); on, un are the normalized
// nodes the merge saw.
// Errors: a malformed annotation, as a *vocab.ItemError naming the item that holds
// it and the annotation's field; a 2-way src directive error under a takeUpdated rule.
func (r *run) withFieldRules(m merge.Result, on, un *yaml.RNode, u, d *roles.Item, twoWay bool) (merge.Result, []merge.RuleEffect, error) {
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
			return merge.Result{}, nil, it.Errorf(ae.Field(), "%v", ae)
		}
		return merge.Result{}, nil, d.Errorf("", "%v", err)
	}
	if len(rules) == 0 {
		return m, nil, nil
	}
	res, kept, effects, err := merge.ApplyFieldRules(m.Value, on, un, d.Node, twoWay, rules, m.Conflicts)
	if err != nil {
		return merge.Result{}, nil, u.Errorf(fieldOf(err), "%v", err)
	}
	var values []merge.ValueMerge
	for _, v := range m.ValueMerges {
		ruled := false
		for _, rule := range rules {
			ruled = ruled || v.Path.HasPrefix(rule.Path)
		}
		if !ruled {
			values = append(values, v)
		}
	}
	return merge.Result{Value: res, Conflicts: kept, ValueMerges: values}, effects, nil
}

// valuesMerged records the info results of one resource's values merged inside
// (results.ValueMerged), leaving out the values whose every changed part conflicts:
// their conflicts say all there is.
func (r *run) valuesMerged(d *roles.Item, values []merge.ValueMerge) {
	for _, v := range values {
		if v.Conflicts() < len(v.Parts) {
			res := results.ValueMerged(at(d), v)
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
