package schema

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Identities pairs the elements of one keyed list across its sources (original, updated
// and dest; or src and dest): each element's identity is a number from 0 to Len()-1, the
// same number for the elements that pair. It is built by Resolver.Pair in the same pass
// that checks the data fits the merge keys, so a list's keys are read and hashed once:
// one map of identity strings for all sources, and slices indexed by number for every
// lookup after it. (The fit check, the pairing and the merge's lookups once hashed each
// element's keys separately, into a map per source: on a list too big for the caches,
// a third of the merge's time.)
//
// An element matches another when all its key values (KeyValue) are equal. With
// List.Wildcard, an element that lacks a secondary key value takes the identity of the
// one element, in any source, that has the same present values and all keys (a port
// with no protocol pairs with the same port with protocol TCP, as kyaml and the API
// server pair them), unless in some source that would pair two elements of one list
// (that list holds both, or two such partial elements). The decision is made once per
// partial identity for all sources, so that the same element gets the same identity in
// original, updated and dest: deciding it list by list re-paired, e.g., a port without
// protocol in original with another port of updated, and brought back a port dest had
// deleted. Elements are hashed, never compared pairwise.
type Identities struct {
	// of[s][e] is the identity of element e of source s; at[s][i] is the element of
	// source s with identity i, or -1. Both are nil for a source that is not a list.
	of, at [][]int32
	// lists are the sources as passed to Pair, l the decision they were paired under
	// (its Keys are the merge keys).
	lists []*yaml.Node
	l     List
	// vals, only under Wildcard: vals[s][e*len(keys)+k] is the value of key k that
	// identifies element e of source s ("" when absent): the element's own values, or
	// those of the complete element it pairs with. Otherwise they are the element's own,
	// read again from it when a path names it.
	vals [][]string
	n    int
}

// Len is the number of distinct identities over all sources.
func (x *Identities) Len() int { return x.n }

// Of returns the identity of element e of source s (the index of the list in the Pair
// call). It panics if source s is not a list or e is out of range.
func (x *Identities) Of(s, e int) int { return int(x.of[s][e]) }

// At returns the index of the element of source s with identity id, or -1 when source s
// has none (or is not a list).
func (x *Identities) At(s, id int) int {
	if x.at[s] == nil {
		return -1
	}
	return int(x.at[s][id])
}

// Element returns the element of source s with identity id, or nil.
func (x *Identities) Element(s, id int) *yaml.Node {
	if e := x.At(s, id); e >= 0 {
		return x.lists[s].Content[e]
	}
	return nil
}

// Step returns the merge keys that element e of source s carries and their values (the
// values it is identified by, after Wildcard pairing), for its field path, e.g.
// [name=app]. It allocates; call it only to name a place.
func (x *Identities) Step(s, e int) (keys, values []string) {
	w := len(x.l.Keys)
	vals := make([]string, w)
	if x.vals != nil {
		copy(vals, x.vals[s][e*w:(e+1)*w])
	} else {
		keyValues(vals, x.lists[s].Content[e], x.l)
	}
	for k, v := range vals {
		if v != "" {
			keys, values = append(keys, x.l.Keys[k]), append(values, v)
		}
	}
	return keys, values
}

// Pair is Decide that, for a Keyed decision, also returns the identities of the
// elements of each list, sources indexed as in lists (a nil or non-sequence list has no
// elements; at most 64 sources). Identities is nil unless the kind is Keyed.
func (r *Resolver) Pair(n Node, lists ...*yaml.Node) (List, *Identities) {
	if n.ov != nil && n.ov.list != nil {
		return validate(*n.ov.list, lists)
	}
	if n.Known() {
		if l, ok := fromSchema(n.rs.Schema); ok {
			return validate(l, lists)
		}
		// The schema knows this list but gives no strategy: atomic, as in kubectl.
		if isArray(n.rs.Schema) && !n.crd {
			return List{Type: Atomic}, nil
		}
	}
	if r == nil {
		return List{Type: Atomic}, nil
	}
	return r.infer(lists)
}

// identify computes the Identities of l's lists, or reports false when the data does
// not fit l (validate): an element that is not a map, lacks the primary key (unless
// AnyKey) or, unless Wildcard or AnyKey, any key, carries none of the keys, or repeats
// another element's key values in its list. A key value is present when it is a scalar
// other than null.
func identify(l List, lists []*yaml.Node) (*Identities, bool) {
	if len(lists) > 64 {
		panic("schema: Pair takes at most 64 sources")
	}
	w := len(l.Keys)
	x := &Identities{lists: lists, l: l, of: make([][]int32, len(lists))}
	if l.Wildcard {
		x.vals = make([][]string, len(lists))
	}
	longest := 0
	for s, list := range lists {
		if isSeq(list) {
			x.of[s] = make([]int32, len(list.Content))
			longest = max(longest, len(list.Content))
			if x.vals != nil {
				x.vals[s] = make([]string, len(list.Content)*w) // every element's values, one allocation
			}
		}
	}
	// The sources are read in step, element e of each list, then e+1, and each element
	// is read once: its key values, then its identity. Elements that pair sit near the
	// same index in every source, so the string a lookup compares with was read a
	// moment ago, not a whole list ago; on a list that outgrows the caches, reading the
	// lists one after the other, or the keys and the identities in two passes, made
	// every lookup wait on memory. One map numbers the identities of all sources; in[i]
	// has bit s set when source s holds identity i, so a second one is a repeat. The map
	// is made at the first element that fits: an inferred key that does not fit is most
	// often absent from the first elements, and then costs no map.
	var intern map[string]int32
	var in []uint64
	buf := make([]string, w)
	partial := false
	for e := 0; e < longest; e++ {
		for s, of := range x.of {
			if e >= len(of) {
				continue
			}
			v := buf
			if x.vals != nil {
				v = x.vals[s][e*w : (e+1)*w : (e+1)*w]
			} else {
				clear(v)
			}
			present, ok := keyValues(v, lists[s].Content[e], l)
			if !ok {
				return nil, false
			}
			partial = partial || present < w
			if intern == nil {
				intern = make(map[string]int32, longest) // most identities are in every list
			}
			id := makeID(v)
			i, ok := intern[id]
			if !ok {
				i = int32(len(in))
				intern[id] = i
				in = append(in, 0)
			}
			bit := uint64(1) << s
			if in[i]&bit != 0 {
				return nil, false // a repeated key in this list
			}
			in[i] |= bit
			of[e] = i
		}
	}
	x.n = len(in)
	if l.Wildcard && partial {
		x.fillWildcard()
	}
	x.at = make([][]int32, len(lists))
	for s, of := range x.of {
		if of == nil {
			continue
		}
		at := make([]int32, x.n)
		for i := range at {
			at[i] = -1
		}
		for e, i := range of {
			at[i] = int32(e)
		}
		x.at[s] = at
	}
	return x, true
}

// keyValues sets v[k] to element el's value of key k of l (KeyValue; "" when absent) and
// returns how many are present; ok is false when el does not fit l: it is not a map,
// lacks the primary key (unless AnyKey) or, unless Wildcard or AnyKey, any key, or
// carries none. A key value is present when it is a scalar other than null.
func keyValues(v []string, el *yaml.Node, l List) (present int, ok bool) {
	if el.Kind != yaml.MappingNode {
		return 0, false
	}
	for k, key := range l.Keys {
		f := fieldValue(el, key)
		if f == nil || f.Kind != yaml.ScalarNode || f.ShortTag() == yaml.NodeTagNull {
			if (k == 0 && !l.AnyKey) || !(l.Wildcard || l.AnyKey) {
				return 0, false
			}
			continue
		}
		present++
		v[k] = KeyValue(l.Untagged, key, f.Value)
	}
	return present, present > 0
}

// fillWildcard gives each partial element the identity of the one complete tuple it
// agrees with (Identities' Wildcard rule), unless that is ambiguous or, in some source,
// would name two elements; then renumbers the identities.
func (x *Identities) fillWildcard() {
	w := len(x.l.Keys)
	tuple := func(s, e int) []string { return x.vals[s][e*w : (e+1)*w : (e+1)*w] }
	complete := map[string][][]string{} // primary value -> the distinct complete tuples
	for s, of := range x.of {
		for e := range of {
			if t := tuple(s, e); full(t) && !containsTuple(complete[t[0]], t) {
				complete[t[0]] = append(complete[t[0]], t)
			}
		}
	}
	// Candidate tuple of each partial element; an identity is blocked when, in any
	// list, its element's candidate would then name two elements.
	cands := make([][][]string, len(x.of))
	blocked := map[string]bool{}
	for s, of := range x.of {
		if of == nil {
			continue
		}
		cands[s] = make([][]string, len(of))
		users := map[string][]string{} // identity -> own identities of the elements taking it
		for e := range of {
			t := tuple(s, e)
			own := makeID(t)
			if filled := fill(t, complete[t[0]]); filled != nil {
				cands[s][e] = filled
				cand := makeID(filled)
				users[cand] = append(users[cand], own)
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
	for s := range x.of {
		for e, cand := range cands[s] {
			if cand != nil && !blocked[makeID(tuple(s, e))] {
				copy(tuple(s, e), cand)
			}
		}
	}
	// Renumber from the final tuples.
	intern := make(map[string]int32, x.n)
	for s, of := range x.of {
		for e := range of {
			id := makeID(tuple(s, e))
			i, ok := intern[id]
			if !ok {
				i = int32(len(intern))
				intern[id] = i
			}
			of[e] = i
		}
	}
	x.n = len(intern)
}

// full reports whether every key value of tuple t is present.
func full(t []string) bool {
	for _, v := range t {
		if v == "" {
			return false
		}
	}
	return true
}

// fill returns the one complete tuple compatible with the partial vals, or nil.
func fill(vals []string, candidates [][]string) []string {
	if full(vals) {
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

// makeID is the identity string of an element whose key values are vals ("" for
// absent): it differs whenever the present values or the set of absent keys differ.
// With one key it is the value itself (no allocation), unless the value is "" or starts
// with \x01, which only the built forms ("\x01=" value, "\x01-" absent) do.
func makeID(vals []string) string {
	if len(vals) == 1 && vals[0] != "" && vals[0][0] != '\x01' { // the common case
		return vals[0]
	}
	var b strings.Builder
	for _, v := range vals {
		if v == "" {
			b.WriteString("\x01-")
			continue
		}
		b.WriteString("\x01=")
		b.WriteString(v)
	}
	return b.String()
}
