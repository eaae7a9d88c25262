// Package identity decides what makes two items "the same resource": the identity of
// each item that has a role, and the index that groups original, updated and dest (or
// src and dest) items by it.
//
// # Shapes
//
// Index takes roles.Assign's items and Options (mergeOnPath, the kinds' scopes) and
// groups the items that have a role by identity into Sets (one per resource, with the
// item of each role that has it), in order of first appearance. An ID is group, kind,
// namespace and name, plus the file path where it takes part; never the version.
// Identity is one item's own ID, ClaimOf its identity override (a Claim), Upstream the
// identity kpt records for a resource's upstream origin. DocKeys keys the documents of
// several package trees (Docs: file and node) the way Index identifies items, for
// pairing outside the field merge.
//
// # Rules
//
// Identity (docs/function.md, "Resource identity"; Identity and Index say it in full):
// group, kind, namespace and name, not the version, so that an upstream release that
// moves a kind to a new version still pairs with the local copy; an identity override
// (the fn.krm-merge.dev/upstream-identity annotation, kpt's
// internal.kpt.dev/upstream-identifier annotation or its `# kpt-merge:` comment) pairs
// a renamed or re-namespaced copy with its upstream; items without a name, and
// same-named items in several files, are told apart by their file path relative to the
// role directory; cluster-scoped kinds ignore namespace, and for namespaced kinds no
// namespace pairs with "default".
//
// # Neighbours
//
// Package roles gives the items their roles first; package resources calls Index (with
// schema's Namespaced for kinds' scopes) and applies the resource rules to each Set;
// package pkgupdate pairs documents by DocKeys (comments, a marked conflict's base). This package reads items and never
// changes them.
//
// # Errors
//
// *vocab.ItemError values naming the resource, file and field: a malformed identity
// override; two items of one role with one identity (naming both), or claiming one
// upstream identity through overrides.
package identity
