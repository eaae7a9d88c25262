package merge

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/bounds"
	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/schema"
)

// Strategic-merge-patch directives a 2-way src may carry (kubectl's strategicpatch,
// kustomize patches). They never appear in the output.
const (
	directivePatch        = "$patch"
	directiveRetainKeys   = "$retainKeys"
	prefixSetElementOrder = "$setElementOrder/"
	prefixDeleteFromList  = "$deleteFromPrimitiveList/"
)

// twoWayShared is the 2-way merge without field rules and without the final copy: its
// output may share the subtrees it takes unchanged with src and dest. Errors: a
// *DirectiveError.
func twoWayShared(src, dest *yaml.RNode, opts Options) (*yaml.RNode, error) {
	e := &twoWay{lists: opts.lists()}
	s, d := ynode(src), ynode(dest)
	if !opts.NullElementFree {
		s, d = withoutNullElements(s), withoutNullElements(d)
	}
	if !opts.AliasFree && (bounds.HasAlias(s) || bounds.HasAlias(d)) {
		// Aliases share nodes inside one input: work on private copies changed in
		// place, as the engine always did for them.
		s, d = copyNode(s), copyNode(d)
		e.inPlace = true
	}
	if !e.inPlace && plainEqual(s, d) {
		return rnode(d), nil // what the merge gives (see plainEqual), without its walk
	}
	sch := e.lists.ForResource(dest, src)
	out, err := e.merge(s, d, sch, nil)
	if err != nil {
		return nil, err
	}
	return rnode(keepFileComments(out, d)), nil
}

type twoWay struct {
	lists *schema.Resolver
	// inPlace: s and d are private copies (inputs with aliases), changed in place.
	inPlace bool
}

// own returns the node to change for d and the node to return in its place (see
// threeWay.own).
func (e *twoWay) own(d *yaml.Node) (target, out *yaml.Node) {
	if e.inPlace || d.Kind != deref(d).Kind {
		return deref(d), d
	}
	c := copyShallow(d)
	return c, c
}

// DirectiveError is a strategic-merge directive in src that cannot be applied.
type DirectiveError struct {
	// Path is the field holding the directive.
	Path fieldpath.Path
	// Msg says what is wrong.
	Msg string
}

// Error is "<path>: <message>" (the message alone for the root), e.g.
// `spec.template: unknown patch strategy "rebuild"; valid: merge, replace, delete`.
func (e *DirectiveError) Error() string {
	if len(e.Path) == 0 {
		return e.Msg
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

func (e *twoWay) merge(s, d *yaml.Node, sch schema.Node, path *at) (*yaml.Node, error) {
	if s == nil {
		return d, nil
	}
	if isNull(s) {
		return nil, nil
	}
	sn, dn := deref(s), deref(d)
	if dn == nil || isNull(dn) {
		return e.clean(sn, sch, path)
	}
	switch {
	case sn.Kind == yaml.MappingNode && dn.Kind == yaml.MappingNode:
		return e.mergeMap(sn, d, sch, path)
	case sn.Kind == yaml.SequenceNode && dn.Kind == yaml.SequenceNode:
		return e.mergeList(sn, d, sch, path)
	}
	if !e.inPlace && s == sn && d == dn && sameScalar(sn, dn) {
		// src's value is taken, and dest's node writes exactly as src's: keep dest's,
		// so that a map or list nothing changed in can stay dest's own, uncopied.
		return d, nil
	}
	return e.clean(sn, sch, path)
}

// sameScalar reports whether scalars a and b are written alike: the same value, tag,
// style, anchor and comments.
func sameScalar(a, b *yaml.Node) bool {
	return a.Kind == yaml.ScalarNode && b.Kind == yaml.ScalarNode && a.Value == b.Value && a.Tag == b.Tag &&
		a.Style == b.Style && a.Anchor == b.Anchor && a.HeadComment == b.HeadComment &&
		a.LineComment == b.LineComment && a.FootComment == b.FootComment
}

// sameNodes reports whether a and b hold the same node pointers.
func sameNodes(a, b []*yaml.Node) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// patchDirective reads a map's `$patch` value: "", "merge", "replace" or "delete".
func patchDirective(m *yaml.Node, path *at) (string, error) {
	v := deref(indexFields(m).value(directivePatch))
	if v == nil {
		return "", nil
	}
	switch v.Value {
	case "merge", "replace", "delete":
		return v.Value, nil
	}
	return "", &DirectiveError{Path: path.path(), Msg: fmt.Sprintf("unknown patch strategy %q; valid: merge, replace, delete", v.Value)}
}

// isDirective reports whether a map key is a directive, not a field.
func isDirective(name string) bool {
	return name == directivePatch || name == directiveRetainKeys ||
		strings.HasPrefix(name, prefixSetElementOrder) || strings.HasPrefix(name, prefixDeleteFromList)
}

// mergeMap merges a src map into a dest map.
func (e *twoWay) mergeMap(sn, d *yaml.Node, sch schema.Node, path *at) (*yaml.Node, error) {
	dir, err := patchDirective(sn, path)
	if err != nil {
		return nil, err
	}
	switch dir {
	case "delete":
		return nil, nil
	case "replace":
		return e.clean(sn, sch, path)
	}
	dn, out := e.own(d)
	dn.Content, err = mergeMapFields(sn, dn, isDirective, func(k, sk, sv, dv *yaml.Node) (*yaml.Node, error) {
		if !e.inPlace && sv != nil && dv != nil && sameScalar(sv, dv) && !isNull(sv) {
			return dv, nil // what merge returns here, without the schema lookup and path link
		}
		var buf [4]*yaml.Node // on the stack: no garbage per field
		pairs := buf[:0]
		if dv != nil {
			pairs = append(pairs, k, dv)
		}
		pairs = append(pairs, sk, sv)
		return e.merge(sv, dv, childSchema(sch, k.Value, pairs...), path.field(k.Value))
	})
	if err != nil {
		return nil, err
	}
	if err := applyMapDirectives(sn, dn, path, e.inPlace); err != nil {
		return nil, err
	}
	if out != d && sameNodes(dn.Content, deref(d).Content) {
		return d, nil // nothing changed: dest's own map, not a copy
	}
	return out, nil
}

// applyMapDirectives applies src's $deleteFromPrimitiveList/<list>,
// $setElementOrder/<list> and $retainKeys to the merged map out, whose content slice
// is its own. A list it changes is copied first unless inPlace (private copies).
func applyMapDirectives(src, out *yaml.Node, path *at, inPlace bool) error {
	for i := 0; i+1 < len(src.Content); i += 2 {
		name, v := src.Content[i].Value, deref(src.Content[i+1])
		switch {
		case strings.HasPrefix(name, prefixDeleteFromList):
			field := strings.TrimPrefix(name, prefixDeleteFromList)
			if v.Kind != yaml.SequenceNode {
				return &DirectiveError{Path: path.path().Field(name), Msg: "must be a list of values"}
			}
			deleteValues(ownField(out, field, inPlace), v)
		case strings.HasPrefix(name, prefixSetElementOrder):
			field := strings.TrimPrefix(name, prefixSetElementOrder)
			if v.Kind != yaml.SequenceNode {
				return &DirectiveError{Path: path.path().Field(name), Msg: "must be a list"}
			}
			setOrder(ownField(out, field, inPlace), v)
		}
	}
	if v := deref(indexFields(src).value(directiveRetainKeys)); v != nil {
		if v.Kind != yaml.SequenceNode {
			return &DirectiveError{Path: path.path().Field(directiveRetainKeys), Msg: "must be a list of field names"}
		}
		retain := map[string]bool{}
		for _, k := range v.Content {
			retain[k.Value] = true
		}
		content := out.Content[:0]
		for i := 0; i+1 < len(out.Content); i += 2 {
			if retain[out.Content[i].Value] {
				content = append(content, out.Content[i], out.Content[i+1])
			}
		}
		out.Content = content
	}
	return nil
}

// ownField returns the list value of field in m (nil when absent or not a list), made
// m's own first: a shallow copy with its own content slice, put in m's place, unless
// inPlace or the value is an alias.
func ownField(m *yaml.Node, field string, inPlace bool) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != field {
			continue
		}
		v := m.Content[i+1]
		list := deref(v)
		if list == nil || list.Kind != yaml.SequenceNode {
			return nil
		}
		if inPlace || v != list {
			return list
		}
		c := *list
		c.Content = append([]*yaml.Node(nil), list.Content...)
		m.Content[i+1] = &c
		return &c
	}
	return nil
}

// deleteValues removes the given scalar values from list (from ownField).
func deleteValues(list *yaml.Node, values *yaml.Node) {
	if list == nil {
		return
	}
	drop := valueSet(values)
	content := list.Content[:0]
	for _, el := range list.Content {
		if !drop[setID(el)] {
			content = append(content, el)
		}
	}
	list.Content = content
}

// setOrder reorders list (from ownField) as `$setElementOrder/<field>` says: the elements
// order names (by value, or by the merge key fields its entries carry) come first in that
// order; the others keep their relative order after them.
func setOrder(list *yaml.Node, order *yaml.Node) {
	if list == nil || len(order.Content) == 0 {
		return
	}
	shape := deref(order.Content[0])
	keyOf := func(n *yaml.Node) string {
		n = deref(n)
		if shape.Kind == yaml.ScalarNode || n.Kind == yaml.ScalarNode {
			if n.Kind != shape.Kind {
				return "\x02"
			}
			return "=" + n.Value
		}
		if n.Kind != yaml.MappingNode || shape.Kind != yaml.MappingNode {
			return "\x02"
		}
		f := indexFields(n)
		var b strings.Builder
		for i := 0; i+1 < len(shape.Content); i += 2 {
			name := shape.Content[i].Value
			b.WriteString(name)
			if v := deref(f.value(name)); v != nil {
				b.WriteString("=" + v.Value)
			}
			b.WriteString("\x01")
		}
		return b.String()
	}
	pos := make(map[string]int, len(order.Content))
	for i, entry := range order.Content {
		pos[keyOf(entry)] = i
	}
	placed := make([]*yaml.Node, len(order.Content))
	var rest []*yaml.Node
	for _, el := range list.Content {
		if i, ok := pos[keyOf(el)]; ok && placed[i] == nil {
			placed[i] = el
			continue
		}
		rest = append(rest, el)
	}
	content := make([]*yaml.Node, 0, len(list.Content))
	for _, el := range placed {
		if el != nil {
			content = append(content, el)
		}
	}
	list.Content = append(content, rest...)
}

// seqDirective finds a sequence-level `{$patch: X}` element (a map holding only $patch)
// and returns X and the list without it.
func seqDirective(sn *yaml.Node, path *at) (string, []*yaml.Node, error) {
	for i, el := range sn.Content {
		el = deref(el)
		if el.Kind != yaml.MappingNode || len(el.Content) != 2 || el.Content[0].Value != directivePatch {
			continue
		}
		dir, err := patchDirective(el, path)
		if err != nil {
			return "", nil, err
		}
		rest := make([]*yaml.Node, 0, len(sn.Content)-1)
		rest = append(rest, sn.Content[:i]...)
		rest = append(rest, sn.Content[i+1:]...)
		return dir, rest, nil
	}
	return "", sn.Content, nil
}

// mergeList merges a src list into a dest list: keyed lists element-wise (dest's order,
// src's new elements appended, as kyaml merge2), sets by value, other lists replaced.
func (e *twoWay) mergeList(sn, d *yaml.Node, sch schema.Node, path *at) (*yaml.Node, error) {
	dir, elems, err := seqDirective(sn, path)
	if err != nil {
		return nil, err
	}
	if len(elems) != len(sn.Content) { // src without the directive: never change src
		c := *sn
		c.Content = elems
		sn = &c
	}
	switch dir {
	case "delete":
		return nil, nil
	case "replace":
		return e.clean(sn, sch, path)
	}
	dn, out := e.own(d)
	l, ids := e.lists.Pair(sch, sn, dn)
	switch l.Type {
	case schema.Map:
		const srcS, srcD = 0, 1 // the sources, as passed to Pair
		elem := sch.Elements()
		content := make([]*yaml.Node, 0, len(dn.Content)+len(sn.Content))
		for i, de := range dn.Content {
			se := ids.Element(srcS, ids.Of(srcD, i))
			child, err := e.merge(se, de, elem, path.key(ids, srcD, i))
			if err != nil {
				return nil, err
			}
			if child != nil {
				content = append(content, child)
			}
		}
		for i, se := range sn.Content {
			if ids.At(srcD, ids.Of(srcS, i)) >= 0 {
				continue
			}
			child, err := e.merge(se, nil, elem, path.key(ids, srcS, i))
			if err != nil {
				return nil, err
			}
			if child != nil {
				content = append(content, child)
			}
		}
		dn.Content = content
	case schema.Set:
		inD := valueSet(dn)
		if !e.inPlace {
			dn.Content = append([]*yaml.Node(nil), dn.Content...)
		}
		for _, se := range sn.Content {
			if !inD[setID(se)] {
				dn.Content = append(dn.Content, se)
				inD[setID(se)] = true
			}
		}
	default:
		return e.clean(sn, sch, path)
	}
	if out != d && sameNodes(dn.Content, deref(d).Content) {
		return d, nil // nothing changed: dest's own list, not a copy
	}
	// A list whose elements src all deleted stays as an empty list, as in kyaml merge2
	// and in the 3-way merge.
	return out, nil
}

// clean returns src as it stands where dest has nothing: directives applied to an empty
// dest and removed (a map with `$patch: delete` is nil, elements with it are dropped),
// and null fields dropped (a `null` in src clears, as kyaml merge2 does).
func (e *twoWay) clean(sn *yaml.Node, sch schema.Node, path *at) (*yaml.Node, error) {
	return e.cleanNulls(sn, sch, path, false)
}

// cleanNulls is clean; keepNulls keeps null fields, inside an atomic list: such a list is
// src's value verbatim, its nulls are data (kyaml merge2 copies it whole too).
func (e *twoWay) cleanNulls(sn *yaml.Node, sch schema.Node, path *at, keepNulls bool) (*yaml.Node, error) {
	switch sn.Kind {
	case yaml.MappingNode:
		dir, err := patchDirective(sn, path)
		if err != nil {
			return nil, err
		}
		if dir == "delete" {
			return nil, nil
		}
		content := make([]*yaml.Node, 0, len(sn.Content))
		for i := 0; i+1 < len(sn.Content); i += 2 {
			k, v := sn.Content[i], sn.Content[i+1]
			if isDirective(k.Value) {
				continue
			}
			if isNull(v) && !keepNulls { // `null` in src clears: it adds nothing where dest has nothing
				continue
			}
			child, err := e.cleanNulls(deref(v), childSchema(sch, k.Value, k, v), path.field(k.Value), keepNulls)
			if err != nil {
				return nil, err
			}
			if child != nil {
				content = append(content, k, child)
			}
		}
		out := *sn
		out.Content = content
		if err := applyMapDirectives(sn, &out, path, true); err != nil { // out and its lists are fresh copies
			return nil, err
		}
		return &out, nil
	case yaml.SequenceNode:
		dir, elems, err := seqDirective(sn, path)
		if err != nil {
			return nil, err
		}
		if dir == "delete" {
			return nil, nil
		}
		elem := sch.Elements()
		if !keepNulls {
			keepNulls = e.lists.Decide(sch, &yaml.Node{Kind: yaml.SequenceNode, Content: elems}).Type != schema.Map
		}
		content := make([]*yaml.Node, 0, len(elems))
		for i, el := range elems {
			child, err := e.cleanNulls(deref(el), elem, path.index(i), keepNulls)
			if err != nil {
				return nil, err
			}
			if child != nil {
				content = append(content, child)
			}
		}
		out := *sn
		out.Content = content
		return &out, nil
	}
	return sn, nil
}
