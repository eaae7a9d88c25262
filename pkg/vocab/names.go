package vocab

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/resid"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The annotations and comments krm-merge, kpt and kyaml give items. The path and index
// annotations are kyaml's (kioutil.PathAnnotation, kioutil.IndexAnnotation and their
// legacy forms), read by LocationOf.
const (
	// DefaultRoleAnnotation is the annotation whose value names an item's role unless
	// the functionConfig's roleAnnotation names another: the one kyaml's filters.Merge3
	// uses.
	DefaultRoleAnnotation = "config.kubernetes.io/merge-source"
	// LocalConfigAnnotation marks a resource that configures tools and is never applied
	// to a cluster ("true"), as kpt and kustomize read it.
	LocalConfigAnnotation = "config.kubernetes.io/local-config"
	// UpstreamIdentityAnnotation is krm-merge's own identity override, "namespace/name"
	// (namespace may be empty: "/name"), the same syntax as kpt's merge comment. It is a
	// plain, user-facing annotation, for hosts and tools that drop comments (kustomize)
	// and for people writing an override by hand; kpt's own annotation is internal (kpt
	// documents that users are not expected to touch internal.kpt.dev/ annotations).
	UpstreamIdentityAnnotation = "fn.krm-merge.dev/upstream-identity"
	// KptUpstreamIdentifier is the annotation kpt (1.0.0-beta.2x and later, kpt pkg get
	// and update) records a resource's upstream origin in: "group|kind|namespace|name",
	// group empty for the core group, namespace KptClusterScoped for a cluster-scoped
	// (or unknown scope) resource and KptDefaultNamespace for a namespaced resource
	// written without one (kpt-functions-sdk go/fn: UpstreamIdentifier,
	// UnknownNamespace, GetOriginId).
	KptUpstreamIdentifier = "internal.kpt.dev/upstream-identifier"
	// KptClusterScoped is the namespace KptUpstreamIdentifier gives a cluster-scoped
	// resource.
	KptClusterScoped = "~C"
	// KptDefaultNamespace is the namespace KptUpstreamIdentifier gives a namespaced
	// resource with no metadata.namespace; it pairs with an upstream copy in "default"
	// or without one.
	KptDefaultNamespace = "default"
	// KptMergeComment starts the line comment kpt pkg get writes on the metadata: key of
	// every resource it fetches: "metadata: # kpt-merge: namespace/name" (namespace may
	// be empty), which kpt pkg update's resource-merge uses to match renamed resources.
	KptMergeComment = "kpt-merge:"
)

// IsKptfile reports whether n is a kpt package's Kptfile: kind Kptfile, apiVersion in
// group kpt.dev (any version).
func IsKptfile(n *yaml.RNode) bool { return IsKptfileKind(n.GetApiVersion(), n.GetKind()) }

// IsKptfileKind reports whether apiVersion and kind are a Kptfile's (see IsKptfile).
func IsKptfileKind(apiVersion, kind string) bool {
	return kind == "Kptfile" && strings.HasPrefix(apiVersion, "kpt.dev/")
}

// IsLocalConfig reports whether n carries LocalConfigAnnotation "true".
func IsLocalConfig(n *yaml.RNode) bool { return n.GetAnnotations()[LocalConfigAnnotation] == "true" }

// Group returns the API group of an apiVersion: the part before its first "/", "" for
// the core group ("v1"), as kyaml's resid.ParseGroupVersion cuts it. A valid apiVersion
// has at most one "/"; "a/b/c" gives "a".
func Group(apiVersion string) string {
	g, _ := resid.ParseGroupVersion(apiVersion)
	return g
}

// Version returns the version of an apiVersion: the part after its first "/", the whole
// of it for the core group ("v1"), as resid.ParseGroupVersion cuts it.
func Version(apiVersion string) string {
	_, v := resid.ParseGroupVersion(apiVersion)
	return v
}
