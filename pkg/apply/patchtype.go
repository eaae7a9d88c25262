package apply

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/krm-merge/krm-merge/pkg/apply/patchmeta"
)

// Strategy is the patch kind kubectl client-side apply uses for an object.
type Strategy string

const (
	// StrategicMerge is a strategic merge patch with patch strategies and merge keys
	// read from the Go type's struct tags (strategicpatch.NewPatchMetaFromStruct), used
	// for every kind kubectl's scheme knows (k8s.io/api).
	StrategicMerge Strategy = "strategic merge patch"
	// JSONMerge is an RFC 7386 JSON merge patch (lists are replaced whole), which kubectl
	// falls back to for kinds its scheme does not know: custom resources, and also
	// CustomResourceDefinition and APIService, whose types are not in k8s.io/api.
	JSONMerge Strategy = "JSON merge patch"
)

// PatchType is how kubectl patches one kind.
type PatchType struct {
	// GVK is the group, version and kind the schema was looked up for.
	GVK schema.GroupVersionKind
	// Strategy is StrategicMerge for kinds of the built-in scheme, else JSONMerge.
	Strategy Strategy
	// Meta gives per-field patch strategies and merge keys (StrategicMerge only; nil
	// for JSONMerge).
	Meta strategicpatch.LookupPatchMeta
}

// PatchTypeFor returns how kubectl client-side apply patches objects of apiVersion and
// kind (the local config's): a strategic merge patch with the patch metadata of the
// k8s.io/api type when kubectl's scheme has the kind, else a JSON merge patch
// (kubectl's patcher falls back to it when scheme.Scheme.New reports the kind not
// registered). The metadata and the set of kinds come from package patchmeta, a table
// generated from the k8s.io/api types and checked field by field against
// strategicpatch.NewPatchMetaFromStruct, so the binary does not link k8s.io/api. Errors: an apiVersion that does not parse (e.g. "a/b/c").
func PatchTypeFor(apiVersion, kind string) (*PatchType, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, fmt.Errorf("apiVersion %q: %v", apiVersion, err)
	}
	gvk := gv.WithKind(kind)
	meta, ok, err := patchmeta.ForKind(gvk.Group, gvk.Version, gvk.Kind)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%s: reading patch metadata: %v", gvk, err)
	case !ok:
		return &PatchType{GVK: gvk, Strategy: JSONMerge}, nil
	}
	return &PatchType{GVK: gvk, Strategy: StrategicMerge, Meta: meta}, nil
}

// listMeta describes one list field for pairing its elements: the element schema, the
// merge key ("" when none) and whether it is a set of primitives (patch strategy merge
// without a key, e.g. metadata.finalizers).
type listMeta struct {
	elem     strategicpatch.LookupPatchMeta
	mergeKey string
	set      bool
}

// sliceMeta looks up the list field key of a struct schema; the zero listMeta when the
// schema is nil or does not know the field.
func sliceMeta(m strategicpatch.LookupPatchMeta, key string) listMeta {
	if m == nil {
		return listMeta{}
	}
	elem, pm, err := m.LookupPatchMetadataForSlice(key)
	if err != nil {
		return listMeta{}
	}
	lm := listMeta{elem: elem, mergeKey: pm.GetPatchMergeKey()}
	for _, s := range pm.GetPatchStrategies() {
		if s == "merge" && lm.mergeKey == "" {
			lm.set = true
		}
	}
	if lm.mergeKey != "" {
		// a keyed list only merges when its strategy says merge
		merge := false
		for _, s := range pm.GetPatchStrategies() {
			merge = merge || s == "merge"
		}
		if !merge {
			lm.mergeKey = ""
		}
	}
	return lm
}

// structMeta looks up the map or struct field key of a struct schema; nil when unknown.
func structMeta(m strategicpatch.LookupPatchMeta, key string) strategicpatch.LookupPatchMeta {
	if m == nil {
		return nil
	}
	sub, _, err := m.LookupPatchMetadataForStruct(key)
	if err != nil {
		return nil
	}
	return sub
}

// heuristicKeys are tried, in order, to pair the elements of a list the schema does not
// key (custom resources, atomic lists) in the projection and the plan: a key is used
// when every element of both lists is a map carrying it with unique values. Pairing
// there is cosmetic (comments, readable paths); the values always come from the patch.
var heuristicKeys = []string{"name", "mountPath", "devicePath", "ip", "type", "topologyKey", "containerPort", "uid", "key", "id"}
