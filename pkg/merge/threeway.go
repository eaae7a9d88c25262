package merge

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/schema"
)

// ThreeWay merges the change from original to updated onto dest, one resource (or any
// YAML value) at a time, by the 3-way rules of shared/spec/semantics.md (seed merge3.md,
// kyaml yaml/merge3, with the kyaml fixes listed in the README).
//
// Inputs: original, updated and dest as parsed by kyaml; any of them may be nil (absent),
// e.g. original is nil for a resource added on both sides. They are not modified.
// Output: the merged value, a new tree that shares no node with the inputs (nil when the
// merge clears it, e.g. dest is an explicit null and upstream changed the value), and
// every conflict found, in document order, each already decided by opts.Policy.
// Errors: none today for well-formed YAML; the error is kept for rules that can fail.
func ThreeWay(original, updated, dest *yaml.RNode, opts Options) (*yaml.RNode, []Conflict, error) {
	e := &threeWay{lists: opts.lists(), policy: opts.Policy}
	o := ynode(original)
	u, d := copyNode(ynode(updated)), copyNode(ynode(dest))
	sch := e.lists.ForResource(dest, updated, original)
	out := e.merge(o, u, d, sch, nil, false)
	return rnode(out), e.conflicts, nil
}

// lists returns the resolver to use: the configured one, or heuristic keys only.
func (o Options) lists() *schema.Resolver {
	if o.Lists != nil {
		return o.Lists
	}
	return schema.New(false, schema.SeedKeys)
}

// copyNode deep-copies n (aliases are resolved into copies of their targets' pointers).
func copyNode(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	return yaml.CopyYNode(n)
}

type threeWay struct {
	lists     *schema.Resolver
	policy    Policy
	conflicts []Conflict
}

// merge returns the merged value of one field or element; nil means absent. o is read
// only; u and d are the engine's own copies and may be reused in the output. quiet
// suppresses conflict reports below a place that already reported one.
func (e *threeWay) merge(o, u, d *yaml.Node, sch schema.Node, path fieldpath.Path, quiet bool) *yaml.Node {
	// Unchanged upstream (null and absent alike): keep dest exactly, its nulls included.
	if equal(o, u) || (missingOrNull(o) && missingOrNull(u) && !isNull(u)) {
		return d
	}
	if isNull(d) || isNull(u) { // a local clear, or upstream cleared it
		return nil
	}
	if u == nil { // deleted upstream
		if d == nil || equal(d, o) {
			return nil
		}
		return e.conflict(path, DeletedUpstream, quiet, o, u, d, nil, d)
	}
	// The same change on both sides: keep dest as it is. Not when updated holds an
	// explicit null field: that is an upstream clear, and the clear must not depend on
	// whether dest's copy happens to equal updated's elsewhere; recurse instead.
	if equal(u, d) && !hasNullField(u) {
		return d
	}
	un := deref(u)
	switch un.Kind {
	case yaml.MappingNode:
		if kindIs(o, yaml.MappingNode) && kindIs(d, yaml.MappingNode) {
			return e.mergeMap(o, u, d, sch, path, quiet)
		}
	case yaml.SequenceNode:
		if kindIs(o, yaml.SequenceNode) && kindIs(d, yaml.SequenceNode) {
			l := e.lists.Decide(sch, deref(o), un, deref(d))
			switch l.Kind {
			case schema.Keyed:
				return e.mergeKeyed(o, u, d, l, sch.Elements(), path, quiet)
			case schema.Set:
				return e.mergeSet(o, u, d, path, quiet)
			}
		}
	}
	return e.atomic(o, u, d, path, quiet)
}

// atomic decides a scalar, an atomic list, or a value whose kind changed: upstream
// changed it (o != u), so take u unless dest changed it too.
func (e *threeWay) atomic(o, u, d *yaml.Node, path fieldpath.Path, quiet bool) *yaml.Node {
	if d != nil && equal(d, u) { // the same change on both sides, nulls inside kept
		return d
	}
	if d == nil {
		if missingOrNull(o) { // added upstream
			return u
		}
		return e.conflict(path, DeletedLocally, quiet, o, u, nil, u, nil)
	}
	if equal(d, o) {
		return u
	}
	return e.conflict(path, BothChanged, quiet, o, u, d, u, d)
}

// hasNullField reports whether n holds, in a map at any depth (lists included), a field
// whose value is an explicit null.
func hasNullField(n *yaml.Node) bool {
	n = deref(n)
	if n == nil {
		return false
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			if isNull(n.Content[i]) || hasNullField(n.Content[i]) {
				return true
			}
		}
	case yaml.SequenceNode:
		for _, el := range n.Content {
			if hasNullField(el) {
				return true
			}
		}
	}
	return false
}

// conflict records a conflict (unless quiet) and returns the winner's value.
//
// quiet is set only while computing the delta updated brings to a map, list or element
// dest deleted (mapDelta, mergeKeyed without dest): there the value is always updated's,
// whatever the policy, because the policy is applied once, by the DeletedLocally
// conflict at the deleted place. Deciding inner conflicts for dest there emptied the
// delta under KeepDest, and the deletion's conflict was then never reported.
func (e *threeWay) conflict(path fieldpath.Path, kind ConflictKind, quiet bool, o, u, d, takeU, keepD *yaml.Node) *yaml.Node {
	if quiet {
		return takeU
	}
	winner, out := "updated", takeU
	if e.policy == KeepDest {
		winner, out = "dest", keepD
	}
	e.conflicts = append(e.conflicts, Conflict{
		Path: path, Kind: kind, Winner: winner,
		Original: rnode(copyNode(o)), Updated: rnode(copyNode(u)), Dest: rnode(copyNode(d)),
	})
	return out
}

// childSchema returns the schema of field name: the parent's, or the field's own inline
// OpenAPI comment (rule 0), looked up only when the field holds a map or list.
func childSchema(sch schema.Node, name string, pairs ...*yaml.Node) schema.Node {
	structured := false
	for i := 1; i < len(pairs); i += 2 {
		if v := deref(pairs[i]); v != nil && (v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode) {
			structured = true
		}
	}
	if !structured {
		return schema.Node{}
	}
	return schema.WithComments(sch.Field(name), pairs...)
}

// mergeMap merges maps field by field. Output order: dest's fields, new fields after
// their predecessor in updated.
func (e *threeWay) mergeMap(o, u, d *yaml.Node, sch schema.Node, path fieldpath.Path, quiet bool) *yaml.Node {
	if d == nil {
		if missingOrNull(o) {
			// The whole map is new upstream. Its explicit null fields are upstream
			// clears of values O never had (rule "U is null and O is not: cleared"),
			// so they go, as they would if dest had an empty map here.
			if !hasNullField(u) {
				return u
			}
			return e.mapDelta(o, u, sch, path)
		}
		// Deleted locally, changed upstream: only the delta comes back, as one conflict.
		delta := e.mapDelta(o, u, sch, path)
		if delta == nil {
			return nil
		}
		return e.conflict(path, DeletedLocally, quiet, o, u, nil, delta, nil)
	}
	dn := deref(d)
	of := indexFields(o)
	dn.Content, _ = mergeMapFields(deref(u), dn, nil, func(k, uk, uv, dv *yaml.Node) (*yaml.Node, error) {
		ok, ov := of.get(k.Value)
		pairs := []*yaml.Node{uk, uv, ok, ov}
		if dv != nil {
			pairs = append([]*yaml.Node{k, dv}, pairs...)
		}
		return e.merge(ov, uv, dv, childSchema(sch, k.Value, pairs...), path.Field(k.Value), quiet), nil
	})
	return d
}

// mapDelta returns the fields of u that the O-to-U delta adds or changes, as if dest
// had no map; nil when there are none.
func (e *threeWay) mapDelta(o, u *yaml.Node, sch schema.Node, path fieldpath.Path) *yaml.Node {
	un := deref(u)
	of := indexFields(o)
	var content []*yaml.Node
	for i := 0; i+1 < len(un.Content); i += 2 {
		k, uv := un.Content[i], un.Content[i+1]
		ok, ov := of.get(k.Value)
		if child := e.merge(ov, uv, nil, childSchema(sch, k.Value, k, uv, ok, ov), path.Field(k.Value), true); child != nil {
			content = append(content, k, child)
		}
	}
	if content == nil {
		return nil
	}
	return newMap(un, content)
}

// mergeKeyed merges an associative list element by element, paired by merge key.
// Output order: dest's elements, new elements after their predecessor in updated.
// An emptied list stays as an empty list (dest and updated both have the field).
func (e *threeWay) mergeKeyed(o, u, d *yaml.Node, l schema.List, elem schema.Node, path fieldpath.Path, quiet bool) *yaml.Node {
	on, un, dn := deref(o), deref(u), deref(d)
	ids := keyedIDs(l.Keys, l.Wildcard, on, un, dn)
	oi := byID(on, ids[0])
	if d == nil {
		if missingOrNull(o) && !hasNullField(u) {
			return u // the whole list is new upstream
		}
		// Deleted locally and changed upstream (or new upstream with null fields to
		// drop, as in mergeMap): only the delta comes back.
		var content []*yaml.Node
		for i, ue := range un.Content {
			if child := e.merge(oi[ids[1][i].id], ue, nil, elem, ids[1][i].path(path), true); child != nil {
				content = append(content, withKeys(child, ue, l.Keys))
			}
		}
		if content == nil {
			return nil
		}
		if missingOrNull(o) {
			return newSeq(un, content) // new upstream: not a conflict
		}
		return e.conflict(path, DeletedLocally, quiet, o, u, nil, newSeq(un, content), nil)
	}
	ui, di := byID(un, ids[1]), byID(dn, ids[2])
	keptIDs := make([]string, 0, len(dn.Content))
	kept := make([]*yaml.Node, 0, len(dn.Content))
	for i, de := range dn.Content {
		id := ids[2][i]
		if child := e.merge(oi[id.id], ui[id.id], de, elem, id.path(path), quiet); child != nil {
			keptIDs = append(keptIDs, id.id)
			kept = append(kept, child)
		}
	}
	present := make(map[string]bool, len(keptIDs))
	for _, id := range keptIDs {
		present[id] = true
	}
	var p placer
	for i, ue := range un.Content {
		id := ids[1][i]
		if present[id.id] {
			p.seen(id.id)
			continue
		}
		if di[id.id] != nil {
			continue
		}
		if child := e.merge(oi[id.id], ue, nil, elem, id.path(path), quiet); child != nil {
			p.add(withKeys(child, ue, l.Keys))
		}
	}
	// An emptied list stays, empty: dest has the field, and kyaml keeps it too.
	dn.Content = p.build(keptIDs, kept, 1)
	return d
}

// withKeys returns a keyed element that comes back from updated as a delta (dest
// deleted it, upstream changed it) with its merge key fields, taken from updated's
// element ue: the delta holds only changed fields, and an element without its key
// could not be paired again (kyaml also sets the key). Elements that are not maps, and
// whole elements that already carry their keys, are returned as they are.
func withKeys(child, ue *yaml.Node, keys []string) *yaml.Node {
	cn := deref(child)
	if cn == nil || cn.Kind != yaml.MappingNode {
		return child
	}
	cf, uf := indexFields(cn), indexFields(ue)
	var missing []*yaml.Node
	for _, k := range keys {
		if cf.has(k) {
			continue
		}
		if kk, kv := uf.get(k); kk != nil {
			missing = append(missing, kk, kv)
		}
	}
	if missing == nil {
		return child
	}
	cn.Content = append(missing, cn.Content...)
	return child
}

// mergeSet merges a list of primitives as a set (e.g. metadata.finalizers): elements
// deleted upstream go, elements added upstream come after their predecessor, dest's own
// stay. An emptied set stays as an empty list.
func (e *threeWay) mergeSet(o, u, d *yaml.Node, path fieldpath.Path, quiet bool) *yaml.Node {
	on, un, dn := deref(o), deref(u), deref(d)
	inO := valueSet(on)
	if d == nil {
		if missingOrNull(o) {
			return u
		}
		var added []*yaml.Node
		for _, ue := range un.Content {
			if !inO[setID(ue)] {
				added = append(added, ue)
			}
		}
		if added == nil {
			return nil
		}
		return e.conflict(path, DeletedLocally, quiet, o, u, nil, newSeq(un, added), nil)
	}
	inU, inD := valueSet(un), valueSet(dn)
	keptIDs := make([]string, 0, len(dn.Content))
	kept := make([]*yaml.Node, 0, len(dn.Content))
	for _, de := range dn.Content {
		id := setID(de)
		if inO[id] && !inU[id] {
			continue // deleted upstream
		}
		keptIDs = append(keptIDs, id)
		kept = append(kept, de)
	}
	var p placer
	for _, ue := range un.Content {
		id := setID(ue)
		switch {
		case inD[id]:
			p.seen(id)
		case !inO[id]:
			p.add(ue)
		}
	}
	// An emptied set stays, empty, as in mergeKeyed.
	dn.Content = p.build(keptIDs, kept, 1)
	return d
}

// valueSet indexes a list of primitives by value.
func valueSet(list *yaml.Node) map[string]bool {
	if list == nil || list.Kind != yaml.SequenceNode {
		return map[string]bool{}
	}
	m := make(map[string]bool, len(list.Content))
	for _, el := range list.Content {
		m[setID(el)] = true
	}
	return m
}
