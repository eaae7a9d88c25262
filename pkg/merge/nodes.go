package merge

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/yamlnull"
)

// deref follows aliases and unwraps a document node, so that the engine inspects
// values; callers keep the original pointer when they return a node unchanged.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil {
		switch {
		case n.Kind == yaml.AliasNode:
			n = n.Alias
		case n.Kind == yaml.DocumentNode && len(n.Content) == 1:
			n = n.Content[0]
		default:
			return n
		}
	}
	return nil
}

// isNull reports whether n, or the node an alias n names, is an explicit null
// (yamlnull.Is).
func isNull(n *yaml.Node) bool { return yamlnull.Is(deref(n)) }

// missingOrNull reports whether n is absent or an explicit null.
func missingOrNull(n *yaml.Node) bool { return n == nil || isNull(n) }

// kindIs reports whether n is absent, null or of the given kind: the sources a map or
// list merge can take.
func kindIs(n *yaml.Node, kind yaml.Kind) bool {
	return missingOrNull(n) || deref(n).Kind == kind
}

// equal reports whether a and b hold the same value: scalars by tag and value (never by
// comment or quoting style), maps by field name regardless of order, lists element by
// element in order. All spellings of null are equal; absent equals only absent.
func equal(a, b *yaml.Node) bool {
	var m aliasMemo
	return m.compare(a, b) >= sameValue
}

// likeness is what compare found of two values.
type likeness int8

const (
	// differ: the values differ.
	differ likeness = iota
	// sameValue: the values are equal (as equal says), their comments are not.
	sameValue
	// sameAll: the values are equal and every paired node (map fields by name, keys
	// included, list elements by position) carries the same head, line and foot
	// comments.
	sameAll
)

// compareAll is compare with a fresh memo: whether a and b differ, hold the same value,
// or the same value and comments. One walk; it stops at the first value difference.
func compareAll(a, b *yaml.Node) likeness {
	var m aliasMemo
	return m.compare(a, b)
}

// aliasMemo remembers the answers for map and list pairs reached through an alias, so
// that comparing values full of aliases costs their size as written, not as expanded
// (two copies of a YAML alias bomb took minutes to compare). It is allocated on the
// first alias met: comparing values without aliases allocates nothing.
type aliasMemo map[[2]*yaml.Node]likeness

// sameComments reports whether two nodes carry the same head, line and foot comments.
func sameComments(a, b *yaml.Node) bool {
	return a.HeadComment == b.HeadComment && a.LineComment == b.LineComment && a.FootComment == b.FootComment
}

func (m *aliasMemo) compare(a, b *yaml.Node) likeness {
	aliased := (a != nil && a.Kind == yaml.AliasNode) || (b != nil && b.Kind == yaml.AliasNode)
	ra, rb := a, b
	a, b = deref(a), deref(b)
	if a == nil || b == nil {
		if a == b {
			return sameAll
		}
		return differ
	}
	if a == b {
		if ra != nil && rb != nil && !sameComments(ra, rb) {
			return sameValue
		}
		return sameAll
	}
	if a.Kind != b.Kind {
		return differ
	}
	if aliased && a.Kind != yaml.ScalarNode {
		key := [2]*yaml.Node{a, b}
		if v, ok := (*m)[key]; ok {
			return v
		}
		if *m == nil {
			*m = aliasMemo{}
		}
		v := m.compareContent(a, b)
		(*m)[key] = v
		return v
	}
	return m.compareContent(a, b)
}

// compareContent compares two dereferenced nodes of the same kind.
func (m *aliasMemo) compareContent(a, b *yaml.Node) likeness {
	out := sameAll
	if !sameComments(a, b) {
		out = sameValue
	}
	switch a.Kind {
	case yaml.ScalarNode:
		ta, tb := a.ShortTag(), b.ShortTag()
		if ta != tb || (ta != yaml.NodeTagNull && a.Value != b.Value) {
			return differ
		}
		return out
	case yaml.SequenceNode:
		if len(a.Content) != len(b.Content) {
			return differ
		}
		for i := range a.Content {
			out = min(out, m.compare(a.Content[i], b.Content[i]))
			if out == differ {
				return differ
			}
		}
		return out
	case yaml.MappingNode:
		if len(a.Content) != len(b.Content) {
			return differ
		}
		bi := indexFields(b)
		for i := 0; i+1 < len(a.Content); i += 2 {
			bk, bv := bi.get(a.Content[i].Value)
			if bv == nil {
				return differ
			}
			if !sameComments(a.Content[i], bk) {
				out = min(out, sameValue)
			}
			out = min(out, m.compare(a.Content[i+1], bv))
			if out == differ {
				return differ
			}
		}
		return out
	}
	return differ
}

// smallMap is the field count up to which a linear scan beats a hash index.
const smallMap = 12

// fields indexes a mapping node's fields by name. Lookups are O(1) for large maps and a
// short scan for small ones, so pairing fields is linear in the map's size.
type fields struct {
	n   *yaml.Node
	idx map[string]int
}

// indexFields indexes m's fields; m may be nil or not a map (no fields).
func indexFields(m *yaml.Node) fields {
	m = deref(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return fields{}
	}
	f := fields{n: m}
	if len(m.Content) > 2*smallMap {
		f.idx = make(map[string]int, len(m.Content)/2)
		for i := 0; i+1 < len(m.Content); i += 2 {
			if _, dup := f.idx[m.Content[i].Value]; !dup {
				f.idx[m.Content[i].Value] = i
			}
		}
	}
	return f
}

// get returns the key and value nodes of field name, or nils.
func (f fields) get(name string) (key, value *yaml.Node) {
	if f.n == nil {
		return nil, nil
	}
	if f.idx != nil {
		if i, ok := f.idx[name]; ok {
			return f.n.Content[i], f.n.Content[i+1]
		}
		return nil, nil
	}
	for i := 0; i+1 < len(f.n.Content); i += 2 {
		if f.n.Content[i].Value == name {
			return f.n.Content[i], f.n.Content[i+1]
		}
	}
	return nil, nil
}

// has reports whether field name is present.
func (f fields) has(name string) bool {
	k, _ := f.get(name)
	return k != nil
}

// value returns the value node of field name, or nil.
func (f fields) value(name string) *yaml.Node {
	_, v := f.get(name)
	return v
}

// newSeq returns an empty block sequence styled like like (when given).
func newSeq(like *yaml.Node, content []*yaml.Node) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: yaml.NodeTagSeq, Content: content}
	if like = deref(like); like != nil {
		n.Style = like.Style
	}
	return n
}

// newMap returns a mapping node styled like like (when given).
func newMap(like *yaml.Node, content []*yaml.Node) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: yaml.NodeTagMap, Content: content}
	if like = deref(like); like != nil {
		n.Style = like.Style
	}
	return n
}

// rnode wraps a node for the public API; nil stays nil.
func rnode(n *yaml.Node) *yaml.RNode {
	if n == nil {
		return nil
	}
	return yaml.NewRNode(n)
}

// ynode unwraps an RNode; nil and empty RNodes give nil.
func ynode(r *yaml.RNode) *yaml.Node {
	if r.IsNil() {
		return nil
	}
	return deref(r.YNode())
}
