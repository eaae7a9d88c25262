package config

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldrules"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// SchemaSource says where merge keys and list types come from.
type SchemaSource string

const (
	// SchemaKubernetes uses kyaml's embedded Kubernetes OpenAPI for known kinds.
	SchemaKubernetes SchemaSource = "kubernetes"
	// SchemaNone uses only the heuristic associative keys.
	SchemaNone SchemaSource = "none"
)

// Typed functionConfig identity.
const (
	// APIVersion is the apiVersion of the typed functionConfig.
	APIVersion = "fn.krm-merge.dev/v1alpha1"
	// Kind is the kind of the typed functionConfig.
	Kind = "ResourceMerge"
)

// Config is the validated functionConfig. Zero values never reach callers: Load fills
// every default.
type Config struct {
	// Mode is 3way (default), 2way or apply.
	Mode vocab.Mode
	// RoleAnnotation is the annotation whose value names an item's role.
	RoleAnnotation string
	// OriginalPath, UpdatedPath, DestPath and SrcPath select roles by the directory an
	// item's path annotation lies under. Cleaned: no "./" prefix, no trailing "/".
	// Empty means unset.
	OriginalPath, UpdatedPath, DestPath, SrcPath string
	// MergeOnPath makes the file path relative to the role directory part of identity.
	MergeOnPath bool
	// OnConflict decides 3-way conflicts.
	OnConflict ConflictPolicy
	// KeepSources also emits the original/updated/src items unchanged.
	KeepSources bool
	// AssociativeKeys are the keys that make a list associative when no schema names its
	// merge key, in precedence order.
	AssociativeKeys []string
	// Schema is where merge keys come from.
	Schema SchemaSource
	// Plan previews the run: items are emitted unchanged and results list every change.
	Plan bool
	// ValueMerge merges inside a value changed on both sides (an image reference, an
	// atomic list, a multi-line string) before calling it a conflict
	// (docs/merge-semantics.md, "Merging inside a value"); 3way mode. Defaults sets it.
	ValueMerge bool
	// ShowSecretValues prints the values of a core v1 Secret's data and stringData in
	// results; false redacts them (package results, Redact).
	ShowSecretValues bool
	// MergeKeys are the mergeKeys entries: how lists of given kinds and paths merge,
	// over every schema source (schema.Resolver.WithOverrides); nil when not given.
	MergeKeys []schema.ListOverride
	// FieldRules are the fieldRules entries, in order (fieldrules.For selects them per
	// resource); nil when not given.
	FieldRules []fieldrules.Rule
	// Original, Updated and Src hold resources given inline in the typed form
	// (spec.original, spec.updated, spec.src); nil when not given.
	Original, Updated, Src []*yaml.RNode
}

// ByPath reports whether roles are chosen by path (any *Path key set).
func (c *Config) ByPath() bool {
	return c.OriginalPath != "" || c.UpdatedPath != "" || c.DestPath != "" || c.SrcPath != ""
}

// Inline reports whether sources are given inline in the typed functionConfig.
func (c *Config) Inline() bool {
	return c.Original != nil || c.Updated != nil || c.Src != nil
}
