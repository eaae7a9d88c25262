// Package roles decides which input items are original, updated, dest or src, and what
// makes two items "the same resource" (identity).
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
// docs/roles-and-identity.md is the full rule.
package roles
