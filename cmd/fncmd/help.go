package fncmd

import (
	"fmt"
	"strings"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/fieldrules"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Text returns the long help text of the binary: what it does, how hosts run it, and
// every functionConfig key with its type, default, valid values and meaning (from
// config.Keys, so it cannot drift from what Load accepts), and the per-object
// annotations (field rules, identity overrides), and the default conflict policy of
// krm-merge pkg update, which differs from the function's (config.PkgUpdateDefaults).
func Text() string {
	var b strings.Builder
	b.WriteString(`krm-merge merges Kubernetes resources as a KRM function.

It reads a ResourceList on stdin and writes the merged ResourceList on stdout:
  3way (default): the change from original to updated, applied onto dest
  2way:           src merged into dest (strategic-merge directives honoured)
  apply:          local config (updated) onto a live object (dest), as kubectl apply

Run it with:
  kpt fn eval DIR --image ghcr.io/krm-merge/krm-merge:VERSION --fn-config merge.yaml
  kpt fn eval DIR --exec krm-merge -- originalPath=original updatedPath=updated destPath=dest
  kpt fn render DIR                    (a Kptfile pipeline.mutators entry: image or exec)
  kustomize build --enable-alpha-plugins [--enable-exec] DIR   (a transformers: entry)
  krm-merge merge.yaml resources.yaml...                     (standalone)
  kpt fn source DIR | krm-merge | kpt fn sink OUT

functionConfig: a ConfigMap (keys under data:, string values) or
apiVersion: fn.krm-merge.dev/v1alpha1, kind: ResourceMerge (keys under spec:).
Keys:
`)
	for _, k := range config.Keys() {
		fmt.Fprintf(&b, "  %s (%s", k.Name, k.Type)
		if k.Default != "" {
			fmt.Fprintf(&b, ", default %s", k.Default)
		}
		if k.TypedOnly {
			b.WriteString(", typed form only")
		}
		b.WriteString(")\n")
		if len(k.Valid) > 0 {
			fmt.Fprintf(&b, "      one of: %s\n", strings.Join(k.Valid, ", "))
		}
		fmt.Fprintf(&b, "      %s\n", k.Meaning)
	}
	fmt.Fprintf(&b, `
Per-object annotations:
  %s: "path=policy, ..."
      Field rules for this object (policies as in fieldRules); on dest or updated (src).
  %s: namespace/name
      The upstream resource this item pairs with, when renamed or re-namespaced. kpt's
      %s annotation and "# %s namespace/name" comment on metadata: are read too.
`, fieldrules.Annotation, vocab.UpstreamIdentityAnnotation, vocab.KptUpstreamIdentifier, vocab.KptMergeComment)
	fmt.Fprintf(&b, `
krm-merge pkg update DIR[@VERSION] takes a new upstream release into a package fetched
with kpt pkg get (krm-merge pkg update --help). Its --on-conflict defaults to %s, not
to the function's %s: a conflict stops the update with markers in the files (exit
2) until --continue or --abort; --on-conflict %s is kpt pkg update's behaviour.
`, config.PkgUpdateDefaults().OnConflict, config.DefaultMergeSettings().OnConflict, config.UpdatedWins)
	b.WriteString("\nOn any error it writes no items, an error result saying where, and exits 1.\n")
	return b.String()
}
