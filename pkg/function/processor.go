// Package function is krm-merge as a KRM function: a kyaml framework.ResourceListProcessor
// that reads the functionConfig (package config), assigns roles (package roles), applies
// the resource rules and field merges (packages resources and merge), and writes the
// output items and results (package results).
//
// Contract (shared/spec/function.md): on success the ResourceList's items are the merged
// items and its results hold a summary, one warning per conflict and any warnings. On any
// error the items are emptied (nothing half-merged reaches the host), the results say
// what and where (resource, file, field), and Process returns the results as its error,
// so the binary exits 1 and kpt leaves the package untouched.
package function

import (
	"errors"
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/kptpost"
	"github.com/krm-merge/krm-merge/internal/parallel"
	"github.com/krm-merge/krm-merge/pkg/apply"
	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/resources"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/roles"
)

// Processor is the krm-merge function. The zero value is ready to use.
type Processor struct{}

var _ framework.ResourceListProcessor = Processor{}

// Process merges rl.Items as rl.FunctionConfig says and replaces rl.Items and rl.Results;
// with `plan: true` it leaves rl.Items as they are and adds the plan (Plan) to rl.Results.
// Errors: a framework.Results holding at least one error result (bad functionConfig, bad
// item, conflicts under onConflict=error, a recovered internal panic); rl.Items is then
// empty.
func (Processor) Process(rl *framework.ResourceList) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v (please report this with the input)", p)
		}
		if err != nil {
			rl.Items = nil
			rl.Results = append(rl.Results, results.FromError(err)...)
			err = rl.Results
		}
	}()
	cfg, err := LoadConfig(rl.FunctionConfig)
	if err != nil {
		return err
	}
	if cfg.Plan { // items stay as they are; the results are the plan
		res, err := Plan(rl.Items, cfg)
		if err != nil {
			return err
		}
		rl.Results = append(rl.Results, res...)
		return nil
	}
	out, err := Merge(rl.Items, cfg)
	if err != nil {
		return err
	}
	rl.Results = append(rl.Results, out.Results...)
	rl.Items = out.Items
	return nil
}

// LoadConfig reads a functionConfig (a ConfigMap or a typed ResourceMerge; nil gives the
// defaults) as the function does: config.Load, with each problem turned into an
// *results.ItemError naming the functionConfig resource and the field (e.g.
// "data.onConflict"), joined with errors.Join.
func LoadConfig(fc *yaml.RNode) (*config.Config, error) {
	cfg, err := config.Load(fc)
	if err != nil {
		return nil, located(err, fc)
	}
	return cfg, nil
}

// Merge is Run plus the onConflict=error policy, with output items an encoder writes as
// valid YAML (writable: aliases resolve to an anchor before them, emptied maps and
// lists are flow style): when cfg.OnConflict is error and the
// merge found conflicts, it returns no outcome and a framework.Results error holding one
// summary error and one error result per conflict (resourceRef, file, field.path).
// Other errors are Run's.
func Merge(items []*yaml.RNode, cfg *config.Config) (*resources.Outcome, error) {
	out, err := Run(items, cfg)
	if err != nil {
		return nil, err
	}
	parallel.ForEach(len(out.Items), 256, func(i int) { out.Items[i] = writable(out.Items[i]) })
	if cfg.OnConflict == config.ConflictError && len(out.Conflicts) > 0 {
		return nil, framework.Results(append(framework.Results{{
			Severity: framework.Error,
			Message:  fmt.Sprintf("onConflict is error and the merge found %d conflicts; nothing was written", len(out.Conflicts)),
		}}, out.Conflicts...))
	}
	return out, nil
}

// Run merges items by cfg: roles, resource rules and field merges, with merge keys from
// Lists (cfg.MergeKeys, the CRDs among the items, cfg.Schema, cfg.AssociativeKeys) and
// the field rules of cfg.FieldRules and the items' fn.krm-merge.dev/field-rules
// annotations; in mode apply, kubectl client-side apply of the
// updated items onto the dest items (package apply). It does no I/O and never changes
// items.
// Errors: *results.ItemError for bad items, as documented by roles.Assign,
// resources.Merge and apply.Run; for an item whose YAML aliases expand past
// MaxExpandedNodes or holds a repeated map key (checkItems); in mode apply, an item with the field-rules
// annotation.
func Run(items []*yaml.RNode, cfg *config.Config) (*resources.Outcome, error) {
	assigned, err := roles.Assign(items, cfg)
	if err != nil {
		return nil, err
	}
	return runAssigned(assigned, cfg)
}

// runAssigned is Run after roles.Assign.
func runAssigned(assigned []roles.Item, cfg *config.Config) (*resources.Outcome, error) {
	anyAlias, anyNullElement, err := checkItems(assigned)
	if err != nil {
		return nil, err
	}
	if cfg.Mode == config.ModeApply {
		if err := noFieldRuleAnnotations(assigned); err != nil {
			return nil, err
		}
		return apply.Run(assigned, cfg)
	}
	return resources.Merge(assigned, cfg, merge.Options{Lists: Lists(cfg, assigned), AliasFree: !anyAlias, NullElementFree: !anyNullElement,
		PositionalHost: hostedByID(assigned)})
}

// hostedByID reports whether the items come from a host that restores comments and
// field order by input id (kpt, kustomize): a dest item carries the id.
func hostedByID(items []roles.Item) bool {
	for i := range items {
		if items[i].Role == roles.Dest && kptpost.HasID(items[i].Node) {
			return true
		}
	}
	return false
}

// located turns functionConfig errors into item errors about the functionConfig, each
// with its field path.
func located(err error, fc *yaml.RNode) error {
	var list config.Errors
	if !errors.As(err, &list) {
		return err
	}
	ref := results.ResourceRef(fc)
	out := make([]error, len(list))
	for i, e := range list {
		out[i] = &results.ItemError{Resource: ref, Field: e.Field, Msg: e.Error()}
	}
	return errors.Join(out...)
}
