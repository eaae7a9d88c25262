// Package plan lists, field by field, what a run would change: the differ behind apply
// mode's per-field results (package apply) and behind `plan: true` for every mode
// (package resources), so both report changes the same way (docs/function.md, "Plan").
//
// # Shapes
//
// Diff compares two object values, current and proposed (JSON-like:
// map[string]interface{}, []interface{}, scalars, as RNode.Map or a JSON decoder makes
// them), optionally with a common ancestor (Options.Base), and returns one Change per field
// that differs, in field order (map keys sorted, list elements in list order): Op
// (add, change, delete, or reorder for a keyed list or set whose common elements change
// order), Path (a fieldpath.Path), Current and Proposed values, and the base's value
// (InBase, Base). Change.OverwritesBase tells a change that undoes an edit made since the
// base (apply mode: a live change since the last apply).
//
// Lists are paired element by element when Options.Meta says they are keyed (by their
// merge keys) or sets (by value), so a change inside one container is reported at
// spec.template.spec.containers[name=app]..., not as a change of the whole list. Meta
// is an interface the caller implements over its schema: package resources adapts
// package schema's decisions (the merge's own), package apply adapts kubectl's patch
// metadata. A nil Meta compares maps field by field and lists as a whole.
//
// # Neighbours
//
// Package resources diffs each dest item against its merged output for a 3way or 2way
// plan; package apply diffs the live object against the applied one; package results
// words the changes (results.PlanChange, results.ApplyChange). This package is pure
// and has no errors.
package plan
