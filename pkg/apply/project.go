package apply

import (
	"sort"

	"github.com/krm-merge/krm-merge/internal/jsonvalue"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The projection writes the patched object (a JSON value, what kubectl apply leaves on
// the server) back onto the live object's YAML, so that a person reading the result
// sees their live file with the apply's changes and nothing else moved:
//
//   - maps keep the live key order and the live key and value nodes (comments, quoting
//     and flow style included) wherever the value is unchanged; keys the patch removed
//     are dropped; new keys go after their nearest predecessor in the config that is
//     present (first when the config has them first), keys the config lacks at the end;
//   - lists take the patched order, which is meaningful (strategicpatch's
//     $setElementOrder), but every element is paired with a live element (by merge key,
//     else by equal value, else by a unique name-like key) so its comments survive;
//   - a value new to the live object is taken from the config's YAML when the config
//     has it (with the config's comments and order), else written fresh;
//   - a changed scalar keeps the live comments when the config's node has none.
//
// The projection only chooses nodes; values always come from the patched object, and
// Apply checks the projected YAML reads back as that same JSON value.

type where int

const (
	atOther where = iota
	atRoot
	atMetadata
	atAnnotations
)

type projector struct {
	ignore func(string) bool
}

// node returns the YAML for value r, built from the live node d and the config node u
// (either may be nil). meta is the patch metadata of the struct that holds r's fields
// (maps) or of the list's elements (lists); nil when unknown.
func (p *projector) node(d, u *yaml.Node, r interface{}, meta strategicpatch.LookupPatchMeta, at where) *yaml.Node {
	d, u = deref(d), deref(u)
	var n *yaml.Node
	switch x := r.(type) {
	case map[string]interface{}:
		n = p.mapping(d, u, x, meta, at)
	case []interface{}:
		// lists are handled by the map that holds them (they need the field's list meta);
		// a list at the root or inside a list is paired by value only
		n = p.sequence(d, u, x, listMeta{elem: meta})
	default:
		n = p.scalar(d, u, x)
	}
	return n
}

// deref follows aliases and document nodes.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && i < maxDepth; i++ {
		switch {
		case n.Kind == yaml.AliasNode:
			n = n.Alias
		case n.Kind == yaml.DocumentNode && len(n.Content) > 0:
			n = n.Content[0]
		default:
			return n
		}
	}
	return n
}

func kindIs(n *yaml.Node, k yaml.Kind) bool { return n != nil && n.Kind == k }

// keepComments gives n the comments of the live node it replaces when n has none.
func keepComments(n, d *yaml.Node) *yaml.Node {
	if d == nil || n.HeadComment != "" || n.LineComment != "" || n.FootComment != "" {
		return n
	}
	n.HeadComment, n.LineComment, n.FootComment = d.HeadComment, d.LineComment, d.FootComment
	return n
}

func (p *projector) scalar(d, u *yaml.Node, r interface{}) *yaml.Node {
	if kindIs(d, yaml.ScalarNode) {
		if v, err := scalarValue(d, nil); err == nil && jsonvalue.Equal(v, r) {
			c := *d
			return &c
		}
	}
	if kindIs(u, yaml.ScalarNode) {
		if v, err := scalarValue(u, nil); err == nil && jsonvalue.Equal(v, r) {
			c := *u
			return keepComments(&c, d)
		}
	}
	return keepComments(fromValue(r), d)
}

// field returns the value node of key in mapping n (nil when absent or n is no map).
func field(n *yaml.Node, key string) *yaml.Node {
	if !kindIs(n, yaml.MappingNode) {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if deref(n.Content[i]).Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func (p *projector) mapping(d, u *yaml.Node, r map[string]interface{}, meta strategicpatch.LookupPatchMeta, at where) *yaml.Node {
	base := d
	if !kindIs(base, yaml.MappingNode) {
		base = nil
		if kindIs(u, yaml.MappingNode) {
			base = u
		}
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: yaml.NodeTagMap}
	if base != nil {
		out.Style, out.HeadComment, out.LineComment, out.FootComment = base.Style, base.HeadComment, base.LineComment, base.FootComment
		if base.Tag != "" {
			out.Tag = base.Tag
		}
	}
	done := map[string]bool{}
	if base != nil {
		for i := 0; i+1 < len(base.Content); i += 2 {
			key := deref(base.Content[i])
			k := key.Value
			if done[k] {
				continue
			}
			v, ok := r[k]
			if !ok {
				if at == atAnnotations && base == d && p.ignore != nil && p.ignore(k) {
					kc, vc := *key, *deref(base.Content[i+1])
					out.Content = append(out.Content, &kc, &vc)
					done[k] = true
				}
				continue
			}
			done[k] = true
			kc := *key
			var val *yaml.Node
			if base == d {
				val = p.child(base.Content[i+1], field(u, k), v, meta, k, at)
			} else { // base is the config itself: there is no live node
				val = p.child(nil, base.Content[i+1], v, meta, k, at)
			}
			out.Content = append(out.Content, &kc, val)
		}
	}
	// keys the live node lacks: in the config's order, after their predecessor there
	var fresh []string
	inConfig := map[string]bool{}
	if kindIs(u, yaml.MappingNode) {
		for i := 0; i+1 < len(u.Content); i += 2 {
			k := deref(u.Content[i]).Value
			inConfig[k] = true
			if _, ok := r[k]; ok && !done[k] {
				fresh = append(fresh, k)
			}
		}
	}
	var rest []string
	for k := range r {
		if !done[k] && !inConfig[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range fresh {
		if done[k] {
			continue
		}
		done[k] = true
		var keyNode *yaml.Node
		for i := 0; i+1 < len(u.Content); i += 2 {
			if deref(u.Content[i]).Value == k {
				c := *deref(u.Content[i])
				keyNode = &c
				break
			}
		}
		val := p.child(nil, field(u, k), r[k], meta, k, at)
		pos := insertPosition(out, u, k)
		out.Content = append(out.Content[:pos], append([]*yaml.Node{keyNode, val}, out.Content[pos:]...)...)
	}
	for _, k := range rest {
		out.Content = append(out.Content, newString(k), p.child(nil, nil, r[k], meta, k, at))
	}
	return out
}

// insertPosition is the index in out.Content where config key k goes: after the
// nearest key preceding k in the config that out has, else first when k is first in
// the config, else at the end.
func insertPosition(out, u *yaml.Node, k string) int {
	idx := -1
	for i := 0; i+1 < len(u.Content); i += 2 {
		if deref(u.Content[i]).Value == k {
			idx = i
			break
		}
	}
	for j := idx - 2; j >= 0; j -= 2 {
		prev := deref(u.Content[j]).Value
		for i := 0; i+1 < len(out.Content); i += 2 {
			if deref(out.Content[i]).Value == prev {
				return i + 2
			}
		}
	}
	if idx == 0 {
		return 0
	}
	return len(out.Content)
}

// child projects the value of field k of a map whose struct schema is meta.
func (p *projector) child(d, u *yaml.Node, v interface{}, meta strategicpatch.LookupPatchMeta, k string, at where) *yaml.Node {
	next := atOther
	switch {
	case at == atRoot && k == "metadata":
		next = atMetadata
	case at == atMetadata && k == "annotations":
		next = atAnnotations
	}
	d, u = deref(d), deref(u)
	var n *yaml.Node
	switch x := v.(type) {
	case []interface{}:
		n = p.sequence(d, u, x, sliceMeta(meta, k))
	case map[string]interface{}:
		n = p.mapping(d, u, x, structMeta(meta, k), next)
	default:
		n = p.scalar(d, u, x)
	}
	return n
}

// sequence projects a list value: the patched order, each element built from a paired
// live element (else a paired config element, else fresh).
func (p *projector) sequence(d, u *yaml.Node, r []interface{}, lm listMeta) *yaml.Node {
	base := d
	if !kindIs(base, yaml.SequenceNode) {
		base = nil
		if kindIs(u, yaml.SequenceNode) {
			base = u
		}
	}
	out := &yaml.Node{Kind: yaml.SequenceNode, Tag: yaml.NodeTagSeq}
	if base != nil {
		out.Style, out.HeadComment, out.LineComment, out.FootComment = base.Style, base.HeadComment, base.LineComment, base.FootComment
		if base.Tag != "" {
			out.Tag = base.Tag
		}
	} else if d != nil {
		keepComments(out, d)
	}
	var fromLive, fromConfig []int
	if base == d && base != nil {
		fromLive = pairElements(base, r, lm.mergeKey)
	}
	if kindIs(u, yaml.SequenceNode) {
		fromConfig = pairElements(u, r, lm.mergeKey)
	}
	for i, v := range r {
		var dn, un *yaml.Node
		if fromLive != nil && fromLive[i] >= 0 {
			dn = base.Content[fromLive[i]]
		}
		if fromConfig != nil && fromConfig[i] >= 0 {
			un = u.Content[fromConfig[i]]
		}
		out.Content = append(out.Content, p.element(dn, un, v, lm.elem))
	}
	return out
}

func (p *projector) element(d, u *yaml.Node, v interface{}, meta strategicpatch.LookupPatchMeta) *yaml.Node {
	d, u = deref(d), deref(u)
	switch x := v.(type) {
	case map[string]interface{}:
		return p.mapping(d, u, x, meta, atOther)
	case []interface{}:
		return p.sequence(d, u, x, listMeta{})
	}
	return p.scalar(d, u, v)
}

// pairElements pairs each value of r with an element of the sequence n: by mergeKey
// when given, then by equal value, then by the first heuristic key that is present and
// unique in both lists. The result holds, per r index, an index into n.Content or -1;
// every element of n is used at most once.
func pairElements(n *yaml.Node, r []interface{}, mergeKey string) []int {
	pair := make([]int, len(r))
	for i := range pair {
		pair[i] = -1
	}
	vals := make([]interface{}, len(n.Content))
	ok := make([]bool, len(n.Content))
	for i, c := range n.Content {
		v, err := toValue(c, nil)
		vals[i], ok[i] = v, err == nil
	}
	used := make([]bool, len(n.Content))
	byKey := func(key string) {
		idx := map[string][]int{}
		for i, v := range vals {
			if m, isMap := v.(map[string]interface{}); isMap && ok[i] && !used[i] {
				if kv, has := m[key]; has {
					t := scalarText(kv)
					idx[t] = append(idx[t], i)
				}
			}
		}
		for j, v := range r {
			if pair[j] >= 0 {
				continue
			}
			m, isMap := v.(map[string]interface{})
			if !isMap {
				continue
			}
			kv, has := m[key]
			if !has {
				continue
			}
			t := scalarText(kv)
			if c := idx[t]; len(c) > 0 {
				pair[j], used[c[0]] = c[0], true
				idx[t] = c[1:]
			}
		}
	}
	if mergeKey != "" {
		byKey(mergeKey)
	}
	// equal values, through their canonical JSON text
	idx := map[string][]int{}
	for i, v := range vals {
		if ok[i] && !used[i] {
			if b, err := toJSON(v); err == nil {
				idx[string(b)] = append(idx[string(b)], i)
			}
		}
	}
	for j, v := range r {
		if pair[j] >= 0 {
			continue
		}
		b, err := toJSON(v)
		if err != nil {
			continue
		}
		if c := idx[string(b)]; len(c) > 0 {
			for len(c) > 0 && used[c[0]] {
				c = c[1:]
			}
			if len(c) > 0 {
				pair[j], used[c[0]] = c[0], true
				idx[string(b)] = c[1:]
			}
		}
	}
	if k := uniqueKey(vals, r); k != "" {
		byKey(k)
	}
	return pair
}

// uniqueKey is the first heuristic key that every map element of both lists carries
// with values unique within each list; "" when none (or when an element is no map).
func uniqueKey(a, b []interface{}) string {
next:
	for _, key := range heuristicKeys {
		for _, list := range [][]interface{}{a, b} {
			seen := map[string]bool{}
			for _, v := range list {
				m, isMap := v.(map[string]interface{})
				if !isMap {
					return ""
				}
				kv, has := m[key]
				if !has {
					continue next
				}
				t := scalarText(kv)
				if seen[t] {
					continue next
				}
				seen[t] = true
			}
		}
		return key
	}
	return ""
}
