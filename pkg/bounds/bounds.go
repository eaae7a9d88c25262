// Package bounds holds what krm-merge checks of YAML aliases, which let a few lines stand
// for unbounded data: whether a tree holds any (HasAlias: the readers and merges take
// a slower, alias-safe path then) and the limit on an item's size with its aliases
// expanded, so that hostile YAML ends in a clear error instead of unbounded time or
// memory (issue 7). It only measures; callers turn a breach into their own error (a
// results entry naming the resource, or an API error).
package bounds

import "sigs.k8s.io/kustomize/kyaml/yaml"

// MaxExpandedNodes is the most YAML nodes an item may stand for with its aliases
// expanded. Merges and the apply mode's JSON form can expand aliases (the 2-way engine
// writes aliased values out in full; apply converts objects to JSON), so an alias bomb
// (a few lines standing for 10^9 nodes) would take unbounded time and memory; such an
// item is refused before any merge. One million nodes is ten times the largest CRD in
// shared/data.
const MaxExpandedNodes = 1_000_000

// TooExpanded reports whether n, with its aliases expanded, stands for more than
// MaxExpandedNodes nodes. Cost: one walk of n, each aliased node walked once. A nil n
// is not.
func TooExpanded(n *yaml.Node) bool {
	tooExpanded, _ := Measure(n)
	return tooExpanded
}

// Measure is TooExpanded and HasAlias from one walk: whether n, with its aliases
// expanded, stands for more than MaxExpandedNodes nodes, and whether it holds an alias
// node (when it is too expanded, it does). Cost: one walk of n, each aliased node
// walked once.
func Measure(n *yaml.Node) (tooExpanded, hasAlias bool) {
	var m measure
	tooExpanded = m.of(n) > MaxExpandedNodes
	return tooExpanded, m.aliased
}

// measure holds the expanded sizes of alias targets (allocated on the first alias) and
// whether an alias node was seen.
type measure struct {
	sizes   map[*yaml.Node]int
	aliased bool
}

// of counts the nodes of n with aliases expanded, saturating just above
// MaxExpandedNodes.
func (m *measure) of(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	if n.Kind == yaml.AliasNode {
		m.aliased = true
		if n.Alias == nil {
			return 1
		}
		if s, ok := m.sizes[n.Alias]; ok {
			return s
		}
		s := m.of(n.Alias)
		if m.sizes == nil {
			m.sizes = map[*yaml.Node]int{}
		}
		m.sizes[n.Alias] = s
		return s
	}
	size := 1
	for _, c := range n.Content {
		size += m.of(c)
		if size > MaxExpandedNodes {
			return MaxExpandedNodes + 1
		}
	}
	return size
}

// HasAlias reports whether the tree under n holds a YAML alias node; false for nil. It
// does not follow aliases, so it takes time linear in the size of the text, and it walks
// with its own stack, so any depth of nesting is fine.
func HasAlias(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Kind == yaml.AliasNode {
			return true
		}
		stack = append(stack, n.Content...)
	}
	return false
}
