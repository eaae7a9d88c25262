// Package inputcheck checks the binary's input before kyaml's framework reads it: what
// the framework would fail on, or silently change, before the processor runs, with no
// result saying where (docs/function.md, "Bad input").
//
// # Shapes
//
// ResourceList takes the ResourceList on stdin (kyaml's path of the command: the fast
// reader of pkg/function/internal/resourcelist declined it, or a host runs kyaml's stack) and returns
// a reader over the same bytes, or writes a ResourceList with no items and one error
// result to stdout and returns the error. Standalone takes the item files of
// `krm-merge fn-config.yaml items.yaml...` and returns them joined as one YAML stream,
// each file starting a new document, checked the same way. BoundsError turns
// bounds.Check's report on an item into the error a run gives it; package function
// gives the same error for the items it checks itself.
//
// # Rules
//
// Refused: YAML that does not parse; a list of the wrong shape (the input not a map,
// `items` not a list, the list's apiVersion or kind not a string, a ResourceList with
// neither items nor functionConfig or among other documents, a functionConfig holding
// an alias to an anchor outside it); an item repeating a key that kyaml's annotation
// edits would hide; an item whose head or host annotations kyaml's edits fail on
// (pkg/function/internal/resourcelist's CheckItems).
//
// # Errors
//
// Each error names the place: the parser's position, or the resource, file (for a
// standalone run the file and document), item index and field (a *vocab.ItemError).
// The error result is scrubbed for a terminal (internal/scrub). A panic in the checks
// is an error too ("internal error"): the input is hostile, and the binary never
// crashes on it.
package inputcheck
