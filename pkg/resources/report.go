package resources

import (
	"sigs.k8s.io/kustomize/kyaml/fn/framework"

	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// report is the run's results, in order (docs/function.md, "Output"), every one built by package
// results:
//
//   - 3way and 2way: the summary, one result per conflict, the warnings (a resource
//     deleted locally that upstream changed; a comment the host copies onto another
//     node), the field rules' notes;
//   - a 3way or 2way plan (Options.Plan): the plan's summary, one info result per field
//     the merge would change (mergePlan), the conflicts, one info result per resource
//     it would add or delete, the warnings and notes;
//   - apply (and its plan): the summary, the refusals of onConflict: error, one info
//     result per field change and per created object, the warnings.
func (r *run) report(o *Outcome) framework.Results {
	conflicts := make(framework.Results, len(r.conflicts))
	for i, c := range r.conflicts {
		conflicts[i] = c.Result
	}
	var res framework.Results
	switch {
	case r.opts.Roles.Mode == vocab.Apply:
		res = framework.Results{results.ApplySummary(r.counts, r.changes, r.opts.Plan)}
		res = append(res, conflicts...)
		res = append(res, r.notes...)
		res = append(res, r.warnings...)
		return res
	case r.opts.Plan:
		mode := r.opts.Roles.Mode
		changes, counts := r.mergePlan(o)
		res = framework.Results{results.PlanSummary(mode, r.counts, counts)}
		res = append(res, changes...)
		res = append(res, conflicts...)
		for _, n := range o.Added {
			res = append(res, results.PlanAdd(results.At{Location: vocab.LocationOf(n)}, mode))
		}
		for _, d := range o.Deleted {
			res = append(res, results.PlanDelete(at(d), mode))
		}
	default:
		res = framework.Results{results.Summary(r.opts.Roles.Mode, r.counts)}
		res = append(res, conflicts...)
	}
	res = append(res, r.warnings...)
	return append(res, r.notes...)
}
