// Package results turns what a run found into ResourceList `results` entries (kyaml
// fn/framework Result, the KRM Functions Specification's result shape), and errors
// (vocab.ItemError above all, which names the resource, file and field of a bad input)
// into error results. Every result message of a run is built here, from typed values (messages.go): no
// other package words a result, and none edits a message by its text.
//
// # Shapes
//
// Each builder takes an At (a vocab.Location: the resourceRef, the file path and index;
// and the field path, "" for a whole resource) and the typed outcome, and returns a
// *framework.Result (docs/function.md, "Output"):
//
//   - one info result summarising the run (Summary, PlanSummary, ApplySummary): counts
//     of merged, added, deleted and kept resources and of conflicts (vocab.Counts)
//     and of field changes (ChangeCounts);
//   - one result per conflict, with resourceRef, file and field.path and the three
//     values in the message: a warning saying who won (FieldConflict for a field,
//     DeletedUpstreamChangedLocally for a resource; currentValue is dest's,
//     proposedValue the winner's), or under onConflict: error an error result, headed
//     by Refused;
//   - warnings (StayedDeleted, HostCopy) and notes (RuleEffect for a field rule that
//     decided the output);
//   - with `plan: true`, one info result per field change and per resource added or
//     deleted (PlanChange, PlanAdd, PlanDelete; docs/function.md, "Plan"); in apply
//     mode per field change, created object and refused field or object (ApplyChange,
//     ApplyCreate, ApplyRefusedField, ApplyRefusedObject; docs/merge-semantics.md,
//     "Apply mode").
//
// Values in currentValue and proposedValue are plain values (Value); messages show them
// compactly (render.Render: Long for plan and apply changes, Short for field rule
// effects).
//
// # Errors
//
// Bad input is a *vocab.ItemError (resource, file, index, field, message); every package
// that validates input returns one. FromError turns any error into error results: one
// per ItemError (also inside errors.Join or a framework.Results), else one plain error
// result. A run with any error result emits no items and exits 1.
//
// # Neighbours
//
// Package resources builds a run's results here; package roles and package apply return
// ItemErrors; package function, package filter and package kptsdk turn errors into
// results with FromError; package pkgupdate words its report's conflicts and changes
// with the text builders (ConflictText, DeletedUpstreamText, ChangeText). This package
// imports vocab, merge and plan for their typed values only.
package results
