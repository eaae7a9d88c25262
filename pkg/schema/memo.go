package schema

import (
	"sync"

	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The built-in OpenAPI's schemas are looked up once per place, not once per field of
// every resource: kyaml's ResourceSchema.Field and Elements resolve each $ref through a
// JSON pointer and copy the spec.Schema on every call, and SchemaForResourceType returns
// a fresh copy for every resource, which made schema lookups about a quarter of a 2-way
// merge. The memo holds only schemas of kyaml's embedded document (a fixed, finite set
// of places), never CRD or inline-comment schemas, so it stays bounded; it assumes, as
// the rest of krm-merge does, that nobody swaps kyaml's global schema during a run.
var memo sync.Map // memoKey -> *openapi.ResourceSchema (nil: no schema there)

type memoKey struct {
	parent *openapi.ResourceSchema // nil for a resource type's root
	name   string                  // field name; "[]" for a list's elements; "apiVersion/kind" for a root
}

// builtinFor is openapi.SchemaForResourceType, memoised; nil for a kind kyaml does not know.
func builtinFor(apiVersion, kind string) *openapi.ResourceSchema {
	k := memoKey{name: apiVersion + "/" + kind}
	if v, ok := memo.Load(k); ok {
		return v.(*openapi.ResourceSchema)
	}
	rs := openapi.SchemaForResourceType(yaml.TypeMeta{APIVersion: apiVersion, Kind: kind})
	v, _ := memo.LoadOrStore(k, rs)
	return v.(*openapi.ResourceSchema)
}

// memoField is rs.Field(name) for a schema builtinFor (or memoField/memoElements) returned.
func memoField(rs *openapi.ResourceSchema, name string) *openapi.ResourceSchema {
	k := memoKey{parent: rs, name: name}
	if v, ok := memo.Load(k); ok {
		return v.(*openapi.ResourceSchema)
	}
	v, _ := memo.LoadOrStore(k, rs.Field(name))
	return v.(*openapi.ResourceSchema)
}

// memoElements is rs.Elements() for a schema builtinFor (or memoField/memoElements) returned.
func memoElements(rs *openapi.ResourceSchema) *openapi.ResourceSchema {
	k := memoKey{parent: rs, name: "[]"}
	if v, ok := memo.Load(k); ok {
		return v.(*openapi.ResourceSchema)
	}
	v, _ := memo.LoadOrStore(k, rs.Elements())
	return v.(*openapi.ResourceSchema)
}
