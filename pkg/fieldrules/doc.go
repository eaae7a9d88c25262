// Package fieldrules holds the field rules of a merge: per field path of selected
// resources, a policy that overrides the field merge there (KeepDest, TakeUpdated,
// Ignore), in the manner of kapp's rebase rules and Flux's
// kustomize.toolkit.fluxcd.io/ssa annotation.
//
// # Shapes
//
// Rules come from two places:
//
//   - the functionConfig's fieldRules table, entries of {match: {group, kind, name,
//     namespace, labelSelector}, paths, policy}, which package config parses into Rule
//     values (Match built by NewMatch, paths by ParsePath);
//   - the per-object annotation fn.krm-merge.dev/field-rules (Annotation), entries
//     "path=policy" separated by commas or newlines (ParseAnnotation), on dest and on
//     updated (src in 2-way).
//
// For selects the rules of one resource as PathRule values (path, policy, source), in
// increasing precedence: the functionConfig's rules whose Match selects dest, then
// updated's annotation, then dest's; a later rule for a path replaces an earlier one.
// Paths select map fields and list elements by merge key ([name=app]) or value
// ([=x]), never by position: the merge pairs list elements by key or value.
//
// # Neighbours
//
// The package parses, validates and selects; it merges nothing. Package merge applies
// the selected rules to a merged resource (merge.Options.FieldRules) and reports where
// they changed the output (merge.RuleEffect); package resources calls For and then the
// merge with the rules for every merged resource, and package results words the
// effects.
// Field rules apply in 3way and 2way modes; package config and package function reject
// them in apply mode.
//
// # Rules
//
// The policies are those of docs/function.md's fieldRules row and field-rules
// annotation: keepDest keeps dest's value (or absence) and reports where that changed
// the merge's output or decided a conflict; takeUpdated takes updated's value (3-way;
// src's where src sets the path in 2-way), reported the same way; ignore keeps dest's
// value and reports nothing. No conflict is reported at or below a rule's path.
//
// # Errors
//
// ParsePolicy, ParsePath and ParseAnnotation return errors quoting the entry or path;
// NewMatch returns the label selector parser's message; For returns an
// *AnnotationError saying which side's annotation is malformed (Field gives its path
// for a result).
package fieldrules
