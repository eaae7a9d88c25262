// Package roles decides which input items are original, updated, dest or src, and what
// makes two items "the same resource" (identity).
//
// # Shapes
//
// Assign takes the ResourceList items in input order and Options (the mode, the role
// annotation, the role directories, the inline sources) and returns one Item per input
// item, then one per inline source: the node, its Role (None: passes through), its
// position, its file and index annotations, its file relative to its role directory.
// Index groups the items that have a role by identity into Sets (one per resource, with
// the item of each role that has it), in order of first appearance. An ID is group,
// kind, namespace and name, plus the file path where it takes part; never the version.
//
// # Rules
//
// Roles come from (docs/function.md, "Choosing roles"):
//  1. the role annotation (default config.kubernetes.io/merge-source, as kyaml's
//     filters.Merge3), always honoured when present;
//  2. the directory an item's path annotation lies under (originalPath, updatedPath,
//     destPath, srcPath), mirroring filters.Merge3{OriginalPath, UpdatedPath, DestPath};
//     the most specific directory wins, so destPath "." takes whatever the others do not;
//  3. inline sources in the typed functionConfig (spec.original, spec.updated, spec.src),
//     with every other input item dest.
//
// Items with no role pass through. With path roles every item under a role directory has
// that role, Kptfiles and local-config items included: a kpt package's setters.yaml, its
// subpackages' Kptfiles and its local-config resources are part of the package being
// upgraded. With annotation roles and inline sources, a Kptfile or local-config item is
// merged only when its own role annotation selects it (kpt feeds both to every function).
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
// Package function calls Assign with Options built from the functionConfig; package
// resources calls Index (with listkind's Namespaced for kinds' scopes) and applies the
// resource rules to each Set; package pkgupdate cleans paths with Clean; package config
// checks and cleans the path keys with CheckPath and Clean, so that a key and an item's
// path are read alike (a backslash is a separator). This package reads items and never
// changes them.
//
// # Errors
//
// *vocab.ItemError values naming the resource, file and field: a path annotation
// holding a control character (any item), or absolute or leaving the package root (an
// item with a role, an inline source: docs/function.md, "Choosing roles"); a role that
// is not one of the mode's (naming the valid ones, and the mode it belongs to); an item with
// a role but no apiVersion or kind, or neither metadata.name nor a file path; a
// malformed identity override; two items of one role with one identity (naming both),
// or claiming one upstream identity through overrides.
package roles
