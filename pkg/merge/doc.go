// Package merge is krm-merge's field-merge engine: the 3-way merge (the change from
// original to updated, applied onto dest) and the 2-way merge (src into dest) of one
// resource, field by field, on kyaml RNodes.
//
// The rules are those of docs/merge-semantics.md, which follows kustomize's merge2 and
// merge3 API conventions and kyaml's yaml/merge2 and yaml/merge3, and fixes kyaml where it
// is known to be wrong (docs/differences.md). Which
// lists are associative, and by which merge key, is decided by package listkind.
//
// The engine is pure: it reads its inputs, never changes them, does no I/O, and returns a
// new tree. Unchanged parts of dest are copied as they are (comments, quoting, field
// order), so a merge where original equals updated returns dest byte for byte. Pairing
// of map fields and keyed list elements uses hash indexes, so a merge takes time linear
// in the size of its inputs.
package merge
