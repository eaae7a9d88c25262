// Package roles decides which input items are original, updated, dest or src (their
// vocab.Role under the run's vocab.Mode); package identity then decides which of them
// are "the same resource".
//
// # Shapes
//
// Assign takes the ResourceList items in input order and Options (the mode, the role
// annotation, the role directories, the inline sources) and returns one Item per input
// item, then one per inline source: the node, its Role (vocab.None: passes through), its
// position, its file and index annotations, its file relative to its role directory.
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
// # Neighbours
//
// Package function calls Assign with Options built from the functionConfig; package
// identity indexes the items it returns, and package resources applies the resource
// rules to them; package pkgupdate cleans paths with Clean; package config
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
// a role but no apiVersion or kind, or neither metadata.name nor a file path.
package roles
