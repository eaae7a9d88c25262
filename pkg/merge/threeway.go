package merge

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/bounds"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// threeWayShared is the 3-way merge without field rules and without the final copy:
// its output may share the subtrees it takes unchanged with updated and dest.
func threeWayShared(original, updated, dest *yaml.RNode, opts Options) Result {
	e := &threeWay{lists: opts.lists(), winner: opts.winner(), positional: opts.KeepDestPositions, valueMerge: opts.ValueMerge}
	o, u, d := ynode(original), ynode(updated), ynode(dest)
	if !opts.NullElementFree {
		o, u, d = withoutNullElements(o), withoutNullElements(u), withoutNullElements(d)
	}
	if !opts.AliasFree && (bounds.HasAlias(u) || bounds.HasAlias(d)) {
		// Aliases share nodes inside one input: work on private copies changed in
		// place, as the engine always did for them.
		u, d = copyNode(u), copyNode(d)
		e.inPlace = true
	}
	sch := e.lists.ForResource(dest, updated, original)
	out := keepFileComments(e.merge(o, u, d, sch, nil, false), d)
	return Result{Value: rnode(out), Conflicts: e.conflicts, ValueMerges: e.valueMerges}
}

// winner is the role a conflict's output takes: Winner when it is Dest or Original,
// else Updated.
func (o Options) winner() vocab.Role {
	if o.Winner == vocab.Dest || o.Winner == vocab.Original {
		return o.Winner
	}
	return vocab.Updated
}

// lists returns the resolver to use: the configured one, or heuristic keys only.
func (o Options) lists() *schema.Resolver {
	if o.Lists != nil {
		return o.Lists
	}
	return schema.New(schema.Options{})
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
	winner    vocab.Role // the side a conflict's output takes (Options.Winner)
	conflicts []Conflict
	// nulls memoises hasNullField per map and list node, so that asking it at every
	// level of a subtree costs the subtree's size once, not times its depth.
	nulls map[*yaml.Node]bool
	// same holds pairs of updated and dest nodes known to be equal (children of a pair
	// found equal), so that the "same change on both sides" check does not compare a
	// subtree again at every level below an equal pair.
	same map[[2]*yaml.Node]bool
	// inPlace: u and d are private copies (inputs with aliases), changed in place.
	inPlace bool
	// positional: Options.KeepDestPositions.
	positional bool
	// valueMerge: Options.ValueMerge; valueMerges are the values merged inside.
	valueMerge  bool
	valueMerges []ValueMerge
}

// own returns the map or list node behind d to set the merged content on, and the node
// to return in d's place. Normally that is a shallow copy of the node, so dest is never
// changed and only changed maps and lists are copied; with inPlace it is d's node itself.
func (e *threeWay) own(d *yaml.Node) (target, out *yaml.Node) {
	if e.inPlace || d.Kind != deref(d).Kind {
		return deref(d), d
	}
	c := copyShallow(d)
	return c, c
}

// copyShallow returns a copy of n's node (dereferenced) sharing its children.
func copyShallow(n *yaml.Node) *yaml.Node {
	c := *deref(n)
	return &c
}

// equalUD is equal(u, d), answered from e.same when the pair is known equal.
func (e *threeWay) equalUD(u, d *yaml.Node) bool {
	if e.same != nil && e.same[[2]*yaml.Node{u, d}] {
		return true
	}
	return equal(u, d)
}

// markSame records the children of u and d, an equal pair, as equal pairs: map fields
// by name, list elements by position (as equal compares them).
func (e *threeWay) markSame(u, d *yaml.Node) {
	un, dn := deref(u), deref(d)
	if un == nil || dn == nil || un.Kind != dn.Kind {
		return
	}
	if e.same == nil {
		e.same = map[[2]*yaml.Node]bool{}
	}
	switch un.Kind {
	case yaml.MappingNode:
		df := indexFields(dn)
		for i := 0; i+1 < len(un.Content); i += 2 {
			if dv := df.value(un.Content[i].Value); dv != nil {
				e.same[[2]*yaml.Node{un.Content[i+1], dv}] = true
			}
		}
	case yaml.SequenceNode:
		for i := range un.Content {
			if i < len(dn.Content) {
				e.same[[2]*yaml.Node{un.Content[i], dn.Content[i]}] = true
			}
		}
	}
}

// merge returns the merged value of one field or element; nil means absent. o is read
// only; u and d are the engine's own copies and may be reused in the output. quiet
// suppresses conflict reports below a place that already reported one.
func (e *threeWay) merge(o, u, d *yaml.Node, sch schema.Node, path *at, quiet bool) *yaml.Node {
	// Unchanged upstream (null and absent alike): keep dest exactly, its nulls included;
	// where upstream changed only comments, they arrive (blend).
	switch compareAll(o, u) {
	case sameAll:
		return d
	case sameValue:
		if d == nil {
			return nil
		}
		return e.blend(o, u, d, fromD, sch)
	}
	if missingOrNull(o) && missingOrNull(u) && !isNull(u) {
		return d
	}
	if isNull(d) && isNull(o) {
		// Dest's null is original's: no local change, so upstream's value is taken, as
		// for a field dest never had.
		return e.merge(nil, u, nil, sch, path, quiet)
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
	// The same change on both sides: keep dest as it is (with updated's comments where
	// dest kept original's). Not when updated holds an explicit null field: that is an
	// upstream clear, and the clear must not depend on whether dest's copy happens to
	// equal updated's elsewhere; recurse instead.
	if e.equalUD(u, d) {
		if !e.hasNullField(u) {
			if compareAll(u, d) == sameAll {
				return d
			}
			return e.blend(o, u, d, fromD, sch)
		}
		e.markSame(u, d)
	}
	un := deref(u)
	switch un.Kind {
	case yaml.MappingNode:
		if kindIs(o, yaml.MappingNode) && kindIs(d, yaml.MappingNode) {
			o, u, d, t := e.cutTrails(o, u, d)
			return putTrail(e.mergeMap(o, u, d, sch, path, quiet), t)
		}
	case yaml.SequenceNode:
		if kindIs(o, yaml.SequenceNode) && kindIs(d, yaml.SequenceNode) {
			o, u, d, t := e.cutTrails(o, u, d)
			un := deref(u)
			l, ids := e.lists.Pair(sch, deref(o), un, deref(d))
			switch l.Type {
			case schema.Map:
				return putTrail(e.mergeKeyed(o, u, d, l, ids, sch.Elements(), path, quiet), t)
			case schema.Set:
				return putTrail(e.mergeSet(o, u, d, path, quiet), t)
			}
		}
	}
	return e.atomic(o, u, d, sch, path, quiet)
}

// atomic decides a scalar, an atomic list, or a value whose kind changed: upstream
// changed it (o != u), so take u unless dest changed it too. Changed on both sides, and
// with Options.ValueMerge, an image reference, an atomic list or a multi-line string is
// merged inside (mergeInside, docs/merge-semantics.md "Merging inside a value") before
// it is one conflict.
func (e *threeWay) atomic(o, u, d *yaml.Node, sch schema.Node, path *at, quiet bool) *yaml.Node {
	if d != nil && e.equalUD(u, d) { // the same change on both sides, nulls inside kept
		return e.blend(o, u, d, fromD, sch)
	}
	if d == nil {
		if missingOrNull(o) { // added upstream
			return u
		}
		return e.conflict(path, DeletedLocally, quiet, o, u, nil, u, nil)
	}
	if equal(d, o) {
		return e.blend(o, u, d, fromU, sch)
	}
	if e.valueMerge && !quiet {
		if out, ok := e.mergeInside(o, u, d, sch, path); ok {
			return out
		}
	}
	out := e.conflict(path, BothChanged, quiet, o, u, d, u, d)
	if e.winner == vocab.Original && !quiet {
		return out // original's value, as original has it
	}
	if out == d {
		return e.blend(o, u, d, fromD, sch)
	}
	return e.blend(o, u, d, fromU, sch)
}

// hasNullField reports whether n holds, in a map at any depth (lists included), a field
// whose value is an explicit null. Results are memoised per map and list node, so the
// engine can ask at every level of a subtree and still visit each node once.
func (e *threeWay) hasNullField(n *yaml.Node) bool {
	n = deref(n)
	if n == nil || (n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode) {
		return false
	}
	if v, ok := e.nulls[n]; ok {
		return v
	}
	found := false
	switch n.Kind {
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			if isNull(n.Content[i]) || e.hasNullField(n.Content[i]) {
				found = true
				break
			}
		}
	case yaml.SequenceNode:
		for _, el := range n.Content {
			if e.hasNullField(el) {
				found = true
				break
			}
		}
	}
	if e.nulls == nil {
		e.nulls = map[*yaml.Node]bool{}
	}
	e.nulls[n] = found
	return found
}

// conflict records a conflict (unless quiet) and returns the winner's value.
//
// quiet is set only while computing the delta updated brings to a map, list or element
// dest deleted (mapDelta, mergeKeyed without dest): there the value is always updated's,
// whatever the winner, because the winner is applied once, by the DeletedLocally
// conflict at the deleted place. Deciding inner conflicts for dest there emptied the
// delta when dest wins, and the deletion's conflict was then never reported.
func (e *threeWay) conflict(path *at, kind ConflictKind, quiet bool, o, u, d, takeU, keepD *yaml.Node) *yaml.Node {
	if quiet {
		return takeU
	}
	out := pick(e, o, takeU, keepD)
	e.conflicts = append(e.conflicts, Conflict{
		Path: path.path(), Kind: kind, Winner: e.winner,
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
func (e *threeWay) mergeMap(o, u, d *yaml.Node, sch schema.Node, path *at, quiet bool) *yaml.Node {
	if d == nil {
		if missingOrNull(o) {
			// The whole map is new upstream. Its explicit null fields are upstream
			// clears of values O never had (rule "U is null and O is not: cleared"),
			// so they go, as they would if dest had an empty map here.
			if !e.hasNullField(u) {
				return u
			}
			return e.mapDelta(o, u, sch, path)
		}
		// Deleted locally, changed upstream: a conflict; updated brings back its whole
		// map (its explicit null fields dropped, as for a map new upstream), never a
		// partial object made of the delta alone.
		if e.mapDelta(o, u, sch, path) == nil {
			return nil
		}
		return e.conflict(path, DeletedLocally, quiet, o, u, nil, e.merge(nil, u, nil, sch, path, true), nil)
	}
	dn, out := e.own(d)
	of, uf := indexFields(o), indexFields(u)
	dn.Content, _ = mergeMapFields(deref(u), dn, nil, func(k, uk, uv, dv *yaml.Node) (*yaml.Node, error) {
		ok, ov := of.get(k.Value)
		var buf [6]*yaml.Node // on the stack: no garbage per field
		pairs := buf[:0]
		if dv != nil {
			pairs = append(pairs, k, dv)
		}
		pairs = append(pairs, uk, uv, ok, ov)
		return e.merge(ov, uv, dv, childSchema(sch, k.Value, pairs...), path.field(k.Value), quiet), nil
	})
	// The keys dest kept carry their comments merged 3-way; keys new from updated carry
	// updated's. A scalar field's line comment is one slot of key and value (fieldLine).
	df := indexFields(d)
	for i := 0; i+1 < len(dn.Content); i += 2 {
		k := dn.Content[i]
		ok, ov := of.get(k.Value)
		uk, uv := uf.get(k.Value)
		own, dv := df.get(k.Value)
		if own != k {
			own, dv = nil, nil // a field new from updated: its key as updated has it
		} else if uk != nil { // (without uk: deleted upstream, kept by a conflict, as dest has it)
			k = withSlots(k, mergeSlots(ok, uk, k))
		}
		dn.Content[i], dn.Content[i+1] = fieldLine(ok, ov, uk, uv, own, dv, k, dn.Content[i+1])
	}
	return withOwnSlots(out, o, u, d)
}

// withOwnSlots sets the comments of a merged map or list node out (dest's node, or its
// copy) to mergeSlots(o, u, d); out is a node the merge owns (see own), changed in place
// unless it is d itself.
func withOwnSlots(out, o, u, d *yaml.Node) *yaml.Node {
	s := mergeSlots(o, u, d)
	if slotsOf(out) == s {
		return out
	}
	if out == d {
		return withSlots(out, s)
	}
	out.HeadComment, out.LineComment, out.FootComment = s.head, s.line, s.foot
	return out
}

// mapDelta returns the fields of u that the O-to-U delta adds or changes, as if dest
// had no map; nil when there are none.
func (e *threeWay) mapDelta(o, u *yaml.Node, sch schema.Node, path *at) *yaml.Node {
	un := deref(u)
	of := indexFields(o)
	var content []*yaml.Node
	for i := 0; i+1 < len(un.Content); i += 2 {
		k, uv := un.Content[i], un.Content[i+1]
		ok, ov := of.get(k.Value)
		if child := e.merge(ov, uv, nil, childSchema(sch, k.Value, k, uv, ok, ov), path.field(k.Value), true); child != nil {
			content = append(content, k, child)
		}
	}
	if content == nil {
		return nil
	}
	return newMap(un, content)
}

// mergeKeyed merges an associative list element by element, paired by merge key: ids
// numbers the elements of (original, updated, dest) as schema.Pair made it.
// Output order: dest's elements, new elements after their predecessor in updated.
// An emptied list stays as an empty list (dest and updated both have the field).
func (e *threeWay) mergeKeyed(o, u, d *yaml.Node, l schema.List, ids *schema.Identities, elem schema.Node, path *at, quiet bool) *yaml.Node {
	un, dn := deref(u), deref(d)
	const srcO, srcU, srcD = 0, 1, 2 // the sources, as passed to Pair
	if d == nil {
		if missingOrNull(o) && !e.hasNullField(u) {
			return u // the whole list is new upstream
		}
		// New upstream with null fields to drop (as in mergeMap), or deleted locally:
		// each element merged as if dest had none.
		var content []*yaml.Node
		changed := false
		for i, ue := range un.Content {
			oe := ids.Element(srcO, ids.Of(srcU, i))
			child := e.merge(oe, ue, nil, elem, path.key(ids, srcU, i), true)
			if child != nil {
				changed = true
			}
			if oe != nil {
				// Deleted locally: updated's whole list comes back if anything in it
				// changed, never the delta alone.
				child = e.merge(nil, ue, nil, elem, path.key(ids, srcU, i), true)
			}
			if child != nil {
				content = append(content, withKeys(child, ue, l.Keys))
			}
		}
		if missingOrNull(o) {
			if content == nil {
				return nil
			}
			return newSeq(un, content) // new upstream: not a conflict
		}
		if !changed {
			return nil
		}
		return e.conflict(path, DeletedLocally, quiet, o, u, nil, newSeq(un, content), nil)
	}
	keptIDs := make([]int, 0, len(dn.Content))
	kept := make([]*yaml.Node, 0, len(dn.Content))
	present := make([]bool, ids.Len())
	for i, de := range dn.Content {
		id := ids.Of(srcD, i)
		if child := e.merge(ids.Element(srcO, id), ids.Element(srcU, id), de, elem, path.key(ids, srcD, i), quiet); child != nil {
			keptIDs = append(keptIDs, id)
			kept = append(kept, child)
			present[id] = true
		}
	}
	p := placer[int]{late: e.positional}
	for i, ue := range un.Content {
		id := ids.Of(srcU, i)
		if present[id] {
			p.seen(id)
			continue
		}
		if ids.At(srcD, id) >= 0 {
			continue
		}
		if child := e.merge(ids.Element(srcO, id), ue, nil, elem, path.key(ids, srcU, i), quiet); child != nil {
			p.add(withKeys(child, ue, l.Keys))
		}
	}
	// An emptied list stays, empty: dest has the field, and kyaml keeps it too.
	dn, out := e.own(d)
	dn.Content = p.build(keptIDs, kept, 1)
	return withOwnSlots(out, o, u, d)
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
	out := copyShallow(child) // child may be updated's own node: never change it in place
	out.Content = append(missing, cn.Content...)
	return out
}

// mergeSet merges a list of primitives as a set (e.g. metadata.finalizers): elements
// deleted upstream go, elements added upstream come after their predecessor, dest's own
// stay. An emptied set stays as an empty list.
func (e *threeWay) mergeSet(o, u, d *yaml.Node, path *at, quiet bool) *yaml.Node {
	on, un, dn := deref(o), deref(u), deref(d)
	inO := valueSet(on)
	if d == nil {
		if missingOrNull(o) {
			return u
		}
		for _, ue := range un.Content {
			if !inO[setID(ue)] {
				// Deleted locally, an element added upstream: updated's whole set
				// comes back, never the additions alone.
				return e.conflict(path, DeletedLocally, quiet, o, u, nil, u, nil)
			}
		}
		return nil
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
	p := placer[string]{late: e.positional}
	for _, ue := range un.Content {
		id := setID(ue)
		switch {
		case inD[id]:
			p.seen(id)
		case !inO[id]:
			p.add(ue)
		}
	}
	// Dest's elements carry their comments merged 3-way with the same values' upstream.
	if !sameCommentsByValue(on, un) {
		oe, ue := elementsByValue(on), elementsByValue(un)
		for i, de := range kept {
			if u := ue[keptIDs[i]]; u != nil {
				kept[i] = withSlots(de, mergeSlots(oe[keptIDs[i]], u, de))
			}
		}
	}
	// An emptied set stays, empty, as in mergeKeyed.
	dn, out := e.own(d)
	dn.Content = p.build(keptIDs, kept, 1)
	return withOwnSlots(out, o, u, d)
}

// elementsByValue indexes a list of primitives' elements by value (setID); nil for a
// list that is absent.
func elementsByValue(list *yaml.Node) map[string]*yaml.Node {
	if list == nil || list.Kind != yaml.SequenceNode {
		return nil
	}
	m := make(map[string]*yaml.Node, len(list.Content))
	for _, el := range list.Content {
		m[setID(el)] = el
	}
	return m
}

// sameCommentsByValue reports whether every value both sets hold carries the same
// comments in each (elements only one holds are not compared).
func sameCommentsByValue(a, b *yaml.Node) bool {
	if a == nil || a.Kind != yaml.SequenceNode {
		return true
	}
	bi := elementsByValue(b)
	for _, el := range a.Content {
		if o := bi[setID(el)]; o != nil && !sameComments(el, o) {
			return false
		}
	}
	return true
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
