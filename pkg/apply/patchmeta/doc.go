// Package patchmeta serves kubectl's strategic-merge patch metadata (patch strategies and
// merge keys per field) for every kind of kubectl's built-in scheme, without linking the
// k8s.io/api Go types.
//
// kubectl reads the metadata from the struct tags of the k8s.io/api types
// (strategicpatch.NewPatchMetaFromStruct). Those types are about 14 MB of generated code
// in a binary, more than krm-merge itself. This package carries what the lookups read of
// them, a table of type shapes generated from the same types at the k8s.io/api version in
// go.mod (table.json.gz, written by `go generate ./pkg/apply/patchmeta`, see gen/), and
// implements strategicpatch.LookupPatchMeta over it with the same answers and the same
// error messages as strategicpatch.PatchMetaFromStruct. The parity tests check every
// field of every kind against PatchMetaFromStruct and that the table is current.
package patchmeta
