// Package vocab is krm-merge's vocabulary: the words that cross every layer, each one
// type, one name, in one place, as structured-merge-diff's fieldpath and value
// packages are small packages of concepts. Every other package of the module speaks
// these words; this one imports none of them.
//
// # Shapes
//
//   - Mode (3way, 2way, apply) and its roles; Role (original, updated, dest, src; apply
//     mode's Config and Live, which are the roles updated and dest under their apply
//     names: the annotation values and path keys stay updated and dest). A conflict's
//     winner is a Role (package merge's Options.Winner and Conflict.Winner);
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
//
// # Neighbours
//
// Package config reads the Mode from the functionConfig, and its onConflict value
// (config.ConflictPolicy) gives the winning Role; package roles gives items their Role
// under the Mode by the role annotation, picking out Kptfiles and local-config items;
// package identity reads the identity annotations; package merge decides conflicts for
// the winning Role, package resources decides resource conflicts, and package results
// words both, starting each summary with the Mode; packages schema, fieldrules and
// kptprep cut groups with Group; package pkgupdate reports Counts. Each validating
// package returns ItemErrors.
//
// # Errors
//
// ItemError is an error; nothing in this package fails.
package vocab
