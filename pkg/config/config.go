package config

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

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
// every default. The keys that decide how resources merge are its MergeSettings
// (merge.go), embedded, so that cfg.OnConflict and the like name them; the fields here
// are the run's own: the mode, how roles are chosen, what is emitted, inline sources.
type Config struct {
	// Mode is 3way (default), 2way or apply.
	Mode vocab.Mode
	// OriginalPath, UpdatedPath, DestPath and SrcPath select roles by the directory an
	// item's path annotation lies under. Cleaned: no "./" prefix, no trailing "/".
	// Empty means unset.
	OriginalPath, UpdatedPath, DestPath, SrcPath string
	// KeepSources also emits the original/updated/src items unchanged.
	KeepSources bool
	// Plan previews the run: items are emitted unchanged and results list every change.
	Plan bool
	// MergeSettings are the keys that decide how resources merge (onConflict,
	// roleAnnotation, mergeOnPath, associativeKeys, schema, valueMerge,
	// showSecretValues, mergeKeys, fieldRules).
	MergeSettings
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
