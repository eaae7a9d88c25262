package identity

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// ID is a resource's identity: API group, kind, namespace and name, and the file path
// relative to its role directory where the path takes part (see Identity and Index).
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
	// Namespace is metadata.namespace ("" when absent; "" for a cluster-scoped kind once
	// Index has normalised it).
	Namespace string
	// Name is metadata.name ("" for an item identified by its path).
	Name string
	// File is the path relative to the role directory where it takes part in identity;
	// else "".
	File string
	// Nth numbers the items without a name of one group and kind in one file, from 0.
	Nth int
}

// String renders the identity as "group/Kind namespace/name", e.g. "apps/Deployment
// web/frontend" or "Service frontend", with the file in parentheses where it takes part:
// "kustomize.config.k8s.io/Kustomization (base/kustomization.yaml)".
func (id ID) String() string {
	gk := id.Kind
	if id.Group != "" {
		gk = id.Group + "/" + id.Kind
	}
	name := id.Name
	if id.Namespace != "" {
		name = id.Namespace + "/" + name
	}
	s := gk
	if name != "" {
		s += " " + name
	}
	if id.File != "" {
		f := id.File
		if id.Nth > 0 {
			f += fmt.Sprintf(", #%d", id.Nth+1)
		}
		s += " (" + f + ")"
	}
	return s
}

// Identity returns the identity of an item that has a role (Assign checked its
// apiVersion, kind, and name or path): group, kind, namespace and name, with the file
// path relative to the role directory when mergeOnPath is set or the item is identified
// by its path (PathIdentified). Index refines it (same-named items in several files,
// namespace default, cluster-scoped kinds, identity overrides).
func Identity(it *roles.Item, mergeOnPath bool) ID {
	id := ID{Group: vocab.Group(it.Node.GetApiVersion()), Kind: it.Node.GetKind(), Namespace: it.Node.GetNamespace(), Name: it.Node.GetName()}
	if PathIdentified(it) {
		id.Name = ""
		id.File = it.RelFile
	} else if mergeOnPath {
		id.File = it.RelFile
	}
	return id
}

// PathIdentified reports whether an item is identified by group, kind and file path
// rather than by name: an item without metadata.name (kustomize's Kustomization and
// Component, other tool configs), and a Kptfile under a role directory, whose name kpt
// pkg get sets to the local directory's name (one Kptfile per directory, so the path
// names it).
func PathIdentified(it *roles.Item) bool {
	if it.Node.GetName() == "" {
		return true
	}
	return it.RoleDir != "" && vocab.IsKptfile(it.Node)
}

// Identity overrides: a resource renamed or re-namespaced downstream (by hand, by kpt's
// set-namespace, by a kustomization's namespace:) still pairs with its upstream copy when
// it says which upstream resource it comes from. Three sources are read, strongest first:
// vocab.UpstreamIdentityAnnotation, vocab.KptUpstreamIdentifier and kpt's merge comment
// (vocab.KptMergeComment).

// Claim is an item's identity override (docs/function.md, "Resource identity"): the
// upstream identity it declares, from one of the three sources. (A schema.ListOverride is
// another thing: a mergeKeys entry saying how a list merges.)
type Claim struct {
	// Group and Kind are the upstream's (the item's own for the comment and
	// vocab.UpstreamIdentityAnnotation, which name only namespace and name).
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

// ClaimOf reads an item's identity override (its Claim): vocab.UpstreamIdentityAnnotation,
// else vocab.KptUpstreamIdentifier, else the kpt-merge line comment on the metadata: key
// (a head comment there is read too). ok is false when the item has none.
// A nameless item's kpt annotation or comment with an empty name, as kpt pkg get writes
// them, is no override.
// Errors (*vocab.ItemError naming the item and the field): a value that is not
// "namespace/name" (annotation, comment) or "group|kind|namespace|name" (kpt's
// annotation), or names no name (on an item that has one).
func ClaimOf(it *roles.Item) (o Claim, ok bool, err error) {
	group, kind := vocab.Group(it.Node.GetApiVersion()), it.Node.GetKind()
	annos := it.Node.GetAnnotations()
	if v, found := annos[vocab.UpstreamIdentityAnnotation]; found {
		f := "metadata.annotations." + vocab.UpstreamIdentityAnnotation
		ns, name, perr := parseNamespaceName(v)
		if perr != "" {
			return o, false, it.Errorf(f, "%s %q %s; want namespace/name (namespace may be empty: /name)", vocab.UpstreamIdentityAnnotation, v, perr)
		}
		return Claim{Group: group, Kind: kind, Namespace: ns, Name: name, Source: "annotation " + vocab.UpstreamIdentityAnnotation, Field: f}, true, nil
	}
	// kpt pkg get records a nameless resource that has a namespace or labels with an
	// empty name ("group|kind|namespace|" and "# kpt-merge: namespace/"): it says nothing
	// about the upstream copy, which is identified by its path like the item itself.
	nameless := it.Node.GetName() == ""
	if v, found := annos[vocab.KptUpstreamIdentifier]; found {
		f := "metadata.annotations." + vocab.KptUpstreamIdentifier
		parts := strings.Split(strings.TrimSpace(v), "|")
		if nameless && len(parts) == 4 && parts[3] == "" {
			return o, false, nil
		}
		if len(parts) != 4 || parts[1] == "" || parts[2] == "" || parts[3] == "" {
			return o, false, it.Errorf(f, "%s %q is malformed; want group|kind|namespace|name as kpt writes it (group empty for the core group, namespace ~C for cluster-scoped)", vocab.KptUpstreamIdentifier, v)
		}
		o = Claim{Group: parts[0], Kind: parts[1], Namespace: parts[2], Name: parts[3], Source: "annotation " + vocab.KptUpstreamIdentifier, Field: f}
		switch o.Namespace {
		case vocab.KptClusterScoped:
			o.Namespace = ""
		case vocab.KptDefaultNamespace:
			o.DefaultOrEmpty = true
		}
		return o, true, nil
	}
	if c, found := mergeComment(it.Node); found {
		ns, name, perr := parseNamespaceName(c)
		if nameless && name == "" && strings.Contains(c, "/") {
			return o, false, nil
		}
		if perr != "" {
			return o, false, it.Errorf("metadata", "comment %q on metadata %s; want # %s namespace/name (namespace may be empty)", vocab.KptMergeComment+" "+c, perr, vocab.KptMergeComment)
		}
		return Claim{Group: group, Kind: kind, Namespace: ns, Name: name, Source: "comment # " + vocab.KptMergeComment + " on metadata", Field: "metadata"}, true, nil
	}
	return o, false, nil
}

// CrossesKind reports whether the Claim names another group or kind than its own
// (only kpt's annotation names them): an override pairs a renamed or re-namespaced copy
// of one resource, never a resource of another kind (an upstream ConfigMap claiming
// `|Secret|default|db-creds` would pair with the user's Secret and merge its data into
// it). Index ignores such a claim, and the item keeps its own identity; IgnoredClaims
// lists them for a warning.
func (o Claim) CrossesKind(it *roles.Item) bool {
	return o.Group != vocab.Group(it.Node.GetApiVersion()) || o.Kind != it.Node.GetKind()
}

// IgnoredClaim is an item's identity override that Index ignores (Claim.CrossesKind).
type IgnoredClaim struct {
	Item  *roles.Item
	Claim Claim
}

// IgnoredClaims returns, in input order, the items with a role whose identity override
// Index ignores because it names another group or kind (Claim.CrossesKind), with the
// claim; a malformed override is Index's error, not listed here.
func IgnoredClaims(items []roles.Item) []IgnoredClaim {
	var out []IgnoredClaim
	for i := range items {
		it := &items[i]
		if it.Role == vocab.None {
			continue
		}
		if o, ok, err := ClaimOf(it); err == nil && ok && o.CrossesKind(it) {
			out = append(out, IgnoredClaim{Item: it, Claim: o})
		}
	}
	return out
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
				if strings.HasPrefix(line, vocab.KptMergeComment) {
					return strings.TrimSpace(strings.TrimPrefix(line, vocab.KptMergeComment)), true
				}
			}
		}
	}
	return "", false
}

// Upstream returns the identity kpt records for n's upstream origin: the four parts of
// its vocab.KptUpstreamIdentifier annotation as written (group, kind, namespace, name,
// kpt's placeholders "~C" and "default" kept as they are), else, when n has none (or one
// that is not four parts, which ClaimOf refuses), n's own group, kind, namespace and
// name. DocKeys refines it for pairing the documents of package trees: kpt's
// annotation on a nameless resource names no name, and so no resource.
func Upstream(n *yaml.RNode) ID {
	if parts := strings.SplitN(n.GetAnnotations()[vocab.KptUpstreamIdentifier], "|", 4); len(parts) == 4 {
		return ID{Group: parts[0], Kind: parts[1], Namespace: parts[2], Name: parts[3]}
	}
	return ID{Group: vocab.Group(n.GetApiVersion()), Kind: n.GetKind(), Namespace: n.GetNamespace(), Name: n.GetName()}
}

// Set is a resource identity with the item of each role that has it.
type Set struct {
	// ID is the shared identity: the upstream identity an override declares, else the
	// items' own.
	ID ID
	// Items holds one item per role present.
	Items map[vocab.Role]*roles.Item
}

// Get returns the item of a role, or nil.
func (s *Set) Get(r vocab.Role) *roles.Item { return s.Items[r] }

// Options say how Index builds identities.
type Options struct {
	// MergeOnPath makes every item's file path relative to its role directory part of its
	// identity (the functionConfig's mergeOnPath).
	MergeOnPath bool
	// Namespaced reports whether a kind is namespace-scoped; known is false when it cannot
	// tell (a custom resource without its CRD in the input), which Index treats as
	// namespaced. nil uses kyaml's table of built-in kinds.
	Namespaced func(apiVersion, kind string) (namespaced, known bool)
}

// Index groups the items that have a role by identity, with hash maps (no pairwise
// scans). Sets are returned in order of first appearance.
//
// Identity is Identity's, refined in this order (docs/function.md, "Resource
// identity"):
//  1. An item with an identity override (ClaimOf) is indexed under the upstream
//     identity it declares, in every role: kpt writes the comment and annotation on every
//     resource it fetches, so a blueprint fetched from another package carries its own
//     upstream's identity, and so does the local copy fetched from the blueprint (kpt pkg
//     update's resource-merge matches the three the same way). Its group, kind and file
//     stay the item's own except for kpt's annotation, which names group and kind too.
//     kpt's namespace "default" pairs with an upstream copy in default, else one without
//     a namespace.
//  2. Items without a name of one group and kind in one file are numbered in file order.
//  3. When a role holds several items of one identity in different files (kustomize
//     trees: a LabelTransformer named labels in every base), the file path relative to
//     the role directory joins the identity of every item with that identity, in every
//     role: they pair only at equal relative paths, as kyaml's filters.Merge3 merges on
//     path.
//  4. A cluster-scoped kind ignores namespace; for a namespace-scoped kind, no namespace
//     and "default" pair when no role holds an item in both (upstream dropping
//     `namespace: default` must not turn a customised resource into a delete plus an add).
//
// Errors (*vocab.ItemError): a malformed override; two items of one role with one
// identity in one file (naming both resources and the file), or claiming one upstream
// identity through an override (naming both and the override).
func Index(items []roles.Item, opts Options) ([]*Set, error) {
	ids := make([]ID, len(items))
	natural := make([]ID, len(items))
	overrides := make(map[*roles.Item]*Claim) // each item's Claim
	exists := make(map[ID]bool, len(items))
	for i := range items {
		it := &items[i]
		if it.Role == vocab.None {
			continue
		}
		ids[i] = Identity(it, opts.MergeOnPath)
		natural[i] = ids[i]
		exists[ids[i]] = true
		o, ok, err := ClaimOf(it)
		if err != nil {
			return nil, err
		}
		if ok && !o.CrossesKind(it) {
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
			if withEmpty := (ID{Group: id.Group, Kind: id.Kind, Name: id.Name, File: id.File}); !exists[id] && exists[withEmpty] {
				id = withEmpty
			}
		}
		ids[i] = id
	}
	numberNameless(items, ids)
	if err := splitByFile(items, ids, natural, overrides); err != nil {
		return nil, err
	}
	pairNamespaces(items, ids, opts.Namespaced)
	byID := make(map[ID]*Set, len(items))
	var order []*Set
	for i := range items {
		it := &items[i]
		if it.Role == vocab.None {
			continue
		}
		id := ids[i]
		s := byID[id]
		if s == nil {
			s = &Set{ID: id, Items: map[vocab.Role]*roles.Item{}}
			byID[id] = s
			order = append(order, s)
		}
		if prev := s.Items[it.Role]; prev != nil {
			return nil, duplicate(it, prev, id, overrides[it], overrides[prev])
		}
		s.Items[it.Role] = it
	}
	return order, nil
}

// numberNameless numbers the items identified by path that share group, kind, role and
// file, in input order (ID.Nth).
func numberNameless(items []roles.Item, ids []ID) {
	type key struct {
		role vocab.Role
		id   ID
	}
	var seen map[key]int
	for i := range items {
		if items[i].Role == vocab.None || ids[i].Name != "" || ids[i].File == "" {
			continue
		}
		if seen == nil {
			seen = map[key]int{}
		}
		k := key{items[i].Role, ids[i]}
		ids[i].Nth = seen[k]
		seen[k]++
	}
}

// splitByFile is Index's rule 3: where a role holds several items of one identity in
// different files, the relative file path joins the identity of every item that has it.
// Two such items of one role in one file, or items that collide only through an
// identity override, are left colliding for Index's duplicate error.
func splitByFile(items []roles.Item, ids, natural []ID, overrides map[*roles.Item]*Claim) error {
	type key struct {
		role vocab.Role
		id   ID
	}
	count := make(map[key][]int, len(items))
	for i := range items {
		if items[i].Role == vocab.None || ids[i].File != "" {
			continue
		}
		k := key{items[i].Role, ids[i]}
		count[k] = append(count[k], i)
	}
	split := map[ID]bool{}
	for k, idx := range count {
		if len(idx) < 2 || split[k.id] {
			continue
		}
		files := make(map[string]bool, len(idx))
		ok := true
		for _, i := range idx {
			it := &items[i]
			if files[it.RelFile] || it.RelFile == "" || !sameNatural(natural[i], natural[idx[0]]) {
				ok = false // one file, no file, or an override claim: a duplicate
				break
			}
			files[it.RelFile] = true
		}
		if ok {
			split[k.id] = true
		}
	}
	if len(split) == 0 {
		return nil
	}
	for i := range items {
		if items[i].Role != vocab.None && ids[i].File == "" && split[ids[i]] {
			ids[i].File = items[i].RelFile
		}
	}
	return nil
}

// sameNatural reports whether two items' own identities are the same resource (namespace
// "" and "default" alike), i.e. they collide by their names and not through an override.
func sameNatural(a, b ID) bool {
	if a.Namespace == "default" {
		a.Namespace = ""
	}
	if b.Namespace == "default" {
		b.Namespace = ""
	}
	return a == b
}

// pairNamespaces is Index's rule 4: identities that differ only by namespace lose it for
// a cluster-scoped kind, and join "" with "default" for a namespaced one when no role
// holds both.
func pairNamespaces(items []roles.Item, ids []ID, namespaced func(apiVersion, kind string) (bool, bool)) {
	// For each identity without its namespace: the namespaces present, and whether a
	// role holds both "" and "default".
	type seen struct {
		ns   map[string]bool
		role map[vocab.Role]uint8 // bit 1: "", bit 2: "default"
		both bool
	}
	all := map[ID]*seen{}
	for i := range items {
		if items[i].Role == vocab.None {
			continue
		}
		k := ids[i]
		k.Namespace = ""
		s := all[k]
		if s == nil {
			s = &seen{ns: map[string]bool{}, role: map[vocab.Role]uint8{}}
			all[k] = s
		}
		s.ns[ids[i].Namespace] = true
		switch ids[i].Namespace {
		case "":
			s.role[items[i].Role] |= 1
		case "default":
			s.role[items[i].Role] |= 2
		}
		if s.role[items[i].Role] == 3 {
			s.both = true
		}
	}
	if namespaced == nil {
		namespaced = builtinNamespaced
	}
	for i := range items {
		if items[i].Role == vocab.None {
			continue
		}
		k := ids[i]
		k.Namespace = ""
		s := all[k]
		if len(s.ns) < 2 {
			continue
		}
		scoped, known := namespaced(items[i].Node.GetApiVersion(), items[i].Node.GetKind())
		switch {
		case known && !scoped:
			ids[i].Namespace = ""
		case ids[i].Namespace == "" && s.ns["default"] && !s.both:
			ids[i].Namespace = "default"
		}
	}
}

// builtinNamespaced is kyaml's table of the built-in kinds' scope.
func builtinNamespaced(apiVersion, kind string) (bool, bool) {
	return openapi.IsNamespaceScoped(yaml.TypeMeta{APIVersion: apiVersion, Kind: kind})
}

// duplicate is the error for two items of one role with one identity.
func duplicate(it, prev *roles.Item, id ID, o, po *Claim) error {
	if o == nil && po == nil {
		field := "metadata.name"
		if id.Name == "" {
			field = "kind"
		}
		return it.Errorf(field, "duplicate %s resource %s: also at %s; two items of one identity in one file cannot be told apart", it.Role, id, where(prev))
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
func claim(o *Claim) string {
	if o == nil {
		return " (its own name)"
	}
	return " (through its " + o.Source + ")"
}

func describeItem(it *roles.Item) string {
	name := it.Node.GetName()
	if ns := it.Node.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}
	return strings.TrimSpace(it.Node.GetApiVersion()+" "+it.Node.GetKind()) + " " + name
}

func where(it *roles.Item) string {
	if it.File == "" {
		return fmt.Sprintf("input item %d", it.Position)
	}
	return fmt.Sprintf("%s (index %d)", it.File, it.Index)
}
