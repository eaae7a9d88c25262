package merge

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/schema"
)

// elemID is a keyed list element's identity: id pairs elements across sources; keys and
// values are the merge keys it carries, for its field path.
type elemID struct {
	id     string
	keys   []string
	values []string
}

// keyedIDs computes the identity of every element of each list (nil lists give nil).
// An element matches another when all its key values are equal. With wildcard (a schema
// that declares several keys), an element that lacks a secondary key value takes the
// identity of the one element, in any source, that has the same present values and all
// keys (a port with no protocol pairs with the same port with protocol TCP), unless in
// some source that would pair two elements of one list (that list holds both, or two
// such partial elements). The decision is made once per partial identity for all
// sources, so that the same element gets the same identity in original, updated and
// dest: deciding it list by list re-paired, e.g., a port without protocol in original
// with another port of updated, and brought back a port dest had deleted. Elements are
// hashed, never compared pairwise.
func keyedIDs(l schema.List, lists ...*yaml.Node) [][]elemID {
	keys, wildcard := l.Keys, l.Wildcard
	raw := make([][][]string, len(lists))
	var complete map[string][][]string
	for li, list := range lists {
		list = deref(list)
		if list == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		raw[li] = make([][]string, len(list.Content))
		slab := make([]string, len(list.Content)*len(keys)) // every element's values, one allocation
		for ei, el := range list.Content {
			vals, full := keyValues(slab[ei*len(keys):(ei+1)*len(keys):(ei+1)*len(keys)], el, keys, l.Untagged)
			raw[li][ei] = vals
			if wildcard && full {
				if complete == nil {
					complete = map[string][][]string{}
				}
				if !containsTuple(complete[vals[0]], vals) {
					complete[vals[0]] = append(complete[vals[0]], vals)
				}
			}
		}
	}
	out := make([][]elemID, len(lists))
	for li := range raw {
		if raw[li] == nil {
			continue
		}
		ids := make([]elemID, len(raw[li]))
		for ei, vals := range raw[li] {
			ids[ei] = makeID(keys, vals)
		}
		out[li] = ids
	}
	if !wildcard || complete == nil {
		return out
	}
	// Candidate identity of each partial element; a partial identity is blocked when,
	// in any list, its candidate would then name two elements.
	cands := make([][]*elemID, len(raw))
	blocked := map[string]bool{}
	for li := range raw {
		if raw[li] == nil {
			continue
		}
		cands[li] = make([]*elemID, len(raw[li]))
		users := map[string][]string{} // identity -> own identities of the elements taking it
		for ei, vals := range raw[li] {
			own := out[li][ei].id
			if filled := fill(vals, complete[vals[0]]); filled != nil {
				cand := makeID(keys, filled)
				cands[li][ei] = &cand
				users[cand.id] = append(users[cand.id], own)
			} else {
				users[own] = append(users[own], own)
			}
		}
		for _, u := range users {
			if len(u) > 1 {
				for _, own := range u {
					blocked[own] = true
				}
			}
		}
	}
	for li := range raw {
		for ei, cand := range cands[li] {
			if cand != nil && !blocked[out[li][ei].id] {
				out[li][ei] = *cand
			}
		}
	}
	return out
}

// keyValues sets vals (len(keys) long) to the scalar values of keys in element el (""
// where absent; untagged keys' without image tag, schema.KeyValue), returns it, and
// reports whether all are present.
func keyValues(vals []string, el *yaml.Node, keys, untagged []string) ([]string, bool) {
	f := indexFields(el)
	full := true
	for i, k := range keys {
		v := deref(f.value(k))
		if v == nil || v.Kind != yaml.ScalarNode || isNull(v) {
			full = false
			continue
		}
		vals[i] = schema.KeyValue(untagged, k, v.Value)
	}
	return vals, full
}

// fill returns the one complete tuple compatible with the partial vals, or nil.
func fill(vals []string, candidates [][]string) []string {
	missing := false
	for _, v := range vals {
		if v == "" {
			missing = true
		}
	}
	if !missing {
		return nil
	}
	var found []string
	for _, c := range candidates {
		ok := true
		for i, v := range vals {
			if v != "" && v != c[i] {
				ok = false
				break
			}
		}
		if ok {
			if found != nil {
				return nil // ambiguous: keep the element's own identity
			}
			found = c
		}
	}
	return found
}

func containsTuple(list [][]string, t []string) bool {
	for _, l := range list {
		if strings.Join(l, "\x00") == strings.Join(t, "\x00") {
			return true
		}
	}
	return false
}

// makeID is the identity of an element whose key values are vals ("" for absent): a
// string that differs whenever the present values or the set of absent keys differ.
// With one key present it is the value itself (no allocation), unless the value starts
// with \x01, which only the built forms ("\x01=" value, "\x01-" absent) do.
func makeID(keys, vals []string) elemID {
	if len(vals) == 1 && vals[0] != "" && vals[0][0] != '\x01' { // the common case
		return elemID{id: vals[0], keys: keys[:1:1], values: vals[:1:1]}
	}
	var b strings.Builder
	e := elemID{}
	for i, v := range vals {
		if v == "" {
			b.WriteString("\x01-")
			continue
		}
		b.WriteString("\x01=")
		b.WriteString(v)
		e.keys = append(e.keys, keys[i])
		e.values = append(e.values, v)
	}
	e.id = b.String()
	return e
}

// path returns the field path of the element.
func (e *elemID) path(p *at) *at { return &at{parent: p, kind: fieldpath.Key, elem: e} }

// byID indexes a list's elements by identity.
func byID(list *yaml.Node, ids []elemID) map[string]*yaml.Node {
	list = deref(list)
	if list == nil || list.Kind != yaml.SequenceNode {
		return nil
	}
	m := make(map[string]*yaml.Node, len(ids))
	for i, id := range ids {
		m[id.id] = list.Content[i]
	}
	return m
}

// setID is a primitive set element's identity: its value (kyaml pairs set elements by
// value alone).
func setID(n *yaml.Node) string {
	if n = deref(n); n == nil {
		return ""
	}
	return n.Value
}

// placer orders the output of a map or list merge: dest's entries keep their order, and
// each entry new in the source goes right after its nearest predecessor in the source
// that is present in the output, else at the end (semantics.md, "Element order"), or
// with front set (map fields) at the start, where the source has it.
// Feed it the source's entries in order: seen for those that stay in the output, add for
// new ones.
type placer struct {
	front    bool
	after    map[string][][]*yaml.Node
	head     [][]*yaml.Node
	end      [][]*yaml.Node
	anchor   string
	anchored bool
}

// seen marks id, an entry present in the output, as the anchor for following new ones.
func (p *placer) seen(id string) { p.anchor, p.anchored = id, true }

// add places a new entry (a key and value, or one element) after the current anchor.
func (p *placer) add(nodes ...*yaml.Node) {
	if !p.anchored {
		if p.front {
			p.head = append(p.head, nodes)
		} else {
			p.end = append(p.end, nodes)
		}
		return
	}
	if p.after == nil {
		p.after = map[string][][]*yaml.Node{}
	}
	p.after[p.anchor] = append(p.after[p.anchor], nodes)
}

// empty reports whether nothing was added.
func (p *placer) empty() bool { return len(p.after) == 0 && len(p.end) == 0 && len(p.head) == 0 }

// build returns the kept entries (ids[i] names kept[i]; width nodes an entry) with the
// new entries woven in.
func (p *placer) build(ids []string, kept []*yaml.Node, width int) []*yaml.Node {
	if p.empty() {
		return kept
	}
	out := make([]*yaml.Node, 0, len(kept)+width*(len(p.head)+len(p.end)+len(p.after)))
	for _, e := range p.head {
		out = append(out, e...)
	}
	for i, id := range ids {
		out = append(out, kept[i*width:(i+1)*width]...)
		for _, e := range p.after[id] {
			out = append(out, e...)
		}
	}
	for _, e := range p.end {
		out = append(out, e...)
	}
	return out
}

// mergeMapFields is the map merge both engines share (semantics.md, map rows): dest's
// fields in dest's order, each merged by field(key, srcKey, srcValue, destValue); then
// each src field dest lacks, merged with a nil destValue and placed after its
// predecessor in src, or first (placer with front). Fields whose merge is nil are
// dropped; skip, when given, names src keys that are not fields (2-way directives).
// It returns dest's new content and the first error field returns.
func mergeMapFields(src, dest *yaml.Node, skip func(string) bool,
	field func(key, srcKey, srcValue, destValue *yaml.Node) (*yaml.Node, error)) ([]*yaml.Node, error) {
	sf, df := indexFields(src), indexFields(dest)
	ids := make([]string, 0, len(dest.Content)/2)
	kept := make([]*yaml.Node, 0, len(dest.Content))
	for i := 0; i+1 < len(dest.Content); i += 2 {
		k, dv := dest.Content[i], dest.Content[i+1]
		sk, sv := sf.get(k.Value)
		child, err := field(k, sk, sv, dv)
		if err != nil {
			return nil, err
		}
		if child != nil {
			ids = append(ids, k.Value)
			kept = append(kept, k, child)
		}
	}
	p := placer{front: true}
	var present map[string]bool // small maps: a scan of ids, no garbage
	if len(ids) > smallMap {
		present = make(map[string]bool, len(ids))
		for _, id := range ids {
			present[id] = true
		}
	}
	isPresent := func(name string) bool {
		if present != nil {
			return present[name]
		}
		for _, id := range ids {
			if id == name {
				return true
			}
		}
		return false
	}
	for i := 0; src != nil && i+1 < len(src.Content); i += 2 {
		k, sv := src.Content[i], src.Content[i+1]
		switch {
		case skip != nil && skip(k.Value):
			continue
		case isPresent(k.Value):
			p.seen(k.Value)
			continue
		case df.has(k.Value):
			continue // merged away
		}
		child, err := field(k, k, sv, nil)
		if err != nil {
			return nil, err
		}
		if child != nil {
			p.add(k, child)
		}
	}
	return p.build(ids, kept, 2), nil
}
