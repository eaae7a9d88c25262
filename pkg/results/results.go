package results

import (
	"errors"
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// FromError turns any error into error results: one per *vocab.ItemError (also inside
// a framework.Results or joined with errors.Join), with its resourceRef, file and field,
// else one plain error result.
func FromError(err error) framework.Results {
	if err == nil {
		return nil
	}
	var rs framework.Results
	if errors.As(err, &rs) {
		return rs
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var out framework.Results
		for _, e := range joined.Unwrap() {
			out = append(out, FromError(e)...)
		}
		return out
	}
	var ie *vocab.ItemError
	if errors.As(err, &ie) {
		r := &framework.Result{Severity: framework.Error, Message: ie.Msg, ResourceRef: ie.Resource}
		if ie.File != "" {
			r.File = &framework.File{Path: ie.File, Index: ie.Index}
		}
		if ie.Field != "" {
			r.Field = &framework.Field{Path: ie.Field}
		}
		return framework.Results{r}
	}
	return framework.Results{{Severity: framework.Error, Message: err.Error()}}
}

// Summary is the run's info result, e.g.
// "3way merge: 12 merged, 1 added, 1 deleted, 3 kept, 2 conflicts".
func Summary(mode vocab.Mode, c vocab.Counts) *framework.Result {
	msg := fmt.Sprintf("%s merge: %d merged, %d added, %d deleted, %d kept, %d conflicts",
		mode, c.Merged, c.Added, c.Deleted, c.Kept, c.Conflicts)
	if c.StayedDeleted > 0 {
		msg += fmt.Sprintf(", %d stayed deleted locally", c.StayedDeleted)
	}
	return &framework.Result{Severity: framework.Info, Message: msg}
}

// Value turns a node into a plain value for currentValue/proposedValue: scalars as
// their string, maps and lists as decoded YAML; nil for absent. A map or list nested
// deeper than MaxValueDepth is given as a string saying so instead: written into the
// results, below their own levels, it would pass YAML's limit of 10,000 levels, and the
// whole ResourceList would fail to encode.
func Value(n *yaml.RNode) interface{} {
	if n.IsNil() {
		return nil
	}
	if n.YNode().Kind == yaml.ScalarNode {
		return n.YNode().Value
	}
	if deeper(n.YNode(), MaxValueDepth) {
		return fmt.Sprintf("(a value nested more than %d levels deep; not shown)", MaxValueDepth)
	}
	var v interface{}
	if err := n.YNode().Decode(&v); err != nil {
		return nil
	}
	return v
}

// MaxValueDepth is the deepest nesting of maps and lists Value shows.
const MaxValueDepth = 1000

// deeper reports whether n nests maps, lists and aliases more than limit levels deep.
func deeper(n *yaml.Node, limit int) bool {
	if limit < 0 {
		return true
	}
	for _, c := range n.Content {
		if deeper(c, limit-1) {
			return true
		}
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return deeper(n.Alias, limit-1)
	}
	return false
}
