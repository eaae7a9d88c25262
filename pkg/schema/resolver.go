package schema

import (
	"encoding/json"
	"strings"
	"sync"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/kustomize/kyaml/fieldmeta"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// ListType is how a list is merged.
type ListType int

const (
	// Atomic lists are replaced whole.
	Atomic ListType = iota
	// Map lists pair their map elements by the values of the merge keys.
	Map
	// Set lists pair their scalar elements by value (e.g. metadata.finalizers).
	Set
)

// String names the kind as in server-side apply's x-kubernetes-list-type.
func (k ListType) String() string {
	switch k {
	case Map:
		return "map"
	case Set:
		return "set"
	default:
		return "atomic"
	}
}

// List is the decision for one list.
type List struct {
	// Type is how the list is merged.
	Type ListType
	// Keys are the merge keys of a Keyed list, primary first.
	Keys []string
	// Wildcard is true when a schema declares several keys: an element that lacks a
	// secondary key value matches one that has it (a container port without protocol
	// matches protocol TCP, the API default), as kyaml and the API server pair them.
	Wildcard bool
	// AnyKey is true for a list whose elements carry some of the keys, none required
	// (AnyKeyExtension, e.g. a Kptfile pipeline function has image or exec, and maybe a
	// name): an element's identity is the values of the keys it carries, absent keys
	// included, and never matches an element that carries other keys. Not with Wildcard.
	AnyKey bool
	// Untagged are keys whose values are container image references, compared without
	// their tag or digest (UntaggedKeysExtension; ImageName): a Kptfile function whose
	// image version changed is the same function.
	Untagged []string
}

// Node is the schema at one place in a resource. The zero value means "no schema here".
type Node struct {
	rs *openapi.ResourceSchema
	// ov is the functionConfig mergeKeys entries at and below this place (WithOverrides).
	ov *overlay
	// crd: rs comes from a CustomResourceDefinition in the input, whose lists without
	// a list type are left to the associative-key inference (see Decide).
	crd bool
	// root: this is a resource's root (its metadata is ObjectMeta, never the CRD's).
	root bool
	// builtin: rs is a place in kyaml's embedded OpenAPI, whose lookups are memoised
	// (memo.go).
	builtin bool
}

// Known reports whether a schema is present at this place.
func (n Node) Known() bool { return n.rs != nil && n.rs.Schema != nil }

// Field returns the schema of a map field; the zero Node where there is none.
func (n Node) Field(name string) Node {
	var out Node
	if n.ov != nil {
		out.ov = n.ov.children[name]
	}
	if n.Known() {
		if n.builtin {
			out.rs, out.builtin = memoField(n.rs, name), true
		} else {
			out.rs = n.rs.Field(name)
		}
		out.crd = n.crd && !(n.root && name == "metadata")
	}
	return out
}

// Elements returns the schema of a list's elements; the zero Node where there is none.
// mergeKeys paths pass through lists: the elements of a list at spec.groups see the
// entries under spec.groups (e.g. spec.groups.rules).
func (n Node) Elements() Node {
	var out Node
	if n.ov != nil {
		out.ov = n.ov.elems
	}
	if !n.Known() || n.rs.Schema.Items == nil || n.rs.Schema.Items.Schema == nil {
		return out
	}
	if len(n.rs.Schema.Type) != 1 || n.rs.Schema.Type[0] != "array" {
		return out
	}
	if n.builtin {
		out.rs, out.builtin = memoElements(n.rs), true
	} else {
		out.rs, out.crd = n.rs.Elements(), n.crd
	}
	return out
}

// DefaultAssociativeKeys returns the associative keys of kustomize's merge2 and merge3 API
// conventions, in precedence order: the first key that qualifies for a list no schema
// describes is its merge key (docs/merge-semantics.md, "Which lists are associative",
// rule 2). Each call returns a new slice.
func DefaultAssociativeKeys() []string {
	return []string{"mountPath", "devicePath", "ip", "type", "topologyKey", "name", "containerPort"}
}

// Resolver makes the decisions. Build one with New (and WithCRDs); it is safe for
// concurrent use.
type Resolver struct {
	openAPI bool
	keys    []string
	// crds are the schemas of the kinds CustomResourceDefinitions in the input define,
	// by "group/version/kind", and by "group//kind" for versions the CRD does not list;
	// each is read on first use (a big CRD takes tens of milliseconds to read, and most
	// runs merge resources of only some of the kinds the input defines).
	crds map[string]*crdEntry
	// overrides are the functionConfig mergeKeys entries (WithOverrides) as one tree of
	// field names per kind, by "group\x00kind"; group "*" holds the entries that give
	// no group.
	overrides map[string]*overlay
	// given are the entries as WithOverrides received them, in order.
	given []ListOverride
	// scopes are the CRDs' spec.scope by "group/kind": true for Namespaced.
	scopes map[string]bool
}

// Options say which schemas a Resolver consults (the functionConfig's schema and
// associativeKeys, docs/function.md).
type Options struct {
	// OpenAPI true: known kinds use kyaml's embedded Kubernetes OpenAPI and every kind's
	// metadata uses ObjectMeta (schema: kubernetes). False: only the associative keys
	// decide, as kyaml's merge2 and merge3 do without a schema (schema: none).
	OpenAPI bool
	// AssociativeKeys are the keys tried, in precedence order, on a list no schema
	// describes; nil means DefaultAssociativeKeys.
	AssociativeKeys []string
}

// New returns a Resolver for opts; it keeps its own copy of opts.AssociativeKeys.
func New(opts Options) *Resolver {
	keys := opts.AssociativeKeys
	if keys == nil {
		keys = DefaultAssociativeKeys()
	}
	return &Resolver{openAPI: opts.OpenAPI, keys: append([]string(nil), keys...)}
}

// objectMetaRef is the definition every kind's metadata follows.
const objectMetaRef = "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

// metadataOnly is the root schema of a kind kyaml has no schema for: only metadata is
// known (docs/merge-semantics.md, "Metadata of every kind").
var metadataOnly = &openapi.ResourceSchema{Schema: &spec.Schema{SchemaProps: spec.SchemaProps{
	Type: []string{"object"},
	Properties: map[string]spec.Schema{
		"metadata": {SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(objectMetaRef)}},
	},
}}}

// WithCRDs returns a Resolver that also knows the kinds the CustomResourceDefinitions
// among items define (docs/merge-semantics.md rule 1: "plus any CustomResourceDefinition present
// in the input"): apiextensions.k8s.io/v1 `spec.versions[].schema.openAPIV3Schema`, and
// v1beta1's `spec.validation.openAPIV3Schema` for every version. Their lists follow
// `x-kubernetes-list-type` and `x-kubernetes-list-map-keys` (or the patch strategy and
// merge key extensions); a list the CRD's schema leaves without any of them gets the
// associative-key inference (rule 2), as if no schema described it: controller-gen CRDs (e.g.
// kube-prometheus's) rarely declare list types, and a kpt user expects their lists to
// merge as they did before the CRD was in the input (the API server's server-side apply
// would treat them as atomic). Their `metadata` is
// ObjectMeta whatever the CRD says. Items that are not CRDs are ignored, and so is a CRD
// schema that cannot be read (its kind keeps the heuristic keys). When several CRDs
// define one kind and version, the last one in items wins; schemas are read on first
// use, so the items must not change while the Resolver is used. r is not changed; with
// openAPI off (schema: none) CRDs are not used either.
func (r *Resolver) WithCRDs(items []*yaml.RNode) *Resolver {
	if r == nil {
		return nil
	}
	out := &Resolver{openAPI: r.openAPI, keys: r.keys, crds: map[string]*crdEntry{},
		overrides: r.overrides, given: r.given, scopes: map[string]bool{}}
	for k, v := range r.crds {
		out.crds[k] = v
	}
	for k, v := range r.scopes {
		out.scopes[k] = v
	}
	for _, item := range items {
		if yaml.IsMissingOrNull(item) || item.YNode().Kind != yaml.MappingNode {
			continue
		}
		m := item.YNode()
		if scalarField(m, "kind") != "CustomResourceDefinition" || !strings.HasPrefix(scalarField(m, "apiVersion"), "apiextensions.k8s.io/") {
			continue
		}
		sp := fieldValue(m, "spec")
		if sp == nil || sp.Kind != yaml.MappingNode {
			continue
		}
		group := scalarField(sp, "group")
		names := fieldValue(sp, "names")
		if names == nil || names.Kind != yaml.MappingNode || scalarField(names, "kind") == "" {
			continue
		}
		kind := scalarField(names, "kind")
		switch scalarField(sp, "scope") {
		case "Namespaced":
			out.scopes[group+"/"+kind] = true
		case "Cluster":
			out.scopes[group+"/"+kind] = false
		}
		// "group//kind" is this CRD's schema for versions it does not list: its common
		// (v1beta1) schema, else its first version's.
		fallback := false
		// v1beta1: one schema for all versions
		if common := newCRDEntry(fieldValue(fieldValue(sp, "validation"), "openAPIV3Schema")); common != nil {
			out.crds[group+"//"+kind] = common
			fallback = true
			if v := scalarField(sp, "version"); v != "" {
				out.crds[group+"/"+v+"/"+kind] = common
			}
		}
		if versions := fieldValue(sp, "versions"); versions != nil && versions.Kind == yaml.SequenceNode {
			for _, v := range versions.Content {
				if v.Kind != yaml.MappingNode {
					continue
				}
				if s := newCRDEntry(fieldValue(fieldValue(v, "schema"), "openAPIV3Schema")); s != nil {
					out.crds[group+"/"+scalarField(v, "name")+"/"+kind] = s
					if !fallback {
						out.crds[group+"//"+kind] = s
						fallback = true
					}
				}
			}
		}
	}
	return out
}

// crdEntry is one CRD version's openAPIV3Schema, read on first use.
type crdEntry struct {
	once sync.Once
	node *yaml.Node
	rs   *openapi.ResourceSchema
}

// newCRDEntry returns an entry for an openAPIV3Schema node; nil when n is not a map.
func newCRDEntry(n *yaml.Node) *crdEntry {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	return &crdEntry{node: n}
}

// schema returns the entry's root schema, reading it the first time (safe for
// concurrent use); nil when it cannot be read.
func (e *crdEntry) schema() *openapi.ResourceSchema {
	e.once.Do(func() { e.rs = crdSchema(e.node) })
	return e.rs
}

// crdSchema reads a CRD's openAPIV3Schema into a root schema whose metadata is
// ObjectMeta; nil when there is none or it cannot be read.
func crdSchema(n *yaml.Node) *openapi.ResourceSchema {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	// Decoding to plain values and encoding/json is several times faster than
	// RNode.MarshalJSON on CRD-sized schemas.
	var v interface{}
	if err := n.Decode(&v); err != nil {
		return nil
	}
	js, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	s := &spec.Schema{}
	if err := s.UnmarshalJSON(js); err != nil {
		return nil
	}
	props := make(map[string]spec.Schema, len(s.Properties)+1)
	for k, v := range s.Properties {
		props[k] = v
	}
	props["metadata"] = spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(objectMetaRef)}}
	s.Properties = props
	return &openapi.ResourceSchema{Schema: s}
}

// ForResource returns the root schema of a resource, from the apiVersion and kind of the
// first of nodes that has both (callers pass dest, updated, original): a kind a CRD in
// the input defines (WithCRDs), else the embedded OpenAPI's. A kind neither knows gets
// a schema where only metadata is known.
//
// The functionConfig's mergeKeys entries for the kind (WithOverrides) ride along with the
// schema, also with openAPI off, and take precedence over it in Decide.
func (r *Resolver) ForResource(nodes ...*yaml.RNode) Node {
	if r == nil {
		return Node{}
	}
	for _, n := range nodes {
		if yaml.IsMissingOrNull(n) || n.YNode().Kind != yaml.MappingNode {
			continue
		}
		apiVersion, kind := scalarField(n.YNode(), "apiVersion"), scalarField(n.YNode(), "kind")
		if apiVersion == "" || kind == "" {
			continue
		}
		ov := r.overlayFor(apiVersion, kind)
		if !r.openAPI {
			return Node{ov: ov}
		}
		if rs := r.crd(apiVersion, kind); rs != nil {
			return Node{rs: rs, ov: ov, crd: true, root: true}
		}
		if rs := kptfileSchema(apiVersion, kind); rs != nil {
			return Node{rs: rs, ov: ov, root: true}
		}
		if rs := kustomizationSchema(apiVersion, kind); rs != nil {
			return Node{rs: rs, ov: ov, root: true}
		}
		if rs := builtinFor(apiVersion, kind); rs != nil {
			return Node{rs: rs, ov: ov, root: true, builtin: true}
		}
		return Node{rs: metadataOnly, ov: ov, root: true, builtin: true}
	}
	if !r.openAPI {
		return Node{}
	}
	return Node{rs: metadataOnly, root: true, builtin: true}
}

// Namespaced reports whether apiVersion's group and kind are namespace-scoped: from the
// spec.scope of a CustomResourceDefinition in the input (WithCRDs), else kyaml's table of
// the built-in kinds. known is false for a kind neither knows.
func (r *Resolver) Namespaced(apiVersion, kind string) (namespaced, known bool) {
	if r != nil && len(r.scopes) > 0 {
		if v, ok := r.scopes[vocab.Group(apiVersion)+"/"+kind]; ok {
			return v, true
		}
	}
	return openapi.IsNamespaceScoped(yaml.TypeMeta{APIVersion: apiVersion, Kind: kind})
}

// crd returns the schema a CRD gives apiVersion's group and kind: the version's own, else
// any version's; nil when no CRD defines the kind.
func (r *Resolver) crd(apiVersion, kind string) *openapi.ResourceSchema {
	if len(r.crds) == 0 {
		return nil
	}
	group, version := vocab.Group(apiVersion), vocab.Version(apiVersion)
	e, ok := r.crds[group+"/"+version+"/"+kind]
	if !ok {
		e = r.crds[group+"//"+kind]
	}
	if e == nil {
		return nil
	}
	return e.schema()
}

// WithComments returns the schema a field's inline OpenAPI comment gives (on its key or
// its value node, in any of the sources), or n when no such comment exists. This is
// rule 0: the comment overrides every other source for that field but the functionConfig's
// mergeKeys, which n keeps.
func WithComments(n Node, nodes ...*yaml.Node) Node {
	for _, y := range nodes {
		if y == nil || (y.LineComment == "" && y.HeadComment == "") {
			continue
		}
		fm := fieldmeta.FieldMeta{}
		if err := fm.Read(yaml.NewRNode(y)); err != nil || fm.IsEmpty() {
			continue
		}
		s := fm.Schema
		if s.Ref.String() != "" {
			if resolved, err := openapi.Resolve(&s.Ref, openapi.Schema()); err == nil && resolved != nil {
				s = *resolved
			}
		}
		return Node{rs: &openapi.ResourceSchema{Schema: &s}, ov: n.ov}
	}
	return n
}

// Decide returns how the list at schema n is merged, given the list's value in each
// source (nil or non-sequence entries are skipped).
//
// Precedence: the functionConfig's mergeKeys entry for this place (WithOverrides), then
// the schema (inline comment, CRD, built-in OpenAPI), then the associative-key inference. A list
// the built-in OpenAPI knows without a strategy is atomic, as in kubectl; one a CRD
// describes without a list type is inferred (see WithCRDs). Pair also returns the
// elements' identities.
func (r *Resolver) Decide(n Node, lists ...*yaml.Node) List {
	l, _ := r.Pair(n, lists...)
	return l
}

func isArray(s *spec.Schema) bool {
	return len(s.Type) == 1 && s.Type[0] == "array"
}

// fromSchema reads the list type extensions; ok is false when the schema has none.
func fromSchema(s *spec.Schema) (List, bool) {
	ext := s.Extensions
	if lt, found := ext.GetString("x-kubernetes-list-type"); found {
		switch lt {
		case "atomic":
			return List{Type: Atomic}, true
		case "set":
			return List{Type: Set}, true
		case "map":
			keys := stringList(ext["x-kubernetes-list-map-keys"])
			if len(keys) == 0 {
				if mk, ok := ext.GetString("x-kubernetes-patch-merge-key"); ok {
					keys = []string{mk}
				}
			}
			if len(keys) == 0 {
				return List{Type: Atomic}, true
			}
			if any, _ := ext.GetBool(AnyKeyExtension); any {
				return List{Type: Map, Keys: keys, AnyKey: true, Untagged: stringList(ext[UntaggedKeysExtension])}, true
			}
			return List{Type: Map, Keys: keys, Wildcard: len(keys) > 1}, true
		}
	}
	strategy, found := ext.GetString("x-kubernetes-patch-strategy")
	if !found {
		return List{}, false
	}
	merge := false
	for _, part := range strings.Split(strategy, ",") {
		if strings.TrimSpace(part) == "merge" {
			merge = true
		}
	}
	if !merge {
		return List{Type: Atomic}, true
	}
	keys := stringList(ext["x-kubernetes-list-map-keys"])
	if len(keys) == 0 {
		if mk, ok := ext.GetString("x-kubernetes-patch-merge-key"); ok && mk != "" {
			keys = []string{mk}
		}
	}
	if len(keys) == 0 {
		return List{Type: Set}, true
	}
	return List{Type: Map, Keys: keys, Wildcard: len(keys) > 1}, true
}

func stringList(v interface{}) []string {
	items, ok := v.([]interface{})
	if !ok {
		return nil
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		if s, ok := it.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// validate demotes a schema decision to Atomic where the data does not fit it: a keyed
// list with an element that is not a map, lacks the primary key, or repeats a key
// (identify); a set with a non-scalar or repeated element. A keyed list that fits comes
// with its Identities.
func validate(l List, lists []*yaml.Node) (List, *Identities) {
	switch l.Type {
	case Map:
		x, ok := identify(l, lists)
		if !ok {
			return List{Type: Atomic}, nil
		}
		return l, x
	case Set:
		for _, list := range lists {
			if !setFits(list) {
				return List{Type: Atomic}, nil
			}
		}
	}
	return l, nil
}

// infer applies the default associative keys to a list no schema describes: the first
// key that every element of every list carries, with values unique within each list.
func (r *Resolver) infer(lists []*yaml.Node) (List, *Identities) {
	elements := 0
	for _, list := range lists {
		if isSeq(list) {
			elements += len(list.Content)
		}
	}
	if elements == 0 {
		return List{Type: Atomic}, nil
	}
	for _, key := range r.keys {
		l := List{Type: Map, Keys: []string{key}}
		if x, ok := identify(l, lists); ok {
			return l, x
		}
	}
	return List{Type: Atomic}, nil
}

func isSeq(n *yaml.Node) bool { return n != nil && n.Kind == yaml.SequenceNode }

// setFits reports whether list holds distinct scalars only.
func setFits(list *yaml.Node) bool {
	if !isSeq(list) {
		return true
	}
	seen := make(map[string]struct{}, len(list.Content))
	for _, el := range list.Content {
		if el.Kind != yaml.ScalarNode {
			return false
		}
		id := el.ShortTag() + "\x00" + el.Value
		if _, dup := seen[id]; dup {
			return false
		}
		seen[id] = struct{}{}
	}
	return true
}

// fieldValue returns the value node of a mapping field, or nil (also for a nil m).
func fieldValue(m *yaml.Node, name string) *yaml.Node {
	if m == nil {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			return m.Content[i+1]
		}
	}
	return nil
}

// scalarField returns the value of a scalar mapping field, or "".
func scalarField(m *yaml.Node, name string) string {
	if v := fieldValue(m, name); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}
