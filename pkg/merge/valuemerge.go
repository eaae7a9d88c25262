package merge

import (
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/render"
	"github.com/krm-merge/krm-merge/internal/textmerge"
	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Merging inside a value (docs/merge-semantics.md, "Merging inside a value"): with
// Options.ValueMerge, a value that original, updated and dest hold three different
// ways is merged part by part before it is called a conflict, where it is one of:
//
//   - an image reference: a string field named `image` whose three values all parse as
//     image references (github.com/distribution/reference); parts: the repository
//     (compared by its normalized name, written as the side it comes from writes it),
//     the tag and the digest (one part, "tag and digest", where both differ among the
//     three: a digest pins the content a tag names);
//   - an image reference found by its value (image.go, foundImages): any other
//     single-line string, an element of an atomic list or a line of a multi-line
//     string whose three versions differ in one token, three references of one image
//     (the same image name, a tag or digest on each, a registry host or a digest on
//     one); the token is merged as above, the rest is common. In a list or a text, a
//     conflicting run whose sides hold as many elements or lines is merged position by
//     position where every position both sides changed is such a reference (parts
//     marked Part.Within); otherwise the run stays one conflict;
//   - an atomic list (a list no merge key or set pairs): runs of elements compared as
//     whole values (MergeSeq, git merge-file's rules: changes to adjacent elements
//     overlap);
//   - a multi-line string: lines, by the same rules (git merge-file).
//
// Each part is taken 3-way: the side that changed it, or both alike; a part both sides
// changed differently is a Conflict carrying the Part, decided by the winner for that
// part alone, while the other parts still merge. The merged value keeps dest's node
// (style, tag, comments merged 3-way as elsewhere); list elements dest kept keep dest's
// comments (with upstream's comment changes where nobody changed the element), elements
// taken from updated come with updated's. Anything else (a kind change, a tag other than
// !!str on a string, an alias or anchor in any of the three, original absent) stays
// atomic: today's rule, one conflict.

// ValueKind says which kind of value a ValueMerge merged.
type ValueKind string

const (
	// ImageValue is an image reference: a string field named image, or a single-line
	// string elsewhere whose three versions differ in one reference of one image.
	ImageValue ValueKind = "image reference"
	// ListValue is an atomic list.
	ListValue ValueKind = "list"
	// TextValue is a multi-line string.
	TextValue ValueKind = "multi-line string"
)

// ValueMerge is a value that original, updated and dest hold three different ways and
// that the 3-way merge merged inside (Options.ValueMerge), at Path.
type ValueMerge struct {
	// Path is where the value is, from the resource root.
	Path fieldpath.Path
	// Kind is the kind of value.
	Kind ValueKind
	// Original, Updated and Dest are the three values; Merged is the value the output
	// holds (every conflicting part decided by the winner).
	Original, Updated, Dest, Merged *yaml.RNode
	// Parts are the parts either side changed, in order (an image's repository, then
	// its tag and digest; elements and lines in dest's order). The conflicting ones are
	// also reported as Conflicts, with their Part.
	Parts []Part
}

// Conflicts counts the parts both sides changed differently.
func (v ValueMerge) Conflicts() int {
	n := 0
	for _, p := range v.Parts {
		if p.Change == ChangedBoth {
			n++
		}
	}
	return n
}

// mergeInside merges o, u and d, a value all three hold differently, part by part when
// it is one of the kinds above; ok is false when it is not (the caller then decides it
// whole). It records the conflicting parts (decided by the winner) and the ValueMerge.
func (e *threeWay) mergeInside(o, u, d *yaml.Node, sch schema.Node, path *at) (out *yaml.Node, ok bool) {
	if o == nil || !plainTree(o) || !plainTree(u) || !plainTree(d) {
		return nil, false
	}
	on, un, dn := deref(o), deref(u), deref(d)
	if on.Kind != un.Kind || on.Kind != dn.Kind {
		return nil, false
	}
	var kind ValueKind
	var parts []Part
	switch on.Kind {
	case yaml.ScalarNode:
		if !isString(on) || !isString(un) || !isString(dn) {
			return nil, false
		}
		var value string
		if path != nil && path.kind == fieldpath.Field && path.name == "image" {
			value, parts, ok = e.mergeImage(on.Value, un.Value, dn.Value)
			kind = ImageValue
		}
		if !ok && !multiLine(on.Value) && !multiLine(un.Value) && !multiLine(dn.Value) {
			value, parts, ok = e.mergeFoundImage(on.Value, un.Value, dn.Value)
			kind = ImageValue
		}
		if !ok && (multiLine(on.Value) || multiLine(un.Value) || multiLine(dn.Value)) {
			value, parts = e.mergeLines(on.Value, un.Value, dn.Value)
			kind, ok = TextValue, true
		}
		if !ok {
			return nil, false
		}
		c := *dn
		c.Value = value
		out = withSlots(&c, mergeSlots(o, u, d))
	case yaml.SequenceNode:
		out, parts = e.mergeList(on, un, dn, sch)
		kind = ListValue
	default:
		return nil, false
	}
	if len(parts) == 0 {
		return out, true
	}
	p := path.path()
	merged := rnode(copyNode(out))
	orig, upd, dst := rnode(copyNode(o)), rnode(copyNode(u)), rnode(copyNode(d))
	winner := e.winner
	for i := range parts {
		if parts[i].Change == ChangedBoth {
			part := parts[i]
			e.conflicts = append(e.conflicts, Conflict{Path: p, Kind: BothChanged, Winner: winner,
				Original: orig, Updated: upd, Dest: dst, Part: &part, Merged: merged})
		}
	}
	e.valueMerges = append(e.valueMerges, ValueMerge{Path: p, Kind: kind,
		Original: orig, Updated: upd, Dest: dst, Merged: merged, Parts: parts})
	return out, true
}

// isString reports whether a scalar is a string (tag !!str, however written).
func isString(n *yaml.Node) bool { return n.ShortTag() == yaml.NodeTagString }

// multiLine reports whether s holds two lines or more: a line break before its last
// character.
func multiLine(s string) bool {
	i := strings.IndexByte(s, '\n')
	return i >= 0 && i < len(s)-1
}

// plainTree reports whether n holds no alias and no anchor at any depth: a value merged
// inside must not share nodes with other places of its resource (a changed anchored
// value would change every alias of it).
func plainTree(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return false
	}
	for _, c := range n.Content {
		if !plainTree(c) {
			return false
		}
	}
	return true
}

// pick returns the side of a conflict (or of a conflicting part) the winner takes
// (Options.Winner): original's, dest's, else updated's.
func pick[T any](e *threeWay, o, u, d T) T {
	switch e.winner {
	case vocab.Dest:
		return d
	case vocab.Original:
		return o
	}
	return u
}

// partChange maps a region of a sequence merge to who changed it.
func partChange(k textmerge.RegionKind) PartChange {
	switch k {
	case textmerge.UpdatedChanged:
		return ChangedUpstream
	case textmerge.DestChanged:
		return ChangedLocally
	case textmerge.SameChange:
		return ChangedAlike
	}
	return ChangedBoth
}

// span converts a textmerge span.
func span(s textmerge.Span) Span { return Span{Start: s.Start, Len: s.Len} }

// mergeList merges three atomic lists by runs of elements (MergeSeq over the elements'
// value ids). Output: dest's list node (copied) holding, in dest's order, the
// elements nobody changed (dest's, with comments merged 3-way), dest's changed runs,
// updated's changed runs, and each conflicting run as the winner decides it.
func (e *threeWay) mergeList(o, u, d *yaml.Node, sch schema.Node) (*yaml.Node, []Part) {
	in := valueIDs{}
	oc, uc, dc := o.Content, u.Content, d.Content
	oid, uid, did := in.all(oc), in.all(uc), in.all(dc)
	regions := textmerge.MergeSeq(oid, did, uid)
	elem := sch.Elements()
	content := make([]*yaml.Node, 0, max(len(dc)+len(uc)-len(oc), len(dc)))
	var parts []Part
	b, di, ui := 0, 0, 0
	for _, r := range regions {
		for k := 0; k < r.Dest.Start-di; k++ {
			content = append(content, e.blend(oc[b+k], uc[ui+k], dc[di+k], fromD, elem))
		}
		ds, us, bs := dc[r.Dest.Start:r.Dest.End()], uc[r.Updated.Start:r.Updated.End()], oc[r.Base.Start:r.Base.End()]
		switch r.Kind {
		case textmerge.UpdatedChanged:
			content = append(content, us...)
		case textmerge.DestChanged:
			content = append(content, ds...)
		case textmerge.SameChange:
			for k, de := range ds {
				content = append(content, e.blend(nil, us[k], de, fromD, elem))
			}
		default:
			if els, ps, ok := e.mergeFoundElements(r, oc, uc, dc, oid, uid, did, sch); ok {
				content = append(content, els...)
				parts = append(parts, ps...)
				b, di, ui = r.Base.End(), r.Dest.End(), r.Updated.End()
				continue
			}
			content = append(content, pick(e, bs, us, ds)...)
		}
		parts = append(parts, Part{Kind: ElementsPart, Change: partChange(r.Kind),
			OriginalAt: span(r.Base), UpdatedAt: span(r.Updated), DestAt: span(r.Dest),
			Original: flowList(bs), Updated: flowList(us), Dest: flowList(ds)})
		b, di, ui = r.Base.End(), r.Dest.End(), r.Updated.End()
	}
	for k := 0; k < len(dc)-di; k++ {
		content = append(content, e.blend(oc[b+k], uc[ui+k], dc[di+k], fromD, elem))
	}
	target, out := e.own(d)
	target.Content = content
	return withOwnSlots(out, o, u, d), parts
}

// flowList renders a run of elements on one line, as a YAML flow list: "[a, b]", maps
// and lists inside in flow style ("[{name: a, value: 1}]"), scalars as their text,
// comments left out.
func flowList(els []*yaml.Node) string {
	s := make([]string, len(els))
	for i, el := range els {
		s[i] = flowText(el)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// flowText renders one value on one line: a scalar's text; a map or list in YAML flow
// style, without comments.
func flowText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	c := yaml.CopyYNode(n)
	var flow func(n *yaml.Node)
	flow = func(n *yaml.Node) {
		n.HeadComment, n.LineComment, n.FootComment = "", "", ""
		if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
			n.Style |= yaml.FlowStyle
		}
		if n.Kind == yaml.ScalarNode && n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			n.Style = yaml.DoubleQuotedStyle
		}
		for _, k := range n.Content {
			flow(k)
		}
	}
	flow(c)
	return render.Render(rnode(c), render.Whole)
}

// mergeLines merges three strings by lines (textmerge.MergeLines, as textmerge.Merge
// and git merge-file do). Output: the merged text, each conflicting run of
// lines as the winner decides it, and the parts.
func (e *threeWay) mergeLines(o, u, d string) (string, []Part) {
	ml := textmerge.MergeLines([]byte(o), []byte(d), []byte(u))
	lo, ld, lu, regions := ml.Base, ml.Dest, ml.Updated, ml.Regions
	var b strings.Builder
	write := func(lines [][]byte) {
		for _, l := range lines {
			b.Write(l)
		}
	}
	join := func(lines [][]byte) string {
		var s strings.Builder
		for _, l := range lines {
			s.Write(l)
		}
		return s.String()
	}
	var parts []Part
	line := 0
	for _, r := range regions {
		write(ld[line:r.Dest.Start])
		line = r.Dest.End()
		ds, us, bs := ld[r.Dest.Start:r.Dest.End()], lu[r.Updated.Start:r.Updated.End()], lo[r.Base.Start:r.Base.End()]
		switch r.Kind {
		case textmerge.UpdatedChanged:
			write(us)
		case textmerge.Conflicting:
			if m, ps, ok := e.mergeFoundLines(r, bs, us, ds); ok {
				b.WriteString(m)
				parts = append(parts, ps...)
				continue
			}
			write(pick(e, bs, us, ds))
		default:
			write(ds)
		}
		parts = append(parts, Part{Kind: LinesPart, Change: partChange(r.Kind),
			OriginalAt: span(r.Base), UpdatedAt: span(r.Updated), DestAt: span(r.Dest),
			Original: join(bs), Updated: join(us), Dest: join(ds)})
	}
	write(ld[line:])
	return b.String(), parts
}

// valueIDs numbers values so that two values get one id exactly when equal says they
// are equal (scalars by tag and value, every null alike; maps by field name in any
// order; lists in order): each node's id is interned from its kind and its children's
// ids, memoised per node, so numbering a tree costs its size.
type valueIDs struct {
	ids  map[string]int
	memo map[*yaml.Node]int
}

// all returns the ids of nodes.
func (v *valueIDs) all(nodes []*yaml.Node) []int {
	out := make([]int, len(nodes))
	for i, n := range nodes {
		out[i] = v.id(n)
	}
	return out
}

// id returns the id of n's value.
func (v *valueIDs) id(n *yaml.Node) int {
	n = deref(n)
	if id, ok := v.memo[n]; ok {
		return id
	}
	var key []byte
	switch {
	case n == nil:
		key = []byte{'-'}
	case n.Kind == yaml.ScalarNode && isNull(n):
		key = []byte{'~'}
	case n.Kind == yaml.ScalarNode:
		key = fmt.Appendf(nil, "s%d:%s%s", len(n.ShortTag()), n.ShortTag(), n.Value)
	case n.Kind == yaml.SequenceNode:
		key = []byte{'['}
		for _, c := range n.Content {
			key = fmt.Appendf(key, "%d,", v.id(c))
		}
	case n.Kind == yaml.MappingNode:
		fields := make([]string, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			fields = append(fields, fmt.Sprintf("%d:%s%d,", len(k), k, v.id(n.Content[i+1])))
		}
		sort.Strings(fields)
		key = []byte{'{'}
		for _, f := range fields {
			key = append(key, f...)
		}
	default:
		key = []byte{'?'}
	}
	if v.ids == nil {
		v.ids, v.memo = map[string]int{}, map[*yaml.Node]int{}
	}
	id, ok := v.ids[string(key)]
	if !ok {
		id = len(v.ids)
		v.ids[string(key)] = id
	}
	v.memo[n] = id
	return id
}
