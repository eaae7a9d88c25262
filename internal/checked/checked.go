package checked

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/yamlnull"
)

// Inputs is what a caller checked of every input tree of a merge. The zero value
// promises nothing: the engine checks for itself.
type Inputs struct {
	// AliasFree: no input holds a YAML alias (package function measures every item
	// with internal/bounds). The engine then skips its own alias check, a walk of each
	// input; wrongly set, aliased inputs may be changed by the merge.
	AliasFree bool
	// NullElementFree: no input holds a null element in a list of primitives
	// (HasNullElement). The engine then skips its walk that drops such elements
	// (docs/merge-semantics.md, rule 5); wrongly set, a null element may be merged as a
	// value.
	NullElementFree bool
}

// setter is the func(*O, Inputs) package merge registers for its options type O.
var setter any

// Register records f, which stores an Inputs in an options value of type O. Package
// merge calls it once, from its init, with its Options type; nothing else may.
func Register[O any](f func(*O, Inputs)) { setter = f }

// Mark stores in on opts, an options value of the type package merge registered
// (merge.Options). It panics when O is another type or nothing is registered: a
// programming error of this module.
func Mark[O any](opts *O, in Inputs) {
	f, ok := setter.(func(*O, Inputs))
	if !ok {
		panic("checked.Mark: no setter registered for this options type")
	}
	f(opts, in)
}

// HasNullElement reports whether the tree under n holds a null element in a list of
// primitives, which the merges drop; package function asks it of every item in the
// walk it already makes, and marks the merge's options NullElementFree when no item
// does. Aliases are not followed: a list with an alias element is not a list of
// primitives, as for the merges.
func HasNullElement(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	if n.Kind == yaml.SequenceNode && primitives(n) {
		for _, el := range n.Content {
			if yamlnull.Is(el) {
				return true
			}
		}
		return false
	}
	for _, c := range n.Content {
		if HasNullElement(c) {
			return true
		}
	}
	return false
}

// primitives reports whether every element of the list n is a scalar (an alias is not).
func primitives(n *yaml.Node) bool {
	for _, el := range n.Content {
		if el.Kind != yaml.ScalarNode {
			return false
		}
	}
	return true
}
