// Package kptsdk embeds krm-merge in functions written with the kpt functions SDK for Go
// (github.com/GoogleContainerTools/kpt-functions-sdk/go/fn, at the pseudo-version in
// krm-merge's go.mod). It is named after that SDK so that it reads well next to the SDK's
// own package fn, and so that it is not confused with kyaml's fn/framework, which package
// filter and krm-merge's own binary use.
//
// # Shapes
//
// Processor implements fn.ResourceListProcessor. Process reads rl.FunctionConfig (a v1
// ConfigMap or a fn.krm-merge.dev/v1alpha1 ResourceMerge, as the krm-merge function
// reads it; an empty or absent one gives the defaults) unless Processor.Config is set,
// merges rl.Items, replaces rl.Items with the merged items and appends the run's
// results to rl.Results. The merge is package filter's Filter, so items, roles and
// results are exactly those of the krm-merge function (docs/function.md).
//
// Items cross between the SDK and kyaml as YAML text (fn.KubeObject.String and
// fn.ParseKubeObject on one side, yaml.Parse and RNode.String on the other), so comments,
// field order and every annotation, including the host's path and index annotations,
// survive both ways. One cosmetic change comes from the SDK's YAML encoder: a scalar
// holding a flow indicator such as ':' inside a flow-style map or list is written quoted
// (`{image: app:2}` becomes `{image: 'app:2'}`, the same string), and the merge may carry
// that quoting into dest. The SDK's writer quotes such scalars in every item anyway.
// The SDK's own writer (fn.Run, fn.AsMain) sorts rl.Items by
// apiVersion, kind, namespace and name when it serializes the ResourceList; the order
// Process leaves in rl.Items is the merge's (pass-through and merged items in input
// order, then added items).
//
// Results are converted field by field (ToResults): severity, message, resourceRef
// (apiVersion, kind, name, namespace), file (path, index), field (path, currentValue,
// proposedValue) and tags.
//
// # Errors
//
// On any failure (a bad functionConfig, a bad item, conflicts under onConflict=error, an
// internal error) Process leaves rl.Items as they were, appends one error result per
// problem to rl.Results (naming resource, file and field where known) and returns false
// and those results as its error (an fn.Results). Nothing half-merged reaches rl.Items.
// fn.AsMain then writes the ResourceList with the error results and exits non-zero, so
// a host such as kpt leaves the package untouched. Unlike the krm-merge binary, which
// writes no items on failure, the unmerged input stays in rl.Items: a host or a later
// step in an fn.Chain that ignored the failure would see the package as it was rather
// than an empty one.
//
// # Using it
//
// fn.AsMain and fn.Run accept only an fn.ResourceListProcessorFunc (or a processor made
// by fn.WithContext), not any fn.ResourceListProcessor, so wrap the method value:
//
//	func main() {
//		if err := fn.AsMain(fn.ResourceListProcessorFunc(kptsdk.Processor{}.Process)); err != nil {
//			os.Exit(1)
//		}
//	}
//
// fn.Execute and fn.Chain take the Processor itself.
package kptsdk
