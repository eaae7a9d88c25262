// Package filter is krm-merge as a kyaml kio.Filter, for Go programs that process
// configuration with sigs.k8s.io/kustomize/kyaml: a kio.Pipeline over a package
// directory, a kyaml fn/framework function, or plain []*yaml.RNode.
//
// # Shapes
//
// Input: the items a KRM function would get in ResourceList.items, as *yaml.RNode. Each
// item's role (original, updated, dest for 3-way; src, dest for 2-way) comes from the
// role annotation (default config.kubernetes.io/merge-source), from the directory in its
// path annotation (internal.config.kubernetes.io/path, or the legacy
// config.kubernetes.io/path; kio.LocalPackageReader sets both), or, for inline sources
// in the typed functionConfig, from the Config itself. Items without a role pass through.
//
// Output: exactly what the krm-merge function writes to ResourceList.items: pass-through
// and merged items in input order, then added items. Merged items keep dest's comments,
// field order and path/index annotations; added items lose the role annotation and, with
// path roles, have their path rebased from the updated (or src) directory into the dest
// directory; with path roles the original/updated/src items are consumed (left out of the
// output) unless Config.KeepSources is set. Where the input items carry a host's
// internal.config.kubernetes.io/id (and legacy id) annotation, merged items keep dest's,
// with the host's own comment restoration already applied (docs/hosts.md). Input nodes
// are never changed, but output items that pass through unchanged are the input nodes
// themselves.
//
// Results: after Filter, Filter.Results holds the run's results as the function reports
// them (package results): one info summary ("3way merge: 1 merged, 1 added, 0 deleted, 0
// kept, 1 conflicts"), one warning per conflict with resourceRef, file and field.path,
// warnings about resources deleted locally that upstream changed, and info results
// where a field rule decided a field.
//
// # Errors
//
// Filter returns no items and an error when the function would fail (exit 1 with error
// results):
//   - a bad item (a role that is not one of the mode's, two items with one identity in a
//     role, an item with a role but no apiVersion, kind or name, an unknown $patch): a
//     *vocab.ItemError naming the resource, file and field (errors.As finds it);
//   - conflicts under onConflict=error: a framework.Results whose first entry says how
//     many conflicts there were, followed by one error result per conflict;
//   - an invalid Config (see Filter.Config): config.Errors, one *config.Error per
//     problem (Config.Validate);
//   - an internal panic, recovered: a plain error.
//
// New returns config.Load's errors for a bad functionConfig as *vocab.ItemError values
// (joined with errors.Join), each naming the functionConfig resource and the field path,
// e.g. "data.mode". Filter.Results holds every error as error results
// (results.FromError), as the function would write them.
//
// # kio.Pipeline
//
// *Filter works as a kio.Pipeline filter. Three things a pipeline does matter here, and the
// package example shows them:
//   - before each filter, kio.Pipeline annotates every item with
//     internal.config.kubernetes.io/annotations-migration-resource-id and removes it
//     again afterwards; krm-merge treats every internal.config.kubernetes.io/ annotation
//     (and the legacy path, index and id annotations) as the host's, never merged, so
//     merged items keep dest's;
//   - when a filter returns no items, kio.Pipeline stops and writes nothing unless
//     ContinueOnEmptyResult is set. A merge can legitimately produce no items (upstream
//     deleted the only resource): set ContinueOnEmptyResult so that the writer sees the
//     empty result;
//   - kio.LocalPackageReadWriter deletes the files it read that no output item names, so
//     with path roles the files of the original and updated directories are deleted
//     (their now empty directories stay), as kpt does with the function.
//
// When the filter fails, kio.Pipeline stops before its outputs: nothing is written.
//
// # Where the rules come from
//
// The configuration is the function's functionConfig (package config; both the ConfigMap
// and the typed fn.krm-merge.dev/v1alpha1 ResourceMerge forms), the merge is
// function.Run (roles, resource rules, field merges), and the contract is
// docs/function.md with the field rules of docs/merge-semantics.md. This package
// adds no rules of its own.
package filter
