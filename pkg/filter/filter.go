package filter

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/function"
	"github.com/krm-merge/krm-merge/pkg/results"
)

// Filter is the krm-merge function as a kio.Filter. Use a *Filter: its Filter method records the run's
// results in Results. A Filter must not run Filter concurrently; the zero value merges
// 3-way by the role annotation with every default.
type Filter struct {
	// Config is the validated functionConfig: from New, config.Load, or config.Defaults()
	// changed by the caller. nil means config.Defaults(). A Config built by hand must
	// have Mode, RoleAnnotation, OnConflict, Schema and AssociativeKeys set (Defaults
	// fills them); Filter rejects it otherwise. Path keys should be cleaned as
	// config.Load does ("dest", not "./dest/").
	Config *config.Config

	// Results is set by every Filter call: on success the summary, the conflict
	// warnings and other warnings; on failure the error results the function would
	// write (one per problem, naming resource, file and field where known).
	Results framework.Results
}

var _ kio.Filter = &Filter{}

// New returns a Filter configured by a functionConfig: a v1 ConfigMap (keys under data)
// or a fn.krm-merge.dev/v1alpha1 ResourceMerge (keys under spec), exactly as the function
// reads ResourceList.functionConfig (config.Load). nil or an empty map gives the defaults.
// Errors: one *vocab.ItemError per problem, joined with errors.Join, each naming the
// functionConfig resource and the field (e.g. "data.onConflict") and starting its message
// with "functionConfig:".
func New(functionConfig *yaml.RNode) (*Filter, error) {
	cfg, err := function.LoadConfig(functionConfig)
	if err != nil {
		return nil, err
	}
	return &Filter{Config: cfg}, nil
}

// Filter merges items and returns the output items (see the package documentation for
// their shape) and records the results in m.Results. With Config.Plan it returns items
// themselves, unchanged, and the plan in m.Results, as the function leaves a plan's
// ResourceList items. On error it returns no items.
func (m *Filter) Filter(items []*yaml.RNode) (out []*yaml.RNode, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v (please report this with the input)", p)
		}
		if err != nil {
			out = nil
			m.Results = results.FromError(err)
		}
	}()
	cfg := m.Config
	if cfg == nil {
		cfg = config.Defaults()
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	outcome, err := function.Run(items, cfg)
	if err != nil {
		return nil, err
	}
	m.Results = outcome.Results
	if cfg.Plan {
		return items, nil
	}
	return outcome.Items, nil
}
