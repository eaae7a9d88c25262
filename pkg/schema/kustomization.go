package schema

import (
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/kustomize/kyaml/openapi"
)

// kustomizationSetFields are the lists of kustomize's Kustomization and Component that
// merge as ordered sets of strings (docs/merge-semantics.md, "Which lists are
// associative", rule 4): an upstream release that replaces one resource URL with another
// removes the old entry and adds the new one, and a resource the local copy added stays.
var kustomizationSetFields = []string{"resources", "components", "crds", "generators", "transformers", "validators", "configurations"}

// kustomizationNamedFields are the lists of kustomize's Kustomization and Component keyed
// by name (rule 4): an image, replica count or generator changed upstream is the same
// entry, not a delete plus an add.
var kustomizationNamedFields = []string{"images", "replicas", "configMapGenerator", "secretGenerator", "helmCharts"}

// kustomizationRoot is the schema krm-merge gives kustomize's Kustomization and
// Component (group kustomize.config.k8s.io, any version): ObjectMeta metadata, the
// kustomizationSetFields as sets, the kustomizationNamedFields keyed by name. Every
// other list is left without a schema, so it follows rules 0-3 (an inline OpenAPI
// comment, else the default associative keys).
var kustomizationRoot = func() *openapi.ResourceSchema {
	str := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"string"}}}
	obj := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}
	props := map[string]spec.Schema{
		"metadata": {SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(objectMetaRef)}},
	}
	for _, f := range kustomizationSetFields {
		props[f] = spec.Schema{
			SchemaProps:      spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: &str}},
			VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{"x-kubernetes-list-type": "set"}},
		}
	}
	for _, f := range kustomizationNamedFields {
		props[f] = spec.Schema{
			SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: &obj}},
			VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{
				"x-kubernetes-list-type":     "map",
				"x-kubernetes-list-map-keys": []interface{}{"name"},
			}},
		}
	}
	return &openapi.ResourceSchema{Schema: &spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}, Properties: props}}}
}()

// kustomizationSchema returns kustomizationRoot for a Kustomization or Component of
// group kustomize.config.k8s.io, else nil.
func kustomizationSchema(apiVersion, kind string) *openapi.ResourceSchema {
	if (kind != "Kustomization" && kind != "Component") || !strings.HasPrefix(apiVersion, "kustomize.config.k8s.io/") {
		return nil
	}
	return kustomizationRoot
}
