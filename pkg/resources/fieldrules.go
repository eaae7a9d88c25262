package resources

import (
	"errors"
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
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
	rules, err := fieldrules.For(r.cfg.FieldRules, d.Node, u.Node, role)
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

// ruleResults are the info results of one resource's field rule effects: per keepDest
// or takeUpdated rule that changed the output or decided a conflict, the field path,
// the rule and its source, what the merge alone would have written (currentValue is
// dest's value, proposedValue the output's).
func ruleResults(d *roles.Item, effects []merge.RuleEffect) framework.Results {
	var out framework.Results
	for _, e := range effects {
		msg := fmt.Sprintf("field rule %s (%s)", e.Rule.Policy, e.Rule.Source)
		if !merge.Equal(e.Merged, e.Result) {
			msg += fmt.Sprintf(": the merge gave %s, the output holds %s", shortValue(e.Merged), shortValue(e.Result))
		} else {
			msg += fmt.Sprintf(": the output holds %s", shortValue(e.Result))
		}
		if n := len(e.Conflicts); n > 0 {
			msg += fmt.Sprintf("; decided %d conflict", n)
			if n > 1 {
				msg += "s"
			}
			msg += " (not reported): " + e.Conflicts[0].Path.String() + " " + e.Conflicts[0].Describe()
		}
		res := &framework.Result{Severity: framework.Info, ResourceRef: d.Ref(), Message: msg,
			Field: &framework.Field{Path: e.Rule.Path.String(), ProposedValue: results.Value(e.Result)}}
		if d.File != "" {
			res.File = &framework.File{Path: d.File, Index: d.Index}
		}
		out = append(out, res)
	}
	return out
}

// shortValue renders a value on one line for a message (merge.Short).
func shortValue(n *yaml.RNode) string { return merge.Short(n) }
