package resources

import (
	"errors"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldrules"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/roles"
)

// withFieldRules applies the field rules of one merged resource (package fieldrules:
// the functionConfig's fieldRules that select dest, then the fn.krm-merge.dev/field-rules
// annotation of updated (src), then dest's) to the merge's output out and conflicts
// (merge.ApplyFieldRules). u is updated (src in 2-way), o original (nil in 2-way or
// when absent); on, un are the normalized nodes the merge saw.
// Errors: a malformed annotation, as an *results.ItemError naming the item that holds
// it and the annotation's field; a 2-way src directive error under a takeUpdated rule.
func (r *run) withFieldRules(out *yaml.RNode, conflicts []merge.Conflict, on, un *yaml.RNode, u, d *roles.Item, twoWay bool) (*yaml.RNode, []merge.Conflict, []merge.RuleEffect, error) {
	role := "updated"
	if twoWay {
		role = "src"
	}
	rules, err := fieldrules.For(r.opts.FieldRules, d.Node, u.Node, role)
	if err != nil {
		var ae *fieldrules.AnnotationError
		if errors.As(err, &ae) {
			it := d
			if ae.Role != "dest" {
				it = u
			}
			return nil, nil, nil, it.Errorf(ae.Field(), "%v", ae)
		}
		return nil, nil, nil, d.Errorf("", "%v", err)
	}
	if len(rules) == 0 {
		return out, conflicts, nil, nil
	}
	res, kept, effects, err := merge.ApplyFieldRules(out, on, un, d.Node, twoWay, rules, conflicts)
	if err != nil {
		return nil, nil, nil, u.Errorf(fieldOf(err), "%v", err)
	}
	return res, kept, effects, nil
}

// ruleEffects records the info results of one resource's field rule effects
// (results.RuleEffect): per keepDest or takeUpdated rule that changed the output or
// decided a conflict.
func (r *run) ruleEffects(d *roles.Item, effects []merge.RuleEffect) {
	for _, e := range effects {
		r.notes = append(r.notes, results.RuleEffect(at(d), e))
	}
}
