package roles

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// ID is a resource's identity: API group, kind, namespace and name, and with
// mergeOnPath the file path relative to its role directory.
//
// The version is not part of identity: an upstream release that moves a kind from
// v1beta1 to v1 (policy/v1beta1 to policy/v1 PodDisruptionBudget, autoscaling/v2beta2 to
// v2 HPA) still pairs with the local copy, and the new apiVersion arrives as a field
// change. kyaml's filters.Merge3 compares the full apiVersion and so deletes the local
// copy and adds the upstream one, losing local edits.
type ID struct {
	// Group is the apiVersion's group ("" for the core group).
	Group string
	// Kind is the resource kind.
	Kind string
	// Namespace is metadata.namespace ("" when absent).
	Namespace string
	// Name is metadata.name.
	Name string
	// File is the path relative to the role directory, with mergeOnPath; else "".
	File string
}

// String renders the identity as "group/Kind namespace/name", e.g. "apps/Deployment
// web/frontend" or "Service frontend".
func (id ID) String() string {
	gk := id.Kind
	if id.Group != "" {
		gk = id.Group + "/" + id.Kind
	}
	name := id.Name
	if id.Namespace != "" {
		name = id.Namespace + "/" + name
	}
	s := gk + " " + name
	if id.File != "" {
		s += " (" + id.File + ")"
	}
	return s
}

// Identity returns the identity of an item that has a role (Assign checked its
// apiVersion, kind and name).
func Identity(it *Item, mergeOnPath bool) ID {
	id := ID{Group: groupOf(it.Node.GetApiVersion()), Kind: it.Node.GetKind(), Namespace: it.Node.GetNamespace(), Name: it.Node.GetName()}
	if mergeOnPath {
		id.File = it.RelFile
	}
	return id
}

// Identity overrides: a resource renamed or re-namespaced downstream (by hand, by kpt's
// set-namespace, by a kustomization's namespace:) still pairs with its upstream copy when
// it says which upstream resource it comes from. Three sources are read, strongest first:
const (
	// UpstreamIdentityAnnotation is krm-merge's own override, "namespace/name" (namespace
	// may be empty: "/name"), the same syntax as kpt's merge comment. It is a plain,
	// user-facing annotation, for hosts and tools that drop comments (kustomize) and for
	// people writing an override by hand; kpt's own annotation is internal (kpt
	// documents that users are not expected to touch internal.kpt.dev/ annotations).
	UpstreamIdentityAnnotation = "fn.krm-merge.dev/upstream-identity"
	// KptUpstreamIdentifier is the annotation kpt (1.0.0-beta.2x and later, kpt pkg get
	// and update) records a resource's upstream origin in: "group|kind|namespace|name",
	// group empty for the core group, namespace "~C" for a cluster-scoped (or unknown
	// scope) resource and "default" for a namespaced resource written without one
	// (kpt-functions-sdk go/fn: UpstreamIdentifier, UnknownNamespace, GetOriginId).
	KptUpstreamIdentifier = "internal.kpt.dev/upstream-identifier"
	// KptMergeComment starts the line comment kpt pkg get writes on the metadata: key of
	// every resource it fetches: "metadata: # kpt-merge: namespace/name" (namespace may
	// be empty), which kpt pkg update's resource-merge uses to match renamed resources.
	KptMergeComment = "kpt-merge:"

	// kptClusterScoped is kpt's namespace placeholder for cluster-scoped resources.
	kptClusterScoped = "~C"
	// kptDefaultNamespace is the namespace kpt writes for a namespaced resource with no
	// metadata.namespace; it pairs with an upstream copy in "default" or without one.
	kptDefaultNamespace = "default"
)

// Override is an item's declared upstream identity, from one of the three sources.
type Override struct {
	// Group and Kind are the upstream's (the item's own for the comment and
	// UpstreamIdentityAnnotation, which name only namespace and name).
	Group, Kind string
	// Namespace and Name are the upstream's.
	Namespace, Name string
	// DefaultOrEmpty is true when kpt's annotation says "default": the upstream copy may
	// carry namespace default or none (Index picks the one that exists).
	DefaultOrEmpty bool
	// Source names where it came from, for messages: the annotation, or "comment on
	// metadata".
	Source string
	// Field is the field path of the source, for errors.
	Field string
}

// OverrideOf reads an item's upstream identity override: UpstreamIdentityAnnotation,
// else KptUpstreamIdentifier, else the kpt-merge line comment on the metadata: key
// (a head comment there is read too). ok is false when the item has none.
// Errors (*results.ItemError naming the item and the field): a value that is not
// "namespace/name" (annotation, comment) or "group|kind|namespace|name" (kpt's
// annotation), or names no name.
func OverrideOf(it *Item) (o Override, ok bool, err error) {
	group, kind := groupOf(it.Node.GetApiVersion()), it.Node.GetKind()
	annos := it.Node.GetAnnotations()
	if v, found := annos[UpstreamIdentityAnnotation]; found {
		f := "metadata.annotations." + UpstreamIdentityAnnotation
		ns, name, perr := parseNamespaceName(v)
		if perr != "" {
			return o, false, it.Errorf(f, "%s %q %s; want namespace/name (namespace may be empty: /name)", UpstreamIdentityAnnotation, v, perr)
		}
		return Override{Group: group, Kind: kind, Namespace: ns, Name: name, Source: "annotation " + UpstreamIdentityAnnotation, Field: f}, true, nil
	}
	if v, found := annos[KptUpstreamIdentifier]; found {
		f := "metadata.annotations." + KptUpstreamIdentifier
		parts := strings.Split(strings.TrimSpace(v), "|")
		if len(parts) != 4 || parts[1] == "" || parts[2] == "" || parts[3] == "" {
			return o, false, it.Errorf(f, "%s %q is malformed; want group|kind|namespace|name as kpt writes it (group empty for the core group, namespace ~C for cluster-scoped)", KptUpstreamIdentifier, v)
		}
		o = Override{Group: parts[0], Kind: parts[1], Namespace: parts[2], Name: parts[3], Source: "annotation " + KptUpstreamIdentifier, Field: f}
		switch o.Namespace {
		case kptClusterScoped:
			o.Namespace = ""
		case kptDefaultNamespace:
			o.DefaultOrEmpty = true
		}
		return o, true, nil
	}
	if c, found := mergeComment(it.Node); found {
		ns, name, perr := parseNamespaceName(c)
		if perr != "" {
			return o, false, it.Errorf("metadata", "comment %q on metadata %s; want # %s namespace/name (namespace may be empty)", KptMergeComment+" "+c, perr, KptMergeComment)
		}
		return Override{Group: group, Kind: kind, Namespace: ns, Name: name, Source: "comment # " + KptMergeComment + " on metadata", Field: "metadata"}, true, nil
	}
	return o, false, nil
}

// parseNamespaceName splits "namespace/name"; problem is "" when it is well formed.
func parseNamespaceName(v string) (ns, name, problem string) {
	v = strings.TrimSpace(v)
	i := strings.Index(v, "/")
	if i < 0 {
		return "", "", "has no /"
	}
	ns, name = strings.TrimSpace(v[:i]), strings.TrimSpace(v[i+1:])
	switch {
	case name == "":
		return "", "", "names no name"
	case strings.ContainsAny(name, "/ \t"):
		return "", "", "has more than one / or a space"
	}
	return ns, name, ""
}

// mergeComment returns the text after "kpt-merge:" in the comments on the metadata key.
func mergeComment(n *yaml.RNode) (string, bool) {
	root := n.YNode()
	if root == nil || root.Kind != yaml.MappingNode {
		return "", false
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k := root.Content[i]
		if k.Value != yaml.MetadataField {
			continue
		}
		for _, c := range []string{k.LineComment, k.HeadComment, root.Content[i+1].LineComment} {
			for _, line := range strings.Split(c, "\n") {
				line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "#"))
				if strings.HasPrefix(line, KptMergeComment) {
					return strings.TrimSpace(strings.TrimPrefix(line, KptMergeComment)), true
				}
			}
		}
	}
	return "", false
}

func groupOf(apiVersion string) string {
	if i := strings.Index(apiVersion, "/"); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// Set is a resource identity with the item of each role that has it.
type Set struct {
	// ID is the shared identity: the upstream identity an override declares, else the
	// items' own.
	ID ID
	// Items holds one item per role present.
	Items map[Role]*Item
}

// Get returns the item of a role, or nil.
func (s *Set) Get(r Role) *Item { return s.Items[r] }

// Index groups the items that have a role by identity, with a hash map (no pairwise
// scans). Sets are returned in order of first appearance.
//
// An item with an identity override (OverrideOf) is indexed under the upstream identity
// it declares, in every role: kpt writes the comment and annotation on every resource it
// fetches, so a blueprint fetched from another package carries its own upstream's
// identity, and so does the local copy fetched from the blueprint (kpt pkg update's
// resource-merge matches the three the same way). Its group, kind and file (mergeOnPath)
// stay the item's own except for kpt's annotation, which names group and kind too. kpt's
// namespace "default" pairs with an upstream copy in default, else one without a
// namespace.
//
// Errors (*results.ItemError): a malformed override; two items of one role with the same
// identity, naming both resources and files and the override that made them collide
// (with mergeOnPath off, two copies of one resource in different files of a role
// directory need mergeOnPath: true).
func Index(items []Item, mergeOnPath bool) ([]*Set, error) {
	ids := make([]ID, len(items))
	overrides := make(map[*Item]*Override)
	natural := make(map[ID]bool, len(items))
	for i := range items {
		it := &items[i]
		if it.Role == None {
			continue
		}
		ids[i] = Identity(it, mergeOnPath)
		natural[ids[i]] = true
		o, ok, err := OverrideOf(it)
		if err != nil {
			return nil, err
		}
		if ok {
			overrides[it] = &o
		}
	}
	for i := range items {
		o := overrides[&items[i]]
		if o == nil {
			continue
		}
		id := ID{Group: o.Group, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, File: ids[i].File}
		if o.DefaultOrEmpty {
			if withEmpty := (ID{Group: id.Group, Kind: id.Kind, Name: id.Name, File: id.File}); !natural[id] && natural[withEmpty] {
				id = withEmpty
			}
		}
		ids[i] = id
	}
	byID := make(map[ID]*Set, len(items))
	var order []*Set
	for i := range items {
		it := &items[i]
		if it.Role == None {
			continue
		}
		id := ids[i]
		s := byID[id]
		if s == nil {
			s = &Set{ID: id, Items: map[Role]*Item{}}
			byID[id] = s
			order = append(order, s)
		}
		if prev := s.Items[it.Role]; prev != nil {
			return nil, duplicate(it, prev, id, overrides[it], overrides[prev], mergeOnPath)
		}
		s.Items[it.Role] = it
	}
	return order, nil
}

// duplicate is the error for two items of one role with one identity.
func duplicate(it, prev *Item, id ID, o, po *Override, mergeOnPath bool) error {
	if o == nil && po == nil {
		hint := ""
		if !mergeOnPath && prev.File != it.File {
			hint = "; if the copies are meant to be distinct, set mergeOnPath: true"
		}
		return it.Errorf("metadata.name", "duplicate %s resource %s: also at %s%s", it.Role, id, where(prev), hint)
	}
	field := "metadata.name"
	if o != nil {
		field = o.Field
	}
	return it.Errorf(field, "two %s resources claim the upstream identity %s: %s at %s%s, and %s at %s%s; "+
		"give each its own upstream identity or remove one of them",
		it.Role, id, describeItem(it), where(it), claim(o), describeItem(prev), where(prev), claim(po))
}

// claim says how an item came by its identity.
func claim(o *Override) string {
	if o == nil {
		return " (its own name)"
	}
	return " (through its " + o.Source + ")"
}

func describeItem(it *Item) string {
	name := it.Node.GetName()
	if ns := it.Node.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}
	return strings.TrimSpace(it.Node.GetApiVersion()+" "+it.Node.GetKind()) + " " + name
}

func where(it *Item) string {
	if it.File == "" {
		return fmt.Sprintf("input item %d", it.Position)
	}
	return fmt.Sprintf("%s (index %d)", it.File, it.Index)
}
