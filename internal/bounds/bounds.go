package bounds

import (
	"fmt"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// MaxExpandedNodes is the most YAML nodes an item's aliases may add, expanded, to the
// nodes written in its text. Merges and the apply mode's JSON form can expand aliases
// (the 2-way engine writes aliased values out in full; apply converts objects to JSON),
// so an alias bomb
// (a few lines standing for 10^9 nodes) would take unbounded time and memory; such an
// item is refused before any merge. An item without aliases is never refused, however
// large: its cost is its text's. One million nodes is ten times the largest CRD of
// kube-prometheus's release manifests.
const MaxExpandedNodes = 1_000_000

// TooExpanded reports whether n's aliases, expanded, add more than MaxExpandedNodes
// nodes to those written in its text (never without an alias). Cost: one walk of n,
// each aliased node walked once. A nil n is not.
func TooExpanded(n *yaml.Node) bool {
	tooExpanded, _ := Measure(n)
	return tooExpanded
}

// Measure is TooExpanded and HasAlias from one walk: whether n's aliases, expanded, add
// more than MaxExpandedNodes nodes to its text's, and whether it holds an alias
// node (when it is too expanded, it does). Cost: one walk of n, each aliased node
// walked once.
func Measure(n *yaml.Node) (tooExpanded, hasAlias bool) {
	r := Check(n)
	return r.TooExpanded, r.HasAlias
}

// Report is what Check found in one item.
type Report struct {
	// TooExpanded: the item's aliases, expanded, add more than MaxExpandedNodes nodes
	// to those written in its text (always with RecursiveAlias).
	TooExpanded bool
	// RecursiveAlias: an alias refers to an anchored node that contains it (`&m {a:
	// *m}`), so the item expands without end. yaml.v3 parses it into a node graph with a
	// cycle; a decoder into Go values refuses it.
	RecursiveAlias bool
	// HasAlias: the item holds an alias node.
	HasAlias bool
	// Added is how many nodes the item's aliases add, expanded, to those written in its
	// text (0 without an alias; saturating far above MaxExpandedNodes, and so for a
	// recursive alias). A caller adds it up over the items of one YAML document (a
	// ResourceList), whose items may alias each other's anchors: MaxExpandedNodes bounds
	// the sum too (TooExpandedTogether).
	Added int
	// Written is how many nodes the item's text holds (each once, aliases as one).
	// Written+Added, summed over the items of an input, is what MaxNodes bounds.
	Written int
	// Repeated is the first map key (in document order) that repeats a key of its map;
	// nil when every map's keys are unique.
	Repeated *RepeatedKey
	// UnwritableTag is the path (as RepeatedKey.Path spells it; "" for the root or a
	// node found only through an alias) of the first node tagged `!!` with nothing
	// after it, nil when there is none. A parser gives that tag to `!%21` (the local
	// tag `!!`) and `!<!!>`; yaml.v3, which every KRM host writes with, writes it as
	// `!!`, which no parser reads, so an item holding one cannot be written back.
	UnwritableTag *string
}

// TooExpandedTogether returns the index of the first report (in order) at which the
// nodes the reports' aliases add (Report.Added), summed from the first, exceed
// MaxExpandedNodes, and that sum; -1 when the whole sum stays within it. A ResourceList
// is one YAML document, so an item may alias an anchor written in another: ten items
// each aliasing one 200,000-element anchor stay under the bound one by one and expand to
// 2,000,000 nodes together (when the output is written, each alias is written out).
func TooExpandedTogether(reports []Report) (at, sum int) {
	for i, r := range reports {
		sum = min(sum+r.Added, saturated)
		if sum > MaxExpandedNodes {
			return i, sum
		}
	}
	return -1, sum
}

// TooManyNodes returns the index of the first report (in order) at which the nodes of
// the reports' items, written and added by aliases (Report.Written + Report.Added),
// summed from the first, exceed limit (MaxNodes), and that sum; -1 when the whole sum
// stays within it.
func TooManyNodes(reports []Report, limit int) (at, sum int) {
	for i, r := range reports {
		sum = min(sum+r.Written+r.Added, saturated)
		if sum > limit {
			return i, sum
		}
	}
	return -1, sum
}

// RepeatedKey is a map key given twice in one map.
type RepeatedKey struct {
	// Path is the path of the map's field as results show it, from the item's root:
	// field names joined by dots, list elements as [index]; e.g.
	// "spec.template.metadata.labels.app".
	Path string
	// Key is the repeated key.
	Key string
	// FirstLine and SecondLine are the lines of the two keys, counted from the item's
	// first line as 1 (0 when the parser recorded none).
	FirstLine, SecondLine int
	// FirstColumn and SecondColumn are the keys' columns, counted from the item's first
	// column as 1 (0 when the parser recorded none).
	FirstColumn, SecondColumn int
}

// Where says where the two keys are, for messages: "at lines 8 and 10 of the resource",
// or "on line 6 of the resource, columns 9 and 15" when they share a line.
func (k *RepeatedKey) Where() string {
	if k.FirstLine == k.SecondLine {
		return fmt.Sprintf("on line %d of the resource, columns %d and %d", k.FirstLine, k.FirstColumn, k.SecondColumn)
	}
	return fmt.Sprintf("at lines %d and %d of the resource", k.FirstLine, k.SecondLine)
}

// Check measures n in one walk (each aliased node walked once): Measure's two answers
// and the first repeated map key. Keys compare by tag and value (`"1"` and `1` differ);
// YAML merge keys (`<<`) and keys that are not scalars are not compared. A nil n has
// nothing to report.
func Check(n *yaml.Node) Report {
	var m measure
	r := Report{}
	expanded := m.of(n)
	r.Added = expanded - m.written
	r.Written = m.written
	if m.cyclic {
		r.Added = saturated
	}
	r.TooExpanded = r.Added > MaxExpandedNodes
	r.HasAlias = m.aliased
	r.RecursiveAlias = m.cyclic
	if m.repeatedIn != nil {
		path, _ := pathTo(n, m.repeatedIn)
		line := func(k *yaml.Node) int {
			if k.Line == 0 || n.Line == 0 {
				return 0
			}
			return k.Line - n.Line + 1
		}
		key := path
		if key != "" {
			key += "."
		}
		column := func(k *yaml.Node) int {
			if k.Column == 0 || n.Column == 0 {
				return 0
			}
			return k.Column - n.Column + 1
		}
		r.Repeated = &RepeatedKey{Path: key + m.second.Value, Key: m.second.Value, FirstLine: line(m.first), SecondLine: line(m.second),
			FirstColumn: column(m.first), SecondColumn: column(m.second)}
	}
	if m.badTag != nil {
		path, _ := pathTo(n, m.badTag)
		r.UnwritableTag = &path
	}
	return r
}

// measure holds the expanded sizes of alias targets (allocated on the first alias),
// whether an alias node was seen, and the first repeated key found.
type measure struct {
	sizes         map[*yaml.Node]int
	written       int // nodes in the text, each once
	viaAlias      int // > 0 while measuring an alias's target
	aliased       bool
	repeatedIn    *yaml.Node          // the map holding the first repeated key
	badTag        *yaml.Node          // the first node tagged "!!"
	first, second *yaml.Node          // its two keys
	open          map[*yaml.Node]bool // the anchored nodes being walked (allocated on the first)
	cyclic        bool                // an alias to an open node was found
}

// smallMap is the key count up to which repeated keys are found by comparing pairs.
const smallMap = 12

// repeats records m's first repeated key, if any and none was recorded yet. Keys are
// compared by value first (no allocation), then by tag.
func (ms *measure) repeats(m *yaml.Node) {
	if ms.repeatedIn != nil || len(m.Content) < 4 {
		return
	}
	comparable := func(k *yaml.Node) bool { return k.Kind == yaml.ScalarNode && k.Value != "<<" }
	same := func(a, b *yaml.Node) bool { return a.Value == b.Value && a.ShortTag() == b.ShortTag() }
	if len(m.Content) <= 2*smallMap {
		for i := 2; i+1 < len(m.Content); i += 2 {
			ki := m.Content[i]
			if !comparable(ki) {
				continue
			}
			for j := 0; j < i; j += 2 {
				if kj := m.Content[j]; comparable(kj) && same(kj, ki) {
					ms.repeatedIn, ms.first, ms.second = m, kj, ki
					return
				}
			}
		}
		return
	}
	seen := make(map[string][]*yaml.Node, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if !comparable(k) {
			continue
		}
		for _, prev := range seen[k.Value] {
			if same(prev, k) {
				ms.repeatedIn, ms.first, ms.second = m, prev, k
				return
			}
		}
		seen[k.Value] = append(seen[k.Value], k)
	}
}

// pathTo returns the path from n to the map target as RepeatedKey.Path spells it, and
// whether target was found; it does not follow aliases (a map reached only through an
// alias gets the empty path).
func pathTo(n, target *yaml.Node) (string, bool) {
	type frame struct {
		n    *yaml.Node
		path string
	}
	stack := []frame{{n, ""}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if f.n == target {
			return f.path, true
		}
		switch f.n.Kind {
		case yaml.DocumentNode:
			for _, c := range f.n.Content {
				stack = append(stack, frame{c, f.path})
			}
		case yaml.MappingNode:
			for i := len(f.n.Content) - 2; i >= 0; i -= 2 {
				p := f.n.Content[i].Value
				if f.path != "" {
					p = f.path + "." + p
				}
				stack = append(stack, frame{f.n.Content[i+1], p})
			}
		case yaml.SequenceNode:
			for i := len(f.n.Content) - 1; i >= 0; i-- {
				stack = append(stack, frame{f.n.Content[i], f.path + "[" + strconv.Itoa(i) + "]"})
			}
		}
	}
	return "", false
}

// saturated is where of stops counting: far above any text's nodes plus
// MaxExpandedNodes, and two of it still fit an int.
const saturated = 1 << 50

// of counts the nodes of n with aliases expanded, saturating at saturated, and adds
// the nodes it walks in the text to m.written. It walks every node of the text once
// (an alias's target is measured once and remembered), so its cost is the text's. An
// alias to an anchored node it is walking (a cycle) counts as saturated and sets
// m.cyclic, and is not followed.
func (m *measure) of(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	if n.Kind == yaml.AliasNode {
		m.aliased = true
		if n.Alias == nil {
			return 1
		}
		if m.open[n.Alias] { // inside its own target: it expands without end
			m.cyclic = true
			return saturated
		}
		if s, ok := m.sizes[n.Alias]; ok {
			return s
		}
		m.viaAlias++
		s := m.of(n.Alias)
		m.viaAlias--
		if m.sizes == nil {
			m.sizes = map[*yaml.Node]int{}
		}
		m.sizes[n.Alias] = s
		return s
	}
	if m.viaAlias == 0 {
		m.written++
	}
	if n.Tag == "!!" && m.badTag == nil {
		m.badTag = n
	}
	if n.Kind == yaml.MappingNode {
		m.repeats(n)
	}
	if n.Anchor != "" { // only an anchored node can be an alias's target
		if m.open == nil {
			m.open = map[*yaml.Node]bool{}
		}
		m.open[n] = true
		defer delete(m.open, n)
	}
	size := 1
	for _, c := range n.Content {
		size = min(size+m.of(c), saturated)
	}
	return size
}

// HasAlias reports whether the tree under n holds a YAML alias node; false for nil. It
// does not follow aliases, so it takes time linear in the size of the text, and it walks
// with its own stack, so any depth of nesting is fine.
func HasAlias(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Kind == yaml.AliasNode {
			return true
		}
		stack = append(stack, n.Content...)
	}
	return false
}

// HeadRepeated reports whether item, a resource's root map, gives `metadata` twice, or
// `annotations` twice in its first `metadata`. kyaml's annotation edits, which run on
// every item before a function sees it (framework.Execute's preprocessing, through
// yaml.SetAnnotation and yaml.ClearEmptyAnnotations), remove the first empty copy of
// either key there without a word, so such an item must be checked as read. Keys are
// compared by value, as those edits find them. Cost: the root's and metadata's keys.
func HeadRepeated(item *yaml.Node) bool {
	twice := func(m *yaml.Node, name string) (first *yaml.Node, repeated bool) {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value != name {
				continue
			}
			if first != nil {
				return first, true
			}
			first = m.Content[i+1]
		}
		return first, false
	}
	if item == nil || item.Kind != yaml.MappingNode {
		return false
	}
	md, repeated := twice(item, yaml.MetadataField)
	if repeated {
		return true
	}
	if md == nil || md.Kind != yaml.MappingNode {
		return false
	}
	_, repeated = twice(md, yaml.AnnotationsField)
	return repeated
}
