package function

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/plan"
	"github.com/krm-merge/krm-merge/pkg/roles"
)

// Plan previews a run (functionConfig `plan: true`): it runs the merge (or apply) of
// items by cfg as Run does and returns, instead of the output items, the results that
// list every change it would make (plan.ForMerge for 3way and 2way; apply mode's own
// per-field plan, whose summary then says "apply plan, nothing written"). The caller
// emits items unchanged.
//
// Errors: Run's; and with onConflict: error, when the run finds conflicts, a
// framework.Results holding a summary error, the plan and one error result per
// conflict, so that a plan in CI fails on an upgrade that would conflict (the items are
// then not emitted, as on every error; kpt leaves the package untouched either way).
func Plan(items []*yaml.RNode, cfg *config.Config) (framework.Results, error) {
	assigned, err := roles.Assign(items, cfg)
	if err != nil {
		return nil, err
	}
	out, err := runAssigned(assigned, cfg)
	if err != nil {
		return nil, err
	}
	var res framework.Results
	if cfg.Mode == config.ModeApply {
		res = append(res, out.Results...)
		if len(res) > 0 {
			s := *res[0]
			s.Message = "apply plan, nothing written: " + strings.TrimPrefix(s.Message, "apply: ")
			res[0] = &s
		}
	} else {
		res = plan.ForMerge(out, cfg, Lists(cfg, assigned)) // the merge's own list decisions
	}
	if cfg.OnConflict == config.ConflictError && len(out.Conflicts) > 0 {
		return nil, append(framework.Results{{
			Severity: framework.Error,
			Message:  fmt.Sprintf("onConflict is error and the plan found %d conflicts", len(out.Conflicts)),
		}}, res...)
	}
	return res, nil
}
