package function

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/fieldrules"
	"github.com/krm-merge/krm-merge/pkg/identity"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/resources"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// The functionConfig stops here: every package below gets its own narrow options.

// roleOptions are roles.Assign's options from cfg.
func roleOptions(cfg *config.Config) roles.Options {
	return roles.Options{Mode: cfg.Mode, Annotation: cfg.RoleAnnotation,
		OriginalDir: cfg.OriginalPath, UpdatedDir: cfg.UpdatedPath, DestDir: cfg.DestPath, SrcDir: cfg.SrcPath,
		Original: cfg.Original, Updated: cfg.Updated, Src: cfg.Src}
}

// resourceOptions are resources.Run's options from cfg, for the items assigned with ro,
// with winner deciding the merge's conflicts (cfg.OnConflict's, or Original for
// MergeTakingOriginal), failing on conflicts under onConflict error (cfg.OnConflict.Fails):
// aliasFree and nullElementFree say what checkItems found, which the engine's options
// promise (merge.Options.AliasFree, NullElementFree) so that the engine skips those walks.
func resourceOptions(cfg *config.Config, winner vocab.Role, ro roles.Options, assigned []roles.Item, aliasFree, nullElementFree bool) resources.Options {
	mo := merge.Options{Winner: winner, Lists: resolver(cfg, assigned),
		ValueMerge: cfg.ValueMerge && cfg.Mode == vocab.ThreeWay, AliasFree: aliasFree, NullElementFree: nullElementFree}
	return resources.Options{
		Roles:          ro,
		Identity:       identity.Options{MergeOnPath: cfg.MergeOnPath},
		KeepSources:    cfg.KeepSources,
		Merge:          mo,
		FailOnConflict: cfg.OnConflict.Fails(),
		FieldRules:     cfg.FieldRules,
		Plan:           cfg.Plan,

		ShowSecretValues: cfg.ShowSecretValues,
	}
}

// resolver returns the resolver that decides how a run's lists merge (package schema), in
// precedence order: cfg.MergeKeys (Resolver.WithOverrides), then the
// CustomResourceDefinitions among items, whatever their role (original, updated, dest,
// src, inline or pass-through: Resolver.WithCRDs; for a kind several CRDs define,
// updated's (src's) wins, then dest's, then a pass-through's, then original's), then
// kyaml's built-in Kubernetes OpenAPI (unless cfg.Schema is none, which also leaves CRDs
// unused), then the associative-key inference with cfg.AssociativeKeys. items are roles.Assign's
// output (inline sources included); they are only read.
func resolver(cfg *config.Config, items []roles.Item) *schema.Resolver {
	r := schema.New(schema.Options{OpenAPI: cfg.Schema == config.SchemaKubernetes, AssociativeKeys: cfg.AssociativeKeys}).WithOverrides(cfg.MergeKeys)
	if cfg.Schema != config.SchemaKubernetes {
		return r
	}
	// When several CRDs define one kind (original's, updated's and dest's copies of a
	// package's CRD), the last one given wins: order them so that updated's (src's)
	// does, the schema the merged resources will be applied with; then dest's.
	var crds []*yaml.RNode
	for _, role := range []vocab.Role{vocab.Original, vocab.None, vocab.Dest, vocab.Src, vocab.Updated} {
		for i := range items {
			if n := items[i].Node; items[i].Role == role && n.GetKind() == "CustomResourceDefinition" {
				crds = append(crds, n)
			}
		}
	}
	if len(crds) == 0 {
		return r
	}
	return r.WithCRDs(crds)
}

// noFieldRuleAnnotations rejects the fn.krm-merge.dev/field-rules annotation in apply
// mode (on items with a role; pass-through items are not merged), which computes
// kubectl's client-side apply patch and has no field rules (the functionConfig's
// fieldRules are rejected by config.Load). Error: a *vocab.ItemError naming the first
// item that carries it and the annotation.
func noFieldRuleAnnotations(items []roles.Item) error {
	for i := range items {
		it := &items[i]
		if it.Role == vocab.None {
			continue
		}
		if _, ok := it.Node.GetAnnotations()[fieldrules.Annotation]; ok {
			return &vocab.ItemError{Location: vocab.Location{Resource: it.Ref(), File: it.File, Index: it.Index},
				Field: "metadata.annotations." + fieldrules.Annotation,
				Msg: "the " + fieldrules.Annotation + " annotation does not apply in apply mode: apply computes kubectl's " +
					"client-side apply patch, which has no field rules; remove it, or merge in 3way or 2way mode"}
		}
	}
	return nil
}
