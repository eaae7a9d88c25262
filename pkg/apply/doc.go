// Package apply is krm-merge's apply mode: what `kubectl apply` (client-side) would
// make of a live object, computed offline, written back onto the live object's YAML
// with its comments and field order, plus a field-level plan a user can read before the
// real apply (docs/merge-semantics.md, "Apply mode"; docs/function.md, "Modes").
//
// # Shapes
//
// Apply(live, config, Options) takes the live object (e.g. `kubectl get -o yaml`) and
// the local config, both *yaml.RNode, and returns a *Result: the live object as kubectl
// apply would leave it (Object), the patch type and patch kubectl would send, the
// refreshed kubectl.kubernetes.io/last-applied-configuration (LastApplied), and the
// field changes (Plan, package plan's changes). The original of the 3-way patch is the
// JSON in the live object's last-applied annotation: absent, nothing is deleted.
// Create(config, Options) is the object kubectl apply creates when there is no live
// object. Neither changes its inputs.
//
// The decisions are kubectl's own code, not a re-derivation:
//
//   - kinds of kubectl's built-in scheme (every k8s.io/api group and version client-go
//     registers): strategicpatch.CreateThreeWayMergePatch(original, modified, current,
//     patch meta of the Go type, overwrite=true), applied as the API server does with
//     strategicpatch.StrategicMergePatchUsingLookupPatchMeta. Keyed lists merge by their
//     patchMergeKey, `merge` lists of primitives are ordered sets (metadata.finalizers),
//     retainKeys fields (Deployment spec.strategy, volume sources) drop the keys the
//     config dropped, replace fields (PodDisruptionBudget spec.selector) are replaced,
//     other lists are atomic;
//   - other kinds (custom resources, and CustomResourceDefinition and APIService,
//     whose types are not in k8s.io/api): jsonmergepatch.CreateThreeWayJSONMergePatch
//     with kubectl's preconditions, applied with an RFC 7386 merge patch: lists are
//     replaced whole, metadata.finalizers included.
//
// "modified" is the config plus the refreshed annotation, built byte for byte as
// kubectl's GetModifiedConfiguration builds it (LastAppliedConfiguration). The patched
// object is projected onto the live YAML (project.go): the live key order, comments and
// scalar styles survive wherever the field does, list elements are paired with live
// elements by merge key or value, new fields come from the config's YAML after their
// predecessor there. Apply verifies that the projection reads back as the patched
// object.
//
// Not modelled: what the API server adds after the patch (defaults for new fields,
// conversion, admission), --prune, server-side apply, and the namespace kubectl fills
// in from the context (give metadata.namespace in the config). Scalars are read as
// kyaml reads them (YAML 1.2); kubectl reads files as YAML 1.1, so an unquoted yes/no/on/off
// in the config means a string here and a boolean to kubectl.
//
// Files: apply.go (Apply and Create), patchtype.go (kind to patch strategy and merge
// keys, from the generated table of package patchmeta), annotation.go (last-applied read
// and write), project.go (the projection), plan.go (field changes), conflict.go (kubectl
// apply --overwrite=false's check and the walk that finds the fields it refuses),
// strategicdiff.go (strategicpatch's two-way diff, which the walk compares with),
// value.go (YAML to JSON
// values and back).
//
// # Neighbours
//
// Package resources runs apply mode's resource rules (docs/merge-semantics.md, "Apply
// mode": config and live applied, config only created, live only kept), with role
// updated as the local config and dest as the live object, calls Apply and Create, and
// turns Plan and *ConflictError into results (package results). Packages config and
// function reject the field rules and mergeKeys of 3way and 2way in apply mode: merge keys here
// are kubectl's (package patchmeta), not package schema's.
//
// # Errors
//
// Apply and Create return a *vocab.ItemError naming the live resource and the field
// (the caller adds the file), or a *ConfigError when the local config is at fault: a
// last-applied annotation that is not a JSON object; YAML without a JSON form (the
// field named); a changed apiVersion, kind or name of a custom resource; a JSON
// merge patch conflict; an object whose aliases expand past a million nodes (an alias
// bomb). With Options.NoOverwrite, an object kubectl apply --overwrite=false refuses is
// a *ConflictError listing the fields.
package apply
