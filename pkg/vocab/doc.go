// Package vocab is krm-merge's vocabulary: the words that carry a merge through every
// layer, each one type, one name, in one place, as structured-merge-diff's fieldpath and
// value packages are small packages of concepts. Every other package of the module
// speaks these words; this one imports none of them but package fieldpath (a conflict
// is at a field path).
//
// # Shapes
//
//   - Mode (3way, 2way, apply) and its roles; Role (original, updated, dest, src; apply
//     mode's Config and Live, which are the roles updated and dest under their apply
//     names: the annotation values and path keys stay updated and dest);
//   - ConflictPolicy, how a run decides a conflict (the functionConfig's onConflict:
//     updated, dest, error, mark; and original, the policy pkg update's markers use),
//     with the Role whose value the output holds (ConflictPolicy.Winner);
//   - Conflict, one field original, updated and dest hold three different ways, with
//     its Kind, the three values, the Winner (a Role) and, when it is a part of a value
//     merged inside, the Part; Conflicts, a list of them that is an error;
//   - Render, the one renderer of a value (a *yaml.RNode or a plain decoded value) on
//     one line, in a Form: Whole for selectors, Short and Long for messages;
//   - Location (resource, file, index) and ItemError, bad input tied to its place, with
//     LocationOf and ResourceRef, the one reader of an item's place, and
//     DescribeResource, the one renderer of a resource in a message;
//   - Counts, the resource outcomes of a 3-way or 2-way run, which pkg update's report
//     carries per package;
//   - the annotation names krm-merge, kpt and kyaml give items (DefaultRoleAnnotation,
//     UpstreamIdentityAnnotation, KptUpstreamIdentifier, KptMergeComment,
//     LocalConfigAnnotation, kpt's namespace placeholders), IsKptfile, IsLocalConfig,
//     Group and Version;
//   - the host's annotations, internal and legacy (PathAnnotations, IndexAnnotations,
//     IDAnnotations), and the one test of a host's annotation (IsHostAnnotation, on
//     kyaml's IsReaderAnnotation).
//
// # Rules
//
// Group cuts an apiVersion at its first slash, as kyaml's resid.ParseGroupVersion does.
// A ConflictPolicy's winner is updated for the zero value, as kyaml's merge3 lets
// updated win.
//
// # Neighbours
//
// Package config reads the Mode and the ConflictPolicy from the functionConfig; package
// roles gives items their Role under the Mode by the role annotation, picking out
// Kptfiles and local-config items; package identity reads the identity annotations;
// package merge finds Conflicts and decides them by the ConflictPolicy, package
// resources decides resource conflicts, and package results words both, starting each
// summary with the Mode; packages schema, fieldrules and kptprep cut groups with
// Group; package pkgupdate reports Counts. Each validating package returns ItemErrors.
//
// # Errors
//
// ItemError and Conflicts are errors; nothing in this package fails.
package vocab
