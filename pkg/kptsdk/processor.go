package kptsdk

import (
	"fmt"

	"github.com/GoogleContainerTools/kpt-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/filter"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Processor is krm-merge as an fn.ResourceListProcessor. The zero value reads its
// configuration from rl.FunctionConfig.
type Processor struct {
	// Config, when not nil, configures the merge and rl.FunctionConfig is ignored: for a
	// function whose own functionConfig is not krm-merge's. Build it with
	// config.Defaults() or config.Load (see filter.Filter.Config).
	Config *config.Config
}

var _ fn.ResourceListProcessor = Processor{}

// Process merges rl.Items as described in the package documentation. It returns true
// and a nil error on success; false and the error results (also appended to rl.Results)
// on failure, with rl.Items unchanged.
func (p Processor) Process(rl *fn.ResourceList) (bool, error) {
	items, res, err := p.merge(rl)
	if err != nil {
		errs := ToResults(results.FromError(err))
		rl.Results = append(rl.Results, errs...)
		return false, errs
	}
	rl.Items = items
	rl.Results = append(rl.Results, res...)
	return true, nil
}

// merge runs the merge on rl without changing it.
func (p Processor) merge(rl *fn.ResourceList) (fn.KubeObjects, fn.Results, error) {
	m := &filter.Filter{Config: p.Config}
	if p.Config == nil {
		fc, err := functionConfig(rl.FunctionConfig)
		if err != nil {
			return nil, nil, err
		}
		if m, err = filter.New(fc); err != nil {
			return nil, nil, err
		}
	}
	in, err := ToRNodes(rl.Items)
	if err != nil {
		return nil, nil, err
	}
	out, err := m.Filter(in)
	if err != nil {
		return nil, nil, err
	}
	objs, err := ToKubeObjects(out)
	if err != nil {
		return nil, nil, err
	}
	return objs, ToResults(m.Results), nil
}

// functionConfig returns rl.FunctionConfig as a node; nil when absent or empty, which
// config.Load reads as the defaults.
func functionConfig(o *fn.KubeObject) (*yaml.RNode, error) {
	if o == nil || o.IsEmpty() {
		return nil, nil
	}
	n, err := yaml.Parse(o.String())
	if err != nil {
		return nil, fmt.Errorf("%sthe ResourceList's functionConfig does not parse: %v", config.ErrorPrefix, err)
	}
	return n, nil
}

// ToRNodes converts SDK objects to kyaml nodes through their YAML, keeping comments,
// field order and annotations (scalars in flow style may come back quoted: see the
// package documentation). The nodes share nothing with the objects. Errors: an
// object whose YAML does not parse back, as a *vocab.ItemError naming it.
func ToRNodes(objs fn.KubeObjects) ([]*yaml.RNode, error) {
	out := make([]*yaml.RNode, 0, len(objs))
	for _, o := range objs {
		n, err := yaml.Parse(o.String())
		if err != nil {
			return nil, &vocab.ItemError{
				Location: vocab.Location{
					Resource: &yaml.ResourceIdentifier{
						TypeMeta: yaml.TypeMeta{APIVersion: o.GetAPIVersion(), Kind: o.GetKind()},
						NameMeta: yaml.NameMeta{Name: o.GetName(), Namespace: o.GetNamespace()},
					},
					File:  o.PathAnnotation(),
					Index: max(o.IndexAnnotation(), 0),
				},
				Msg: fmt.Sprintf("cannot convert the item to a kyaml node: %v", err),
			}
		}
		out = append(out, n)
	}
	return out, nil
}

// ToKubeObjects converts kyaml nodes to SDK objects through their YAML, keeping
// comments, field order and annotations. The objects share nothing with the nodes.
// Errors: a node that does not serialize or is not one object, as a *vocab.ItemError
// naming it.
func ToKubeObjects(nodes []*yaml.RNode) (fn.KubeObjects, error) {
	out := make(fn.KubeObjects, 0, len(nodes))
	for _, n := range nodes {
		s, err := n.String()
		var o *fn.KubeObject
		if err == nil {
			o, err = fn.ParseKubeObject([]byte(s))
		}
		if err != nil {
			return nil, &vocab.ItemError{Location: vocab.LocationOf(n),
				Msg: fmt.Sprintf("cannot convert the merged item to an fn.KubeObject: %v", err)}
		}
		out = append(out, o)
	}
	return out, nil
}

// ToResults converts kyaml framework results (what package filter and package results
// produce) to SDK results: severity, message, resourceRef, file, field (path,
// currentValue, proposedValue) and tags. A nil entry stays nil.
func ToResults(rs framework.Results) fn.Results {
	if rs == nil {
		return nil
	}
	out := make(fn.Results, len(rs))
	for i, r := range rs {
		if r == nil {
			continue
		}
		c := &fn.Result{Message: r.Message, Severity: fn.Severity(r.Severity)}
		if r.ResourceRef != nil {
			c.ResourceRef = &fn.ResourceRef{
				APIVersion: r.ResourceRef.APIVersion,
				Kind:       r.ResourceRef.Kind,
				Name:       r.ResourceRef.Name,
				Namespace:  r.ResourceRef.Namespace,
			}
		}
		if r.File != nil {
			c.File = &fn.File{Path: r.File.Path, Index: r.File.Index}
		}
		if r.Field != nil {
			c.Field = &fn.Field{Path: r.Field.Path, CurrentValue: r.Field.CurrentValue, ProposedValue: r.Field.ProposedValue}
		}
		if r.Tags != nil {
			c.Tags = make(map[string]string, len(r.Tags))
			for k, v := range r.Tags {
				c.Tags[k] = v
			}
		}
		out[i] = c
	}
	return out
}
