package merge

import "sigs.k8s.io/kustomize/kyaml/yaml"

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
// that is present in the output, else at the end (docs/merge-semantics.md, "Element order"), or
// with front set (map fields) at the start, where the source has it.
// Feed it the source's entries in order: seen for those that stay in the output, add for
// new ones. K names an entry: a field name, a set value, a keyed element's identity.
//
// With late set (Options.KeepDestPositions), each new entry
// goes instead right before its nearest successor in the source that is present in the
// output, else at the end: as late as the source's order allows, so that dest's entries
// keep their positions wherever that order lets them.
type placer[K comparable] struct {
	front    bool
	late     bool
	after    map[K][][]*yaml.Node
	head     [][]*yaml.Node
	end      [][]*yaml.Node
	anchor   K
	anchored bool
	events   []placeEvent[K] // late: the calls in order
}

// placeEvent is one call to a late placer: seen(id) (nodes nil) or add(nodes).
type placeEvent[K comparable] struct {
	id    K
	nodes []*yaml.Node
}

// seen marks id, an entry present in the output, as the anchor for following new ones.
func (p *placer[K]) seen(id K) {
	if p.late {
		p.events = append(p.events, placeEvent[K]{id: id})
		return
	}
	p.anchor, p.anchored = id, true
}

// add places a new entry (a key and value, or one element) after the current anchor.
func (p *placer[K]) add(nodes ...*yaml.Node) {
	if p.late {
		p.events = append(p.events, placeEvent[K]{nodes: nodes})
		return
	}
	if !p.anchored {
		if p.front {
			p.head = append(p.head, nodes)
		} else {
			p.end = append(p.end, nodes)
		}
		return
	}
	if p.after == nil {
		p.after = map[K][][]*yaml.Node{}
	}
	p.after[p.anchor] = append(p.after[p.anchor], nodes)
}

// empty reports whether nothing was added.
func (p *placer[K]) empty() bool { return len(p.after) == 0 && len(p.end) == 0 && len(p.head) == 0 }

// build returns the kept entries (ids[i] names kept[i]; width nodes an entry) with the
// new entries woven in.
func (p *placer[K]) build(ids []K, kept []*yaml.Node, width int) []*yaml.Node {
	if p.late {
		return p.buildLate(ids, kept, width)
	}
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

// buildLate is build for a late placer: each new entry before its nearest following
// seen entry, else at the end, in the source's order.
func (p *placer[K]) buildLate(ids []K, kept []*yaml.Node, width int) []*yaml.Node {
	before := map[K][][]*yaml.Node{}
	var end [][]*yaml.Node
	added := 0
	var next K
	hasNext := false
	for i := len(p.events) - 1; i >= 0; i-- { // backwards: the successor is known
		ev := p.events[i]
		switch {
		case ev.nodes == nil:
			next, hasNext = ev.id, true
		case hasNext:
			before[next] = append([][]*yaml.Node{ev.nodes}, before[next]...)
			added++
		default:
			end = append([][]*yaml.Node{ev.nodes}, end...)
			added++
		}
	}
	if added == 0 {
		return kept
	}
	out := make([]*yaml.Node, 0, len(kept)+width*added)
	for i, id := range ids {
		for _, e := range before[id] {
			out = append(out, e...)
		}
		out = append(out, kept[i*width:(i+1)*width]...)
	}
	for _, e := range end {
		out = append(out, e...)
	}
	return out
}

// mergeMapFields is the map merge both engines share (docs/merge-semantics.md, map rows): dest's
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
	p := placer[string]{front: true}
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
