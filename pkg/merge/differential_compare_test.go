package merge_test

// The differential tests' semantic comparison (differential_test.go): ours against
// kyaml's output, map field order ignored, keyed elements paired by key, giving the
// paths where they differ.

import (
	"sort"
	"strings"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

var resolver = schema.New(schema.Options{OpenAPI: true})

type difference struct {
	path        fieldpath.Path
	ours, other *yaml.Node
	order       bool // same elements, different order
}

func dn(n *yaml.Node) *yaml.Node {
	for n != nil && (n.Kind == yaml.DocumentNode || n.Kind == yaml.AliasNode) {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		} else {
			n = n.Content[0]
		}
	}
	return n
}

func yn(r *yaml.RNode) *yaml.Node {
	if r.IsNil() {
		return nil
	}
	return dn(r.YNode())
}

// comparer compares two trees; ordered says whether keyed list and set element order
// matters (2-way) or not (3-way).
type comparer struct {
	ordered bool
	// srcs are the merge's inputs: a list is compared as the merge decided it, from
	// the inputs' lists at the same path (the outputs' when no input has one).
	srcs []*yaml.Node
}

func fieldOf(m *yaml.Node, name string) *yaml.Node {
	m = dn(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			return m.Content[i+1]
		}
	}
	return nil
}

func fieldNames(ms ...*yaml.Node) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		m = dn(m)
		if m == nil || m.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if !seen[m.Content[i].Value] {
				seen[m.Content[i].Value] = true
				out = append(out, m.Content[i].Value)
			}
		}
	}
	return out
}

// elemStep returns the path step naming a keyed element: the present key values.
func elemStep(el *yaml.Node, keys []string) (ks, vs []string) {
	for _, k := range keys {
		if v := dn(fieldOf(el, k)); v != nil && v.Kind == yaml.ScalarNode && !isNullNode(v) {
			ks = append(ks, k)
			vs = append(vs, v.Value)
		}
	}
	return ks, vs
}

func stepID(ks, vs []string) string {
	var b strings.Builder
	for i := range ks {
		b.WriteString(ks[i] + "=" + vs[i] + ",")
	}
	return b.String()
}

// schemaAt returns the schema below sch for one path step.
func schemaAt(sch schema.Node, s fieldpath.Step) schema.Node {
	if s.Kind == fieldpath.Field {
		return sch.Field(s.Name)
	}
	return sch.Elements()
}

func (c comparer) compare(a, b *yaml.Node, sch schema.Node, path fieldpath.Path, out *[]difference) {
	a, b = dn(a), dn(b)
	if a == nil || b == nil {
		if a != b {
			*out = append(*out, difference{path: path, ours: a, other: b})
		}
		return
	}
	if isNullNode(a) || isNullNode(b) {
		if isNullNode(a) != isNullNode(b) {
			*out = append(*out, difference{path: path, ours: a, other: b})
		}
		return
	}
	if a.Kind != b.Kind {
		*out = append(*out, difference{path: path, ours: a, other: b})
		return
	}
	switch a.Kind {
	case yaml.ScalarNode:
		if a.Value != b.Value || a.ShortTag() != b.ShortTag() {
			*out = append(*out, difference{path: path, ours: a, other: b})
		}
	case yaml.MappingNode:
		for _, name := range fieldNames(a, b) {
			c.compare(fieldOf(a, name), fieldOf(b, name), sch.Field(name), path.Field(name), out)
		}
	case yaml.SequenceNode:
		var lists []*yaml.Node
		for _, src := range c.srcs {
			if v := lookup(src, path); isSeqNode(v) {
				lists = append(lists, v)
			}
		}
		if len(lists) == 0 {
			lists = []*yaml.Node{a, b}
		}
		l := resolver.Decide(sch, lists...)
		switch l.Type {
		case schema.Map:
			ai, bi := map[string]*yaml.Node{}, map[string]*yaml.Node{}
			var aorder, border []string
			steps := map[string][2][]string{}
			for _, el := range a.Content {
				ks, vs := elemStep(el, l.Keys)
				id := stepID(ks, vs)
				ai[id] = el
				aorder = append(aorder, id)
				steps[id] = [2][]string{ks, vs}
			}
			for _, el := range b.Content {
				ks, vs := elemStep(el, l.Keys)
				id := stepID(ks, vs)
				bi[id] = el
				border = append(border, id)
				steps[id] = [2][]string{ks, vs}
			}
			before := len(*out)
			ids := append(append([]string(nil), aorder...), border...)
			done := map[string]bool{}
			for _, id := range ids {
				if done[id] {
					continue
				}
				done[id] = true
				st := steps[id]
				c.compare(ai[id], bi[id], sch.Elements(), path.Key(st[0], st[1]), out)
			}
			if c.ordered && len(*out) == before && strings.Join(aorder, "|") != strings.Join(border, "|") {
				*out = append(*out, difference{path: path, ours: a, other: b, order: true})
			}
		case schema.Set:
			as, bs := scalarValues(a), scalarValues(b)
			if !c.ordered {
				sort.Strings(as)
				sort.Strings(bs)
			}
			if strings.Join(as, "\x00") != strings.Join(bs, "\x00") {
				*out = append(*out, difference{path: path, ours: a, other: b})
			}
		default:
			if len(a.Content) != len(b.Content) {
				*out = append(*out, difference{path: path, ours: a, other: b})
				return
			}
			var sub []difference
			for i := range a.Content {
				c.compare(a.Content[i], b.Content[i], sch.Elements(), path.Index(i), &sub)
			}
			if len(sub) > 0 { // an atomic list differs as a whole
				*out = append(*out, difference{path: path, ours: a, other: b})
			}
		}
	}
}

func scalarValues(l *yaml.Node) []string {
	var out []string
	for _, el := range l.Content {
		out = append(out, dn(el).Value)
	}
	return out
}

// lookup finds the value at path in root (nil where absent). A keyed step matches an
// element whose present key values equal the step's; a missing secondary key value in the
// element is a wildcard.
func lookup(root *yaml.Node, path fieldpath.Path) *yaml.Node {
	n := dn(root)
	for si, s := range path {
		if n == nil || isNullNode(n) {
			return nil
		}
		switch s.Kind {
		case fieldpath.Field:
			n = dn(fieldOf(n, s.Name))
		case fieldpath.Key:
			if n.Kind != yaml.SequenceNode {
				return nil
			}
			// An exact match first: the element has exactly the step's key values, and
			// none for the list's other keys; else one where a missing secondary key is
			// a wildcard.
			want := map[string]string{}
			for i, k := range s.Keys {
				want[k] = s.Values[i]
			}
			all := s.Keys
			if root != nil && isMapNode(root) {
				if l := resolver.Decide(schemaFor(path[:si], yaml.NewRNode(root)), n); l.Type == schema.Map {
					all = l.Keys
				}
			}
			var found *yaml.Node
			for pass := 0; pass < 2 && found == nil; pass++ {
				for _, el := range n.Content {
					ok := true
					for _, k := range all {
						v := dn(fieldOf(el, k))
						w, inStep := want[k]
						switch {
						case v == nil && !inStep:
						case v == nil && pass == 1 && k != s.Keys[0]:
						case v == nil || !inStep && pass == 0 || inStep && v.Value != w:
							ok = false
						}
					}
					for i, k := range s.Keys { // keys the list decision does not name
						if v := dn(fieldOf(el, k)); v == nil || v.Value != s.Values[i] {
							if !(pass == 1 && i > 0 && v == nil) {
								ok = false
							}
						}
					}
					if ok {
						found = dn(el)
						break
					}
				}
			}
			n = found
		case fieldpath.Value:
			var found *yaml.Node
			if n.Kind == yaml.SequenceNode {
				for _, el := range n.Content {
					if dn(el).Value == s.Val {
						found = dn(el)
					}
				}
			}
			n = found
		case fieldpath.Index:
			if n.Kind != yaml.SequenceNode || s.Idx >= len(n.Content) {
				return nil
			}
			n = dn(n.Content[s.Idx])
		}
	}
	return n
}

func schemaFor(path fieldpath.Path, roots ...*yaml.RNode) schema.Node {
	sch := resolver.ForResource(roots...)
	for _, s := range path {
		sch = schemaAt(sch, s)
	}
	return sch
}

// sameValue reports whether a and b are semantically equal (lists in 3-way order).
func sameValue(a, b *yaml.Node, sch schema.Node, ordered bool) bool {
	var d []difference
	comparer{ordered: ordered}.compare(a, b, sch, nil, &d)
	return len(d) == 0
}
