// Package checked carries a caller's word that the merge engine's inputs were already
// checked, from package function to package merge, without a field in the engine's
// public options that any caller could set wrongly.
//
// # Shapes
//
// Inputs says what was checked of every input of a merge: no YAML alias (AliasFree),
// no null element in a list of primitives (NullElementFree, what HasNullElement asks
// of one tree). Mark records Inputs on a *merge.Options, through the setter package
// merge gives Register when it is initialised.
//
// # Neighbours
//
// Package merge registers its setter and skips the walks an Inputs says are done;
// package function, which checks every item once before merging (internal/bounds for
// aliases, HasNullElement), marks the options it builds.
package checked
