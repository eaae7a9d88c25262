// Package fieldrules holds the field rules of a merge: per field path of selected
// resources, a policy that overrides the field merge there (keepDest, takeUpdated,
// ignore). They come from the functionConfig's fieldRules table and from the per-object
// annotation fn.krm-merge.dev/field-rules, in the manner of kapp's rebase rules and
// Flux's kustomize.toolkit.fluxcd.io/ssa annotation.
//
// The package parses, validates and selects rules; package merge applies them to a
// merged resource (merge.ApplyFieldRules), package resources calls both per resource.
package fieldrules
