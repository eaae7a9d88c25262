// Package schema decides, for each list the merge engine meets, whether it is atomic
// (replaced whole), a keyed (associative) list and by which merge keys, or a set of
// primitives, and numbers a keyed list's elements by identity so that the elements of
// original, updated and dest pair (Resolver.Pair, Identities).
//
// # Shapes
//
// A Resolver is built once per run: New(openAPI, keys) with the functionConfig's
// schema choice and associativeKeys, then WithOverrides (the mergeKeys table, as
// Override values) and WithCRDs (the CustomResourceDefinitions among the items). Its
// answers are per place: ForResource gives the schema at a resource's root (a Node,
// walked with Node.Field and Node.Elements as the merge walks the resource), and Decide
// (or Pair) takes the schema there and the list's value in each source, and returns a
// List: Kind (Atomic, Keyed, Set), Keys (primary first), and how keys compare
// (Wildcard, AnyKey, Untagged). Namespaced answers a kind's scope, for identity. A
// Resolver is safe for concurrent use; CRD schemas are read on first use.
//
// # Rules
//
// Strongest of all is the functionConfig's mergeKeys entry for the resource's group,
// kind and path, in server-side apply's vocabulary (Resolver.WithOverrides;
// docs/function.md, "mergeKeys"). Then, strongest first (docs/merge-semantics.md,
// "Which lists are associative"):
//
//  0. a field's own inline OpenAPI comment, as kyaml's fieldmeta reads it, e.g.
//     `items: # {"type":"array","x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"id"}`
//     (WithComments);
//  1. the CustomResourceDefinitions in the input (Resolver.WithCRDs), the built-in
//     schemas of kpt's Kptfile (pipeline functions keyed by image or exec and name:
//     PipelineFunctionKeys) and kustomize's Kustomization and Component
//     (its resource lists as sets, images and generators keyed by name), and the Kubernetes OpenAPI
//     that kyaml embeds (v1.21.2 in kyaml v0.21.2) for known kinds:
//     `x-kubernetes-list-type` (atomic, set, map) with `x-kubernetes-list-map-keys`, or
//     `x-kubernetes-patch-strategy: merge` with `x-kubernetes-patch-merge-key` (no key:
//     a set of primitives); a list the built-in OpenAPI knows without a strategy is
//     atomic, while one a CRD declares without a list type falls through to rule 2
//     (WithCRDs says why). `metadata` follows ObjectMeta for every kind, custom
//     resources included (docs/merge-semantics.md, "Metadata of every kind");
//  2. no schema for the list: the associative keys (kustomize's merge2
//     and merge3 API conventions; DefaultAssociativeKeys by default): the first key that every
//     element of every source carries, with values unique within each source, is the
//     merge key; when none qualifies the list is atomic.
//
// A keyed list whose elements do not all carry the schema's key, or carry one key value
// twice, is treated as atomic, so that nothing is lost by pairing (kyaml drops or
// merges such elements).
//
// # Neighbours
//
// Package function builds the run's Resolver from package config's
// Config; package merge asks it at every list (merge.Options.Lists); package resources
// lists a merge's field changes with the same decisions (through package plan's Meta)
// and gives identity.Index the Resolver's Namespaced; pkg/resources/internal/host pairs comments with it.
// This package reads schemas and items and changes nothing.
//
// # Errors
//
// None: a schema that cannot be read (a malformed CRD, an unreadable inline comment) is
// ignored, and the list falls to the next rule. Bad mergeKeys entries are package
// config's errors.
package schema
