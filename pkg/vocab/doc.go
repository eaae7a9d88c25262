// Package vocab is krm-merge's vocabulary: the words that carry a merge through every
// layer, each one type, one name, in one place, as structured-merge-diff's fieldpath and
// value packages are small packages of concepts. Every other package of the module
// speaks these words; this one imports none of them.
//
// # Shapes
//
//   - the annotation names krm-merge, kpt and kyaml give items (DefaultRoleAnnotation,
//     UpstreamIdentityAnnotation, KptUpstreamIdentifier, KptMergeComment,
//     LocalConfigAnnotation), IsKptfile, IsLocalConfig and Group.
//
// # Rules
//
// Group cuts an apiVersion at its first slash, as kyaml's resid.ParseGroupVersion does.
//
// # Neighbours
//
// Package roles reads the role annotation and picks out Kptfiles and local-config
// items; package roles also reads the identity annotations; packages listkind,
// fieldrules and kptprep cut groups with Group.
//
// # Errors
//
// Nothing in this package fails.
package vocab
