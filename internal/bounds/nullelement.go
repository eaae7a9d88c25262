package bounds

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/yamlnull"
)

// HasNullElement reports whether the tree under n holds a null element in a list of
// primitives, which the merges drop; package function asks it of every item in the
// walk it already makes, and promises the merge NullElementFree (merge.Options) when no
// item does. Aliases are not followed: a list with an alias element is not a list of
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
