// Package listkind decides, for each list the merge engine meets, whether it is atomic, a
// keyed (associative) list and by which merge keys, or a set of primitives, and numbers
// a keyed list's elements by identity (Pair).
//
// Strongest of all is the functionConfig's mergeKeys entry for the resource's group, kind
// and path, in server-side apply's vocabulary (Resolver.WithOverrides). Then, strongest
// first (docs/merge-semantics.md, "Which lists are associative"):
//
//  0. a field's own inline OpenAPI comment, as kyaml's fieldmeta reads it, e.g.
//     `items: # {"type":"array","x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"id"}`;
//  1. the CustomResourceDefinitions in the input (Resolver.WithCRDs), the built-in
//     schemas of kpt's Kptfile and kustomize's Kustomization and Component, and the
//     Kubernetes OpenAPI that kyaml embeds (v1.21.2 in kyaml v0.21.2) for known kinds:
//     `x-kubernetes-list-type` (atomic, set, map) with `x-kubernetes-list-map-keys`, or
//     `x-kubernetes-patch-strategy: merge` with `x-kubernetes-patch-merge-key` (no key:
//     a set of primitives); a list the built-in OpenAPI knows without a strategy is
//     atomic, while one a CRD declares without a list type falls through to rule 2
//     (WithCRDs says why). `metadata` follows ObjectMeta for every kind, custom
//     resources included;
//  2. no schema for the list: the seed documents' associative keys (kustomize's merge2
//     and merge3 API conventions): the first key that every element of every source
//     carries, with values unique within each source, is the merge key; when none
//     qualifies the list is atomic.
//
// A keyed list whose elements do not all carry the schema's key, or carry one key value
// twice, is treated as atomic, so that nothing is lost by pairing (kyaml drops or merges
// such elements).
package listkind
