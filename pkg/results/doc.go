// Package results turns what a merge found into ResourceList `results` entries
// (kyaml fn/framework Result, the KRM Functions Specification's result shape) and holds
// ItemError, the error type that names the resource, file and field of a bad input.
//
// Shapes (docs/function.md, "Output"):
//   - one info result summarising the run: counts of merged, added, deleted, kept
//     resources and conflicts;
//   - one warning per 3-way conflict, with resourceRef, file and field.path, and the
//     three values in the message; currentValue is dest's, proposedValue the winner's;
//   - error results (severity error) for bad input and for conflicts under
//     onConflict=error; a run with any error result emits no items and exits 1.
package results
