package merge

import (
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/schema"
)

// Comments merge 3-way (docs/merge-semantics.md, "Comments"): each comment of a node
// (head, line, foot) on its own, whatever happened to the value. A comment upstream
// added, changed or removed between original and updated arrives in dest, unless dest
// changed that comment itself: then dest's stays, and no conflict is reported. Where
// updated's value is taken, its comments come with it unless dest changed them. This is
// how kpt setters (`# kpt-set: ${image}`) and kpt's `# {"$openapi": ...}` markers that
// upstream adds reach a local copy whose value is unchanged (kyaml's merge3 propagates
// them only where dest's value equals original's).
//
// Nodes are paired as the value merge pairs them: map fields (keys and values) by name,
// keyed list elements by merge key, set elements by value; elements of an atomic list
// by value (scalars) or by position where the values are equal, so a comment never moves
// onto another element.

// keepFileComments returns out, a merged item, with dest's comments where a file's own
// comments sit: the head and foot comments of the item's root map and the head comment
// of its first field. Those hold a license header or a comment between documents (when no
// blank line separates it from the item, the parser puts it there; with a blank line it
// is on the document, which a host such as kpt withholds from the function and restores
// by id), so they are the file's, not the item's, and are never merged: a header that
// upstream moved from the document onto the first field would otherwise be added twice.
// When a new field goes first, dest's first-field comment moves up to it. out is changed
// only where it is not d (the merge's own nodes are copies); d is never changed.
func keepFileComments(out, d *yaml.Node) *yaml.Node {
	on, dn := deref(out), deref(d)
	if on == nil || dn == nil || on.Kind != yaml.MappingNode || dn.Kind != yaml.MappingNode || on == dn {
		return out
	}
	if on.HeadComment != dn.HeadComment || on.FootComment != dn.FootComment {
		c := *on
		c.HeadComment, c.FootComment = dn.HeadComment, dn.FootComment
		on, out = &c, &c
	}
	if len(on.Content) == 0 || len(dn.Content) == 0 {
		return out
	}
	first, dfirst := on.Content[0], dn.Content[0]
	var content []*yaml.Node
	set := func(i int, head string) {
		if on.Content[i].HeadComment == head {
			return
		}
		if content == nil {
			content = append([]*yaml.Node(nil), on.Content...)
		}
		k := *on.Content[i]
		k.HeadComment = head
		content[i] = &k
	}
	set(0, dfirst.HeadComment)
	if first.Value != dfirst.Value {
		for i := 2; i+1 < len(on.Content); i += 2 {
			if on.Content[i].Value == dfirst.Value {
				set(i, "")
				break
			}
		}
	}
	if content == nil {
		return out
	}
	if on == deref(out) && out == on {
		c := *on
		on, out = &c, &c
	}
	on.Content = content
	return out
}

// commentSlots are the three comments of a node.
type commentSlots struct{ head, line, foot string }

func slotsOf(n *yaml.Node) commentSlots {
	if n == nil {
		return commentSlots{}
	}
	return commentSlots{n.HeadComment, n.LineComment, n.FootComment}
}

// mergeSlots returns the comments of the output node whose counterparts are o, u and d
// (nil where a source lacks the node): per slot, dest's when dest changed it from
// original's, else updated's. A node only one side has keeps that side's comments.
func mergeSlots(o, u, d *yaml.Node) commentSlots {
	switch {
	case d == nil:
		return slotsOf(u)
	case u == nil:
		return slotsOf(d)
	}
	os, us, ds := slotsOf(o), slotsOf(u), slotsOf(d)
	pick := func(o, u, d string) string {
		if d != o {
			return d
		}
		return u
	}
	return commentSlots{pick(os.head, us.head, ds.head), pick(os.line, us.line, ds.line), pick(os.foot, us.foot, ds.foot)}
}

// withSlots returns n with comments s: n itself when it has them, else a shallow copy
// (n is never changed).
func withSlots(n *yaml.Node, s commentSlots) *yaml.Node {
	if n == nil || slotsOf(n) == s {
		return n
	}
	c := *n
	c.HeadComment, c.LineComment, c.FootComment = s.head, s.line, s.foot
	return &c
}

// fieldLine returns the key and value of a map field whose value is a scalar with the
// field's line comment merged 3-way as one slot: `key: value # c` is parsed with the
// comment on the key or on the value depending on the value's shape (on the key for an
// empty value), so the two line comments are one comment of the field. k and v are the
// output's key and value; ok/ov, uk/uv and dk/dv their counterparts (nil where a source
// lacks the field). When the output's line differs from the merged one, it is put on the
// value (copies; nothing is changed in place). Fields whose value is not a scalar are
// returned as they are.
func fieldLine(ok, ov, uk, uv, dk, dv, k, v *yaml.Node) (*yaml.Node, *yaml.Node) {
	if k == nil || v == nil || v.Kind != yaml.ScalarNode {
		return k, v
	}
	line := func(k, v *yaml.Node) string {
		if k == nil {
			return ""
		}
		s := k.LineComment
		if v != nil && v.Kind == yaml.ScalarNode {
			s += v.LineComment
		}
		return s
	}
	var want string
	switch {
	case dk == nil:
		want = line(uk, uv)
	case uk == nil:
		want = line(dk, dv)
	default:
		o, u, d := line(ok, ov), line(uk, uv), line(dk, dv)
		want = u
		if d != o {
			want = d
		}
	}
	if line(k, v) == want {
		return k, v
	}
	if k.LineComment != "" {
		c := *k
		c.LineComment = ""
		k = &c
	}
	c := *v
	c.LineComment = want
	return k, &c
}

// Sources of blend's base: the side whose value the output keeps.
const (
	fromU = 1
	fromD = 2
)

// blend returns base, the value the merge keeps at this place (updated's node u with
// from fromU, dest's node d with fromD), with the comments of every node below it merged
// 3-way against its counterparts in o, u and d (mergeSlots). Only nodes whose comments
// change are copied; base itself is returned when none does. Nodes reached through a
// YAML alias keep their comments (an anchored node is shared, so it cannot differ per
// use).
func (e *threeWay) blend(o, u, d *yaml.Node, from int, sch schema.Node) *yaml.Node {
	base := u
	if from == fromD {
		base = d
	}
	if base == nil {
		return nil
	}
	out := withSlots(base, mergeSlots(o, u, d))
	if base.Kind == yaml.AliasNode {
		return out
	}
	on, un, dn, bn := deref(o), deref(u), deref(d), deref(base)
	var content []*yaml.Node // a copy of bn.Content, made at the first change
	set := func(i int, n *yaml.Node) {
		if n == bn.Content[i] {
			return
		}
		if content == nil {
			content = append([]*yaml.Node(nil), bn.Content...)
		}
		content[i] = n
	}
	switch bn.Kind {
	case yaml.MappingNode:
		of, uf, df := indexFields(on), indexFields(un), indexFields(dn)
		for i := 0; i+1 < len(bn.Content); i += 2 {
			name := bn.Content[i].Value
			ok, ov := of.get(name)
			uk, uv := uf.get(name)
			dk, dv := df.get(name)
			nk := withSlots(bn.Content[i], mergeSlots(ok, uk, dk))
			nv := e.blend(ov, uv, dv, from, childSchema(sch, name, uk, uv, dk, dv, ok, ov))
			nk, nv = fieldLine(ok, ov, uk, uv, dk, dv, nk, nv)
			set(i, nk)
			set(i+1, nv)
		}
	case yaml.SequenceNode:
		counterparts := pairElements(e.lists, [3]*yaml.Node{on, un, dn}, from, sch)
		for i, el := range bn.Content {
			c := counterparts[i]
			c[from] = el
			set(i, e.blend(c[0], c[1], c[2], from, sch.Elements()))
		}
	}
	if content == nil {
		return out
	}
	if out == base {
		out = copyShallow(base)
	}
	out.Content = content
	return out
}

// pairElements returns, for each element of the list srcs[from] (fromU: u, fromD: d),
// its counterparts in srcs (o, u and d at index 0, 1, 2; nil where a source lacks it), paired
// as the merge pairs them: by merge key in a keyed list, by value in a set; in an atomic
// list a scalar pairs with the same occurrence of its value, any other element with the
// element at its position when the two are equal.
func pairElements(r *schema.Resolver, srcs [3]*yaml.Node, from int, sch schema.Node) [][3]*yaml.Node {
	lists := [3]*yaml.Node{seqOrNil(srcs[0]), seqOrNil(srcs[1]), seqOrNil(srcs[2])}
	base := lists[from]
	out := make([][3]*yaml.Node, len(base.Content))
	l, ids := r.Pair(sch, lists[0], lists[1], lists[2])
	if l.Type == schema.Map && ids != nil {
		for i := range base.Content {
			id := ids.Of(from, i)
			for s := 0; s < 3; s++ {
				out[i][s] = ids.Element(s, id)
			}
		}
		return out
	}
	for s := 0; s < 3; s++ {
		if s == from || lists[s] == nil {
			continue
		}
		// occurrence of each scalar value in the other list
		other := lists[s]
		byValue := map[string][]*yaml.Node{}
		for _, el := range other.Content {
			if n := deref(el); n != nil && n.Kind == yaml.ScalarNode {
				k := n.ShortTag() + "\x00" + n.Value
				byValue[k] = append(byValue[k], el)
			}
		}
		for i, el := range base.Content {
			n := deref(el)
			if n != nil && n.Kind == yaml.ScalarNode {
				k := n.ShortTag() + "\x00" + n.Value
				if q := byValue[k]; len(q) > 0 {
					out[i][s], byValue[k] = q[0], q[1:]
				}
				continue
			}
			if i < len(other.Content) && equal(el, other.Content[i]) {
				out[i][s] = other.Content[i]
			}
		}
	}
	return out
}

// seqOrNil returns n when it is a sequence node, else nil.
func seqOrNil(n *yaml.Node) *yaml.Node {
	if n != nil && n.Kind == yaml.SequenceNode {
		return n
	}
	return nil
}

// RestoreComments returns out with each empty comment slot (head, line, foot) of each
// node filled from the node's counterpart in in, nodes paired as the merge pairs them
// (map fields and keys by name, keyed list elements by merge key, set elements by
// value, atomic list elements by value or, equal, by position; lists decided by lists,
// nil meaning the default associative keys only). This is what a host that copies an input item's
// comments onto the function's output item (kyaml's comments.CopyComments, which kpt
// and kustomize run by the config.k8s.io/id annotation) would do if it paired nodes as
// the merge does; pkg/resources/internal/host compares the two to find where the host's own pairing
// would move a comment onto another node. Neither input is changed; out itself is
// returned when nothing is filled. nil in or out gives out.
func RestoreComments(in, out *yaml.RNode, lists *schema.Resolver) *yaml.RNode {
	if in.IsNil() || out.IsNil() {
		return out
	}
	if lists == nil {
		lists = Options{}.lists()
	}
	sch := lists.ForResource(out, in)
	r := restore(lists, in.YNode(), out.YNode(), sch)
	if r == out.YNode() {
		return out
	}
	return yaml.NewRNode(r)
}

// restore is RestoreComments on nodes.
func restore(lists *schema.Resolver, in, out *yaml.Node, sch schema.Node) *yaml.Node {
	if out == nil || in == nil || out.Kind == yaml.AliasNode {
		return out
	}
	fill := func(have, from string) string {
		if have == "" {
			return from
		}
		return have
	}
	hs, is := slotsOf(out), slotsOf(in)
	res := withSlots(out, commentSlots{fill(hs.head, is.head), fill(hs.line, is.line), fill(hs.foot, is.foot)})
	on, inn := deref(out), deref(in)
	if on == nil || inn == nil || on.Kind != inn.Kind {
		return res
	}
	var content []*yaml.Node
	set := func(i int, n *yaml.Node) {
		if n == on.Content[i] {
			return
		}
		if content == nil {
			content = append([]*yaml.Node(nil), on.Content...)
		}
		content[i] = n
	}
	switch on.Kind {
	case yaml.MappingNode:
		f := indexFields(inn)
		for i := 0; i+1 < len(on.Content); i += 2 {
			name := on.Content[i].Value
			k, v := f.get(name)
			set(i, restore(lists, k, on.Content[i], schema.Node{}))
			set(i+1, restore(lists, v, on.Content[i+1], childSchema(sch, name, on.Content[i], on.Content[i+1], k, v)))
		}
	case yaml.SequenceNode:
		pairs := pairElements(lists, [3]*yaml.Node{nil, on, inn}, fromU, sch)
		for i := range on.Content {
			set(i, restore(lists, pairs[i][fromD], on.Content[i], sch.Elements()))
		}
	}
	if content == nil {
		return res
	}
	if res == out {
		res = copyShallow(out)
	}
	res.Content = content
	return res
}

// trail is the trailing comment of a map or list in one source and the depth it sits at
// (see trailPath).
type trail struct {
	text  string
	depth int
}

// trails are the trailing comments of a map or list in original, updated and dest.
type trails struct{ o, u, d trail }

// trailAt returns the index in n's content of the entry whose foot comment is n's
// trailing comment: a list's last element, a map's last key (where the parser puts a
// comment that follows the collection with no blank line); -1 when n is no map or list
// or is empty.
func trailAt(n *yaml.Node) int {
	switch {
	case n == nil:
	case n.Kind == yaml.SequenceNode && len(n.Content) > 0:
		return len(n.Content) - 1
	case n.Kind == yaml.MappingNode && len(n.Content) > 1:
		return len(n.Content) - 2
	}
	return -1
}

// lastKeyOf returns the index of the last key of el when el is a map that is neither an
// alias nor anchored, else -1.
func lastKeyOf(el *yaml.Node) int {
	if el.Kind != yaml.MappingNode || el.Anchor != "" {
		return -1
	}
	return trailAt(el)
}

// cutTrail returns n without its trailing comment (copies along the way; n is never
// changed) and that comment. The trailing comment is the foot comment of n's last entry
// (depth 0) or, in a list whose last element is a map, of that map's last key (depth 1:
// a comment indented to the element's fields). It belongs to the collection, not to the
// entry that happens to be last: merged as one slot of the collection (cutTrails,
// putTrail), a comment that follows a list both sides appended to appears once, at the
// end, not after each side's new last entry. n is returned as it is when it has none, or
// a node to copy is anchored (an alias refers to that very node).
func cutTrail(n *yaml.Node) (*yaml.Node, trail) {
	i := trailAt(n)
	if i < 0 || n.Anchor != "" || n.Content[i].Anchor != "" {
		return n, trail{}
	}
	h := *n.Content[i]
	var t trail
	switch j := lastKeyOf(&h); {
	case h.FootComment != "":
		t.text, h.FootComment = h.FootComment, ""
	case n.Kind == yaml.SequenceNode && j >= 0 && h.Content[j].FootComment != "" && h.Content[j].Anchor == "":
		k := *h.Content[j]
		t = trail{k.FootComment, 1}
		k.FootComment = ""
		h.Content = append([]*yaml.Node(nil), h.Content...)
		h.Content[j] = &k
	default:
		return n, trail{}
	}
	c := *n
	c.Content = append([]*yaml.Node(nil), n.Content...)
	c.Content[i] = &h
	return &c, t
}

// cutTrails is cutTrail on a map or list's three sources, before their entries are merged.
func (*threeWay) cutTrails(o, u, d *yaml.Node) (co, cu, cd *yaml.Node, t trails) {
	co, t.o = cutTrail(o)
	cu, t.u = cutTrail(u)
	cd, t.d = cutTrail(d)
	return co, cu, cd, t
}

// putTrail returns out, a merged map or list the merge owns, with the trailing comment
// merged 3-way as one slot (dest's when dest changed it from original's, else updated's)
// at the end of its last entry, at the depth that side had it (a map element's last key
// when it had it there and out's last element is a map, else the last entry), after any
// foot comment that node has of its own. Nodes on the way are copied; out is changed in
// place. out itself when there is none to put or out is empty (the comment goes with
// the entries).
func putTrail(out *yaml.Node, t trails) *yaml.Node {
	c := t.u
	if t.d.text != t.o.text {
		c = t.d
	}
	on := deref(out)
	i := trailAt(on)
	if c.text == "" || i < 0 {
		return out
	}
	h := *on.Content[i]
	foot := &h.FootComment
	if j := lastKeyOf(&h); c.depth == 1 && j >= 0 && h.Content[j].Anchor == "" && h.Anchor == "" {
		k := *h.Content[j]
		h.Content = append([]*yaml.Node(nil), h.Content...)
		h.Content[j] = &k
		foot = &k.FootComment
	}
	if *foot != "" {
		c.text = *foot + "\n" + c.text
	}
	*foot = c.text
	on.Content[i] = &h
	return out
}
