// Package resources is the resource layer of every mode: it pairs the items of each role
// by identity (package identity), applies the mode's resource rules to each identity, calls
// the mode's engine for the pairs (package merge for 3way and 2way, package apply for
// apply), and assembles the output items and results. It is pure: no I/O.
//
// # Shapes
//
// Run takes the items as roles.Assign returns them (each with its role, file and
// index) and Options (the roles.Options they were assigned with: the mode, the role
// annotation, the role directories; the identity.Options: mergeOnPath; keepSources;
// the engine's merge.Options with the run's winner and its schema.Resolver; whether
// the run fails on conflicts (FailOnConflict);
// the field rules; plan), and returns an
// *Outcome: the output items (pass-through and merged items in input order, then added
// items, rebased into the dest directory with path roles), the results
// (package results' shapes: a summary, one result per conflict, warnings and notes;
// with Plan, the plan), the resource counts, the conflicts, which dest items were merged
// (and into what), deleted or added, and with Plan the field changes.
//
// # Rules
//
// Each mode's resource rules are in one file (docs/merge-semantics.md, "Resources"; apply
// mode: "Apply mode"):
//
//	threeway.go  O U D merged; - U D merged as if O were empty; - U - added;
//	             O - D deleted upstream (a conflict when D changed it); O U - stays
//	             deleted locally (a warning when upstream changed it); - - D kept
//	twoway.go    S D merged; S only added; D only kept
//	apply.go     config and live applied (kubectl client-side apply); config only created;
//	             live only kept
//
// fieldrules.go applies the field rules (package fieldrules) to each merged resource,
// output.go assembles the output (docs/function.md, "Output"), plan.go lists a merge's
// field changes for a plan (docs/function.md, "Plan"), and results are built by package
// results from the typed outcomes (report.go).
//
// Host annotations (pkg/resources/internal/host: kpt's and kyaml's path, index, id and seqindent,
// legacy and internal) and the role annotation are never merged: dest's are kept.
// Added items lose the role annotation; with path roles their path moves from the
// updated (src) directory into the dest directory.
//
// # Neighbours
//
// Package function is the caller: it assigns roles, checks the items and builds
// Options from the functionConfig. Below this package are the engines (merge, apply),
// the decisions they share (schema, fieldrules), the differ (plan) and the result
// messages (results).
//
// # Errors
//
// Run returns *vocab.ItemError values naming the resource, file and field: two items
// of one role with one identity (identity.Index); a malformed 2-way directive; a field-rules
// annotation that does not parse; in apply mode the errors of apply.Apply and
// apply.Create, placed at the item at fault; a panic while handling a resource,
// recovered into an error naming it. Conflicts are not errors: they are in
// Outcome.Conflicts, and the caller fails the run on any with Options.FailOnConflict.
package resources
