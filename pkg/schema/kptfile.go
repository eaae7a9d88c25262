package schema

import (
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/kustomize/kyaml/openapi"
)

// AnyKeyExtension marks a keyed list (x-kubernetes-list-type: map) whose elements carry
// some of x-kubernetes-list-map-keys, none of them required (List.AnyKey). krm-merge's
// own extension; the Kubernetes API has no such list.
const AnyKeyExtension = "x-krm-merge-any-key"

// PipelineFunctionKeys identify a function of a Kptfile pipeline (kpt.dev/v1 Kptfile
// pipeline.mutators and pipeline.validators): its image, or its exec path, plus its name
// when it has one (kpt #2529, #4582). Two entries of one image are told apart by name,
// so a list with two unnamed entries of one image is merged whole (atomic), as before.
var PipelineFunctionKeys = []string{"image", "exec", "name"}

// kptfileRoot is the schema krm-merge gives every kpt.dev Kptfile: ObjectMeta metadata
// (as for every kind), and pipeline.mutators and pipeline.validators as lists keyed by
// function identity (PipelineFunctionKeys, AnyKey). The rest of the Kptfile has no
// schema, so its lists follow the seed's associative keys.
//
// With it a 3-way merge of a Kptfile (selected by its own role annotation) keeps the
// local functions and their order, changes a function upstream changed (a new image
// tag is a new identity, so it comes as an upstream deletion plus an addition: the
// local entry of the old tag is replaced unless dest changed it, which is a conflict),
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
	if kind != "Kptfile" || !strings.HasPrefix(apiVersion, "kpt.dev/") {
		return nil
	}
	return kptfileRoot
}
