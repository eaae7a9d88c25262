package merge_test

// The spec, restated for the differential tests (differential_test.go): independent of
// the engine, used to check our value wherever we differ from kyaml. It reads
// docs/merge-semantics.md literally and ignores order and comments.

import (
	"sort"
	"strings"

	"github.com/krm-merge/krm-merge/pkg/schema"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func isMapNode(n *yaml.Node) bool { n = dn(n); return n != nil && n.Kind == yaml.MappingNode }

func isSeqNode(n *yaml.Node) bool { n = dn(n); return n != nil && n.Kind == yaml.SequenceNode }

func absentOrNull(n *yaml.Node) bool {
	n = dn(n)
	return n == nil || isNullNode(n)
}

func semEqual(a, b *yaml.Node) bool { return sameValue(a, b, schema.Node{}, true) }

// keyedIndex indexes each list's elements by merge key values. With the wildcard rule
// of multi-key schemas, an element missing a secondary key value pairs with the single
// complete tuple (in any list) with the same present values, unless some list would then
// hold two elements of that identity; decided once for all lists.
func keyedIndex(l schema.List, lists ...*yaml.Node) []map[string]*yaml.Node {
	tuple := func(el *yaml.Node) []string {
		var vs []string
		for _, k := range l.Keys {
			v := dn(fieldOf(el, k))
			if v == nil || isNullNode(v) {
				vs = append(vs, "")
			} else {
				vs = append(vs, v.Value)
			}
		}
		return vs
	}
	partial := func(vs []string) bool {
		for _, v := range vs {
			if v == "" {
				return true
			}
		}
		return false
	}
	var full [][]string
	for _, list := range lists {
		if isSeqNode(list) {
			for _, el := range dn(list).Content {
				if vs := tuple(el); !partial(vs) {
					full = append(full, vs)
				}
			}
		}
	}
	candidate := func(vs []string) string {
		found := map[string]bool{}
		for _, f := range full {
			ok := true
			for j := range vs {
				if vs[j] != "" && vs[j] != f[j] {
					ok = false
				}
			}
			if ok {
				found[strings.Join(f, "\x00")] = true
			}
		}
		if len(found) != 1 {
			return ""
		}
		for f := range found {
			return f
		}
		return ""
	}
	blocked := map[string]bool{}
	if l.Wildcard {
		for _, list := range lists {
			if !isSeqNode(list) {
				continue
			}
			takers := map[string][]string{}
			for _, el := range dn(list).Content {
				vs := tuple(el)
				own := strings.Join(vs, "\x00")
				to := own
				if partial(vs) {
					if c := candidate(vs); c != "" {
						to = c
					}
				}
				takers[to] = append(takers[to], own)
			}
			for _, t := range takers {
				if len(t) > 1 {
					for _, own := range t {
						blocked[own] = true
					}
				}
			}
		}
	}
	out := make([]map[string]*yaml.Node, len(lists))
	for i, list := range lists {
		out[i] = map[string]*yaml.Node{}
		if !isSeqNode(list) {
			continue
		}
		for _, el := range dn(list).Content {
			vs := tuple(el)
			id := strings.Join(vs, "\x00")
			if l.Wildcard && partial(vs) && !blocked[id] {
				if c := candidate(vs); c != "" {
					id = c
				}
			}
			out[i][id] = el
		}
	}
	return out
}

func idsOf(ms ...map[string]*yaml.Node) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range ms {
		for id := range m {
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	sort.Strings(out)
	return out
}

// spec3 is the 3-way rule of docs/merge-semantics.md for one field, updated winning conflicts.
func spec3(o, u, d *yaml.Node, sch schema.Node) *yaml.Node { return spec3p(o, u, d, sch, false) }

// spec3p is spec3; keep lets dest win conflicts (onConflict: dest).
func spec3p(o, u, d *yaml.Node, sch schema.Node, keep bool) *yaml.Node {
	spec3 := func(o, u, d *yaml.Node, sch schema.Node) *yaml.Node { return spec3p(o, u, d, sch, keep) }
	o, u, d = dn(o), dn(u), dn(d)
	switch {
	case absentOrNull(o) && absentOrNull(u) && !(o == nil && isNullNode(u)):
		return d // U and O null (or absent): unchanged upstream
	case semEqual(o, u):
		return d // unchanged: keep D, its null included
	case isNullNode(d) && isNullNode(o):
		return spec3(nil, u, nil, sch) // D's null is O's: no local change, U's value is taken
	case isNullNode(d), isNullNode(u):
		return nil // a local clear; an upstream clear
	case u == nil && keep && d != nil && !semEqual(o, d):
		return d // deleted upstream, changed in D: a conflict, dest keeps it whole
	case u == nil:
		return nil // deleted upstream, even where D changed it
	}
	kindOK := func(k yaml.Kind) bool {
		return dn(u).Kind == k && (absentOrNull(o) || o.Kind == k) && (d == nil || d.Kind == k)
	}
	if kindOK(yaml.MappingNode) {
		if d == nil {
			if absentOrNull(o) && len(u.Content) == 0 {
				return u // an empty map added upstream
			}
			if keep && !absentOrNull(o) {
				return nil // deleted locally: dest wins whatever upstream changed
			}
			if !absentOrNull(o) {
				// deleted locally: U's whole map comes back when U changed anything in it
				if delta3(o, u, sch) == nil {
					return nil
				}
				return spec3(nil, u, nil, sch)
			}
			return delta3(o, u, sch)
		}
		out := nMap()
		for _, name := range fieldNames(d, u) {
			if v := spec3(fieldOf(o, name), fieldOf(u, name), fieldOf(d, name), sch.Field(name)); v != nil {
				out.Content = append(out.Content, nScalar(name), v)
			}
		}
		return out
	}
	if kindOK(yaml.SequenceNode) {
		var lo *yaml.Node
		if isSeqNode(o) {
			lo = o
		}
		l := resolver.Decide(sch, lo, u, d)
		if keep && d == nil && !absentOrNull(o) && l.Type != schema.Atomic {
			return nil // deleted locally: dest wins whatever upstream changed
		}
		switch l.Type {
		case schema.Map:
			idx := keyedIndex(l, o, u, d)
			out := nSeq()
			if d == nil && absentOrNull(o) && len(u.Content) == 0 {
				return u
			}
			if d == nil && !absentOrNull(o) {
				// deleted locally: U's whole list comes back when U changed anything in it
				for _, id := range idsOf(idx[1]) {
					if spec3(idx[0][id], idx[1][id], nil, sch.Elements()) != nil {
						return spec3(nil, u, nil, sch)
					}
				}
				return nil
			}
			ids := idsOf(idx[1], idx[2])
			if d == nil { // U's elements, in U's order
				rev := map[*yaml.Node]string{}
				for id, el := range idx[1] {
					rev[el] = id
				}
				ids = ids[:0]
				for _, el := range dn(u).Content {
					ids = append(ids, rev[el])
				}
			}
			for _, id := range ids {
				if idx[2][id] == nil && d != nil || d == nil {
					if idx[1][id] == nil {
						continue
					}
					if v := spec3(idx[0][id], idx[1][id], nil, sch.Elements()); v != nil {
						out.Content = append(out.Content, withKeyFields(v, idx[1][id], l.Keys))
					}
					continue
				}
				if v := spec3(idx[0][id], idx[1][id], idx[2][id], sch.Elements()); v != nil {
					out.Content = append(out.Content, v)
				}
			}
			if d == nil && len(out.Content) == 0 {
				return nil
			}
			return out
		case schema.Set:
			inO, inU := valueSetOf(o), valueSetOf(u)
			out := nSeq()
			if d == nil && absentOrNull(o) {
				return u
			}
			if d == nil {
				for _, el := range dn(u).Content {
					if !inO[el.Value] {
						return u // deleted locally, added to upstream: U's whole set
					}
				}
				return nil
			}
			if d != nil {
				for _, el := range d.Content {
					if !(inO[el.Value] && !inU[el.Value]) {
						out.Content = append(out.Content, el)
					}
				}
			}
			inD := valueSetOf(d)
			for _, el := range dn(u).Content {
				if !inO[el.Value] && !inD[el.Value] {
					out.Content = append(out.Content, el)
				}
			}
			if d == nil && len(out.Content) == 0 {
				return nil
			}
			return out
		}
	}
	// atomic (or a changed kind): upstream changed it; a conflict when D changed it too
	if !keep || semEqual(d, u) || d == nil && absentOrNull(o) || d != nil && semEqual(d, o) {
		return u
	}
	return d
}

// delta3 is "only the additions and changes come back" for a map absent from D.
func delta3(o, u *yaml.Node, sch schema.Node) *yaml.Node {
	out := nMap()
	for _, name := range fieldNames(u) {
		if v := spec3p(fieldOf(o, name), fieldOf(u, name), nil, sch.Field(name), false); v != nil {
			out.Content = append(out.Content, nScalar(name), v)
		}
	}
	if len(out.Content) == 0 {
		return nil
	}
	return out
}

// withKeyFields adds the merge key fields of src missing from a delta element.
func withKeyFields(v, src *yaml.Node, keys []string) *yaml.Node {
	v = dn(v)
	if v.Kind != yaml.MappingNode {
		return v
	}
	c := yaml.CopyYNode(v)
	for i := len(keys) - 1; i >= 0; i-- {
		if fieldOf(c, keys[i]) == nil {
			if kv := fieldOf(src, keys[i]); kv != nil {
				c.Content = append([]*yaml.Node{nScalar(keys[i]), kv}, c.Content...)
			}
		}
	}
	return c
}

func valueSetOf(l *yaml.Node) map[string]bool {
	m := map[string]bool{}
	if isSeqNode(l) {
		for _, el := range dn(l).Content {
			m[dn(el).Value] = true
		}
	}
	return m
}

// spec2 is the 2-way rule of docs/merge-semantics.md, strategic-merge directives included.
func spec2(s, d *yaml.Node, sch schema.Node) *yaml.Node { return spec2n(s, d, sch, false) }

// spec2n is spec2; keepNulls (inside an atomic list, src's value verbatim) keeps nulls.
func spec2n(s, d *yaml.Node, sch schema.Node, keepNulls bool) *yaml.Node {
	s, d = dn(s), dn(d)
	switch {
	case s == nil:
		return d
	case isNullNode(s) && keepNulls:
		return s
	case isNullNode(s):
		return nil
	}
	switch s.Kind {
	case yaml.MappingNode:
		dir := ""
		if v := fieldOf(s, "$patch"); v != nil {
			dir = dn(v).Value
		}
		if dir == "delete" {
			return nil
		}
		var out *yaml.Node
		if d == nil || d.Kind != yaml.MappingNode || dir == "replace" {
			out = nMap()
			for _, name := range fieldNames(s) {
				if !strings.HasPrefix(name, "$") {
					if v := spec2n(fieldOf(s, name), nil, sch.Field(name), keepNulls); v != nil {
						out.Content = append(out.Content, nScalar(name), v)
					}
				}
			}
		} else {
			out = nMap()
			for _, name := range fieldNames(d, s) {
				if !strings.HasPrefix(name, "$") {
					if v := spec2(fieldOf(s, name), fieldOf(d, name), sch.Field(name)); v != nil {
						out.Content = append(out.Content, nScalar(name), v)
					}
				}
			}
		}
		for _, name := range fieldNames(s) {
			v := dn(fieldOf(s, name))
			switch {
			case strings.HasPrefix(name, "$deleteFromPrimitiveList/"):
				if l := dn(fieldOf(out, strings.TrimPrefix(name, "$deleteFromPrimitiveList/"))); isSeqNode(l) {
					drop := valueSetOf(v)
					var keep []*yaml.Node
					for _, el := range l.Content {
						if !drop[dn(el).Value] {
							keep = append(keep, el)
						}
					}
					l.Content = keep
				}
			case strings.HasPrefix(name, "$setElementOrder/"):
				if l := dn(fieldOf(out, strings.TrimPrefix(name, "$setElementOrder/"))); isSeqNode(l) {
					var first, rest []*yaml.Node
					used := map[*yaml.Node]bool{}
					for _, want := range v.Content {
						for _, el := range l.Content {
							if !used[el] && orderMatches(want, el) {
								used[el] = true
								first = append(first, el)
								break
							}
						}
					}
					for _, el := range l.Content {
						if !used[el] {
							rest = append(rest, el)
						}
					}
					l.Content = append(first, rest...)
				}
			case name == "$retainKeys":
				keep := valueSetOf(v)
				var content []*yaml.Node
				for i := 0; i+1 < len(out.Content); i += 2 {
					if keep[out.Content[i].Value] {
						content = append(content, out.Content[i], out.Content[i+1])
					}
				}
				out.Content = content
			}
		}
		return out
	case yaml.SequenceNode:
		dir, elems := "", []*yaml.Node{}
		for _, el := range s.Content {
			el = dn(el)
			if el.Kind == yaml.MappingNode && len(el.Content) == 2 && el.Content[0].Value == "$patch" {
				dir = el.Content[1].Value
				continue
			}
			elems = append(elems, el)
		}
		src := nSeq()
		src.Content = elems
		if dir == "delete" {
			return nil
		}
		clean := func() *yaml.Node {
			out := nSeq()
			// atomic: src's value verbatim, its nulls included (directives applied)
			keep := keepNulls || resolver.Decide(sch, src).Type != schema.Map
			for _, el := range elems {
				if v := spec2n(el, nil, sch.Elements(), keep); v != nil {
					out.Content = append(out.Content, v)
				}
			}
			return out
		}
		if d == nil || d.Kind != yaml.SequenceNode || dir == "replace" {
			return clean()
		}
		l := resolver.Decide(sch, src, d)
		switch l.Type {
		case schema.Map:
			idx := keyedIndex(l, src, d)
			out := nSeq()
			ids := func(list *yaml.Node, m map[string]*yaml.Node) []string {
				var r []string
				for _, el := range list.Content {
					for id, e := range m {
						if e == el {
							r = append(r, id)
						}
					}
				}
				return r
			}
			inD := map[string]bool{}
			for _, id := range ids(d, idx[1]) {
				inD[id] = true
				if v := spec2(idx[0][id], idx[1][id], sch.Elements()); v != nil {
					out.Content = append(out.Content, v)
				}
			}
			for _, id := range ids(src, idx[0]) {
				if !inD[id] {
					if v := spec2(idx[0][id], nil, sch.Elements()); v != nil {
						out.Content = append(out.Content, v)
					}
				}
			}
			return out
		case schema.Set:
			out := nSeq()
			out.Content = append(out.Content, d.Content...)
			inD := valueSetOf(d)
			for _, el := range elems {
				if !inD[dn(el).Value] {
					inD[dn(el).Value] = true
					out.Content = append(out.Content, el)
				}
			}
			return out
		}
		return clean()
	}
	return s
}

// withoutSeqDirectives returns a copy of n without sequence-level {$patch: X} elements.
func withoutSeqDirectives(n *yaml.Node) *yaml.Node {
	c := yaml.CopyYNode(n)
	var strip func(n *yaml.Node)
	strip = func(n *yaml.Node) {
		if n.Kind == yaml.SequenceNode {
			var keep []*yaml.Node
			for _, el := range n.Content {
				if !(el.Kind == yaml.MappingNode && len(el.Content) == 2 && el.Content[0].Value == "$patch") {
					keep = append(keep, el)
				}
			}
			n.Content = keep
		}
		for _, ch := range n.Content {
			strip(ch)
		}
	}
	strip(c)
	return c
}

// hasDirective reports whether n holds a `$`-prefixed key anywhere.
func hasDirective(n *yaml.Node) bool {
	n = dn(n)
	if n == nil {
		return false
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if strings.HasPrefix(n.Content[i].Value, "$") || hasDirective(n.Content[i+1]) {
				return true
			}
		}
	}
	if n.Kind == yaml.SequenceNode {
		for _, el := range n.Content {
			if hasDirective(el) {
				return true
			}
		}
	}
	return false
}

// orderMatches reports whether a $setElementOrder entry names el.
func orderMatches(want, el *yaml.Node) bool {
	want, el = dn(want), dn(el)
	if want.Kind == yaml.ScalarNode {
		return el.Kind == yaml.ScalarNode && el.Value == want.Value
	}
	for i := 0; i+1 < len(want.Content); i += 2 {
		v := dn(fieldOf(el, want.Content[i].Value))
		if v == nil || v.Value != dn(want.Content[i+1]).Value {
			return false
		}
	}
	return true
}
