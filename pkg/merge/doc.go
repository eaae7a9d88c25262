// Package merge is krm-merge's field-merge engine: the 3-way merge (the change from
// original to updated, applied onto dest) and the 2-way merge (src into dest) of one
// resource, field by field, on kyaml RNodes.
//
// # Shapes
//
// ThreeWay(original, updated, dest, Options) and TwoWay(src, dest, Options) return a
// Result: the merged Value, the Conflicts found (3-way), in document order, the
// ValueMerges (values changed on both sides merged part by part, with
// Options.ValueMerge; their conflicting parts are Conflicts carrying their Part)
// and the RuleEffects of Options.FieldRules (package fieldrules), which the engine
// applies to its output. Inputs are *yaml.RNode values as kyaml parses them (a whole
// resource or any YAML value); any may be nil (absent). A Conflict names its
// place (Path, a fieldpath.Path such as spec.template.spec.containers[name=app].image),
// its Kind (changed on both sides, deleted upstream and changed locally, deleted
// locally and changed upstream), the three values and the Winner that Options.Winner
// chose. Options.Lists says how lists merge (package schema; nil is the default
// associative keys alone, without the built-in Kubernetes schema); Options.Share lets
// the output share unchanged subtrees with the inputs, for callers that merge whole
// ResourceLists. Equal compares two values by the engine's rules; RestoreComments fills
// a node's empty comment slots from its counterpart, paired as the merge pairs nodes.
//
// # Rules
//
// The rules are those of docs/merge-semantics.md, which follows kustomize's merge2 and
// merge3 API conventions and kyaml's yaml/merge2 and yaml/merge3, and fixes kyaml where
// it is known to be wrong: a field changed on one side takes that side's value; a
// field changed on both sides differently is a conflict that Options.Winner decides
// ("Conflict": updated wins by default, as kyaml merge3); keyed list elements pair by
// merge key and set elements by value, new elements going after their predecessor
// ("Element order"); comments merge on their own ("Comments"); with Options.ValueMerge, an
// image reference, an atomic list or a multi-line string changed on both sides is merged
// inside, by repository, tag and digest, runs of elements or lines, with git
// merge-file's rules (package internal/textmerge), before it is a conflict ("Merging
// inside a value"); `null` clears; in 2-way,
// src's strategic-merge directives ($patch, $retainKeys, $setElementOrder,
// $deleteFromPrimitiveList) are honoured. Which lists are associative, and by which
// merge key, is decided by package schema ("Which lists are associative").
//
// The engine is pure: it reads its inputs, never changes them, does no I/O, and
// returns a new tree. Unchanged parts of dest are copied as they are (comments,
// quoting, field order), so a merge where original equals updated returns dest byte for
// byte. Pairing of map fields and keyed list elements uses hash indexes, so a merge
// takes time linear in the size of its inputs.
//
// # Neighbours
//
// Package resources calls ThreeWay and TwoWay, shared and with the resource's field
// rules, for every resource that two roles share, after deciding the resource rules
// (added, deleted, kept); package results words the Conflicts and RuleEffects;
// pkg/resources/internal/host uses RestoreComments to find where a host would copy a comment onto
// another node. Package function checks every item once and promises it in Options
// (AliasFree, NullElementFree) so that the engine skips its own checks; package
// resources sets Options.KeepDestPositions for output that goes to a host pairing list
// elements by position.
//
// # Errors
//
// ThreeWay returns no error for well-formed YAML. TwoWay returns a *DirectiveError
// naming the field of an unknown `$patch` value or a malformed directive, also in a
// src value that a takeUpdated field rule takes.
package merge
