// Package plan lists, field by field, what a run would change: the differ behind apply
// mode's per-field results (package apply) and behind `plan: true` for every mode
// (ForMerge), so both report changes the same way (docs/function.md, "Plan").
//
// Diff compares two object values (JSON-like: map[string]interface{}, []interface{},
// scalars) and returns one Change per field that differs: added, deleted, changed, or a
// keyed list or set whose common elements change order. Lists are paired element by
// element when Meta says they are keyed (by their merge keys) or sets (by value), so a
// change inside one container is reported at spec.template.spec.containers[name=app]...,
// not as a change of the whole list. Field paths are package fieldpath's.
package plan
