package merge

import "sigs.k8s.io/kustomize/kyaml/yaml"

// withoutNullElements returns n without the null elements of its lists of primitives
// (docs/merge-semantics.md, rule 5: a null element of a list of primitives is no value;
// it is removed from every source before comparison, so it is never a change, a conflict
// or output). A list of primitives is a list whose elements are all scalars; a list that
// also holds a map or a list is left as it is. Only the lists that change, and the maps
// and lists above them, are copied; n itself is returned when nothing changes, and it is
// never modified. Aliases are not followed (an aliased list keeps its nulls).
func withoutNullElements(n *yaml.Node) *yaml.Node {
	if n == nil || (n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode && n.Kind != yaml.DocumentNode) {
		return n
	}
	var content []*yaml.Node // a copy of n.Content, made at the first change
	if n.Kind == yaml.SequenceNode && primitives(n) {
		for i, el := range n.Content {
			if isNull(el) {
				if content == nil {
					content = append(make([]*yaml.Node, 0, len(n.Content)-1), n.Content[:i]...)
				}
				continue
			}
			if content != nil {
				content = append(content, el)
			}
		}
	} else {
		for i, c := range n.Content {
			nc := withoutNullElements(c)
			if nc != c && content == nil {
				content = append([]*yaml.Node(nil), n.Content...)
			}
			if content != nil {
				content[i] = nc
			}
		}
	}
	if content == nil {
		return n
	}
	out := *n
	out.Content = content
	return &out
}

// primitives reports whether every element of the list n is a scalar (aliases are not
// followed, so a list with an alias element is not).
func primitives(n *yaml.Node) bool {
	for _, el := range n.Content {
		if el.Kind != yaml.ScalarNode {
			return false
		}
	}
	return true
}
