package function

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/fieldrules"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/schema"
)

// Lists returns the resolver that decides how a run's lists merge (package schema), in
// precedence order: cfg.MergeKeys (Resolver.WithOverrides), then the
// CustomResourceDefinitions among items, whatever their role (original, updated, dest,
// src, inline or pass-through: Resolver.WithCRDs), then kyaml's built-in Kubernetes
// OpenAPI (unless cfg.Schema is none, which also leaves CRDs unused), then the seed's
// inference with cfg.AssociativeKeys. items are roles.Assign's output (inline sources
// included); they are only read.
func Lists(cfg *config.Config, items []roles.Item) *schema.Resolver {
	r := schema.New(cfg.Schema == config.SchemaKubernetes, cfg.AssociativeKeys).WithOverrides(cfg.MergeKeys)
	if cfg.Schema != config.SchemaKubernetes {
		return r
	}
	var crds []*yaml.RNode
	for i := range items {
		n := items[i].Node
		if n.GetKind() == "CustomResourceDefinition" {
			crds = append(crds, n)
		}
	}
	if len(crds) == 0 {
		return r
	}
	return r.WithCRDs(crds)
}

// noFieldRuleAnnotations rejects the fn.krm-merge.dev/field-rules annotation in apply
// mode (on items with a role; pass-through items are not merged), which computes kubectl's client-side apply patch and has no field rules (the
// functionConfig's fieldRules are rejected by config.Load). Error: an
// *results.ItemError naming the first item that carries it and the annotation.
func noFieldRuleAnnotations(items []roles.Item) error {
	for i := range items {
		it := &items[i]
		if it.Role == roles.None {
			continue
		}
		if _, ok := it.Node.GetAnnotations()[fieldrules.Annotation]; ok {
			return &results.ItemError{Resource: it.Ref(), File: it.File, Index: it.Index,
				Field: "metadata.annotations." + fieldrules.Annotation,
				Msg: "the " + fieldrules.Annotation + " annotation does not apply in apply mode: apply computes kubectl's " +
					"client-side apply patch, which has no field rules; remove it, or merge in 3way or 2way mode"}
		}
	}
	return nil
}
