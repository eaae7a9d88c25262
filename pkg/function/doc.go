// Package function is krm-merge as a KRM function: a kyaml
// framework.ResourceListProcessor (Processor) that merges a ResourceList's items as its
// functionConfig says.
//
// # Shapes
//
// Processor.Process takes a *framework.ResourceList: items (every resource of the
// package, or of the three trees: original, updated, dest; or src and dest; or the
// local config and the live objects in apply mode) and a functionConfig (a v1
// ConfigMap or a fn.krm-merge.dev/v1alpha1 ResourceMerge, package config). It replaces
// items with the output (pass-through and merged items in input order, then added
// items; sources consumed unless keepSources) and appends the results: one info
// summary, one warning per conflict, warnings and notes (package results' shapes). With
// `plan: true` the items stay as they were and the results list every change the run
// would make.
//
// Run is the same without the ResourceList: items and a *config.Config in, a
// *resources.Outcome out (items, results, counts, conflicts, the merged and deleted
// items). Merge is Run for items whose roles the caller knows ([]roles.Item: node, role,
// file as results name it, path relative to its tree): what Run does after roles.Assign.
// CheckHeads is the head check a caller that assigns roles runs first. LoadConfig is
// config.Load with its errors placed on the functionConfig resource. Run builds the run's schema.Resolver (mergeKeys, the CRDs among the items,
// the built-in OpenAPI, the associative keys).
//
// # Neighbours
//
// Package function is where the functionConfig stops: options.go turns it into the
// narrow options of the packages below (roles.Options, resources.Options). Run loads
// nothing itself: it assigns roles (roles.Assign), checks every item once (alias
// expansion and repeated keys with internal/bounds; null elements for
// bounds.HasNullElement), then hands the roles to resources.Run (the mode's resource
// rules, the engines of package merge or package apply, the output and results). It
// does no I/O. The krm-merge binary runs Processor through kyaml's command builder and
// the fast reader and writer of pkg/function/internal/resourcelist, with pkg/function/internal/inputcheck's checks
// of the input kyaml reads; package filter (a kio.Filter), package kptsdk (the kpt
// functions SDK) call Run or LoadConfig; package pkgupdate (`krm-merge pkg update`), which
// knows each resource's role by the tree it read it from, calls Merge.
//
// # Rules
//
// The contract is docs/function.md: "functionConfig", "Modes", "Choosing roles",
// "Output" and "Plan"; the merge rules are docs/merge-semantics.md's ("Resources" for
// whole resources, the sections after it for fields, "Conflict" for onConflict).
//
// # Errors
//
// On any error Process empties the items (nothing half-merged reaches the host),
// appends error results saying what and where (resource, file and field:
// results.FromError of each *vocab.ItemError), and returns the results as its error,
// so the binary exits 1 and kpt leaves the package untouched. The errors are: a bad
// functionConfig (each problem a *vocab.ItemError on the functionConfig, field path
// included; onConflict mark, which only `krm-merge pkg update` takes, among them); a
// malformed item head (bounds.BadHead: an item not a map, metadata or
// annotations of the wrong shape, ..., named "items[i]" with the field); a bad item (a
// path annotation with a control character, or leaving the package on an item with a
// role or an inline source; a role not of the mode, an item with a role but no
// apiVersion, kind or name, two items of one identity in one role, aliases expanding
// past the bound or used inside their own anchor, a key repeated in a map, a malformed
// directive or field-rules annotation; in apply mode a last-applied annotation that is
// not JSON, or the field-rules annotation); under onConflict: error, any conflict (a
// heading error result, results.Refused, then one error result per conflict); a
// recovered internal panic, reported with the input to attach.
package function
