package schema

import (
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/kustomize/kyaml/openapi"

	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// AnyKeyExtension marks a keyed list (x-kubernetes-list-type: map) whose elements carry
// some of x-kubernetes-list-map-keys, none of them required (List.AnyKey). krm-merge's
// own extension; the Kubernetes API has no such list.
const AnyKeyExtension = "x-krm-merge-any-key"

// UntaggedKeysExtension lists the keys of an AnyKeyExtension list whose values are
// container image references, compared without tag or digest (List.Untagged).
// krm-merge's own extension.
const UntaggedKeysExtension = "x-krm-merge-untagged-keys"

// kptfileRoot is the schema krm-merge gives every kpt.dev Kptfile: ObjectMeta metadata
// (as for every kind), and pipeline.mutators and pipeline.validators as lists keyed by
// function identity (AnyKey): a function of a Kptfile pipeline is its image without
// tag or digest, or its exec path, plus its name when it has one (kpt #2529, #4582). Two
// entries of one image are told apart by name, so a list with two unnamed entries of
// one image is merged whole (atomic). The rest of the Kptfile has no
// schema, so its lists follow the default associative keys.
//
// With it a 3-way merge of a Kptfile (selected by its own role annotation) keeps the
// local functions and their order, changes a function upstream changed (a new image
// tag is the same function: its image field takes upstream's new tag, and the local
// configMap or configPath stay as they merge),
// adds an upstream-added function after its predecessor in updated (first when updated
// has it first), and deletes a function upstream deleted unless dest changed it (a
// conflict; onConflict decides). Without it the lists had no merge key (functions
// have no unique name) and were replaced whole.
var kptfileRoot = func() *openapi.ResourceSchema {
	fn := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}
	list := spec.Schema{
		SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: &fn}},
		VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{
			"x-kubernetes-list-type":     "map",
			"x-kubernetes-list-map-keys": []interface{}{"image", "exec", "name"},
			AnyKeyExtension:              true,
			UntaggedKeysExtension:        []interface{}{"image"},
		}},
	}
	pipeline := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"},
		Properties: map[string]spec.Schema{"mutators": list, "validators": list}}}
	return &openapi.ResourceSchema{Schema: &spec.Schema{SchemaProps: spec.SchemaProps{
		Type: []string{"object"},
		Properties: map[string]spec.Schema{
			"metadata": {SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(objectMetaRef)}},
			"pipeline": pipeline,
		},
	}}}
}()

// kptfileSchema returns kptfileRoot for a Kptfile of any kpt.dev version, else nil.
func kptfileSchema(apiVersion, kind string) *openapi.ResourceSchema {
	if !vocab.IsKptfileKind(apiVersion, kind) {
		return nil
	}
	return kptfileRoot
}

// KeyValue is the value by which a list element's key compares: ImageName(value) for
// the untagged keys of its list (List.Untagged), else value.
func KeyValue(untagged []string, key, value string) string {
	for _, u := range untagged {
		if u == key {
			return ImageName(value)
		}
	}
	return value
}
