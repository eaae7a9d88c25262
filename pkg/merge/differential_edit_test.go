package merge_test

// The differential tests' random edits (differential_test.go): the slots of a tree,
// the edit operations that derive updated and dest from original, the sparse 2-way src
// and its strategic-merge directives.

import (
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// slot is a place in a tree an edit can act on: field i (key at Content[i]) of a map,
// or element i of a list.
type slot struct {
	parent *yaml.Node
	i      int
	path   string
}

func (s slot) value() *yaml.Node {
	if s.parent.Kind == yaml.MappingNode {
		return s.parent.Content[s.i+1]
	}
	return s.parent.Content[s.i]
}

func (s slot) set(v *yaml.Node) {
	if s.parent.Kind == yaml.MappingNode {
		s.parent.Content[s.i+1] = v
	} else {
		s.parent.Content[s.i] = v
	}
}

func (s slot) remove() {
	if s.parent.Kind == yaml.MappingNode {
		s.parent.Content = append(s.parent.Content[:s.i:s.i], s.parent.Content[s.i+2:]...)
	} else {
		s.parent.Content = append(s.parent.Content[:s.i:s.i], s.parent.Content[s.i+1:]...)
	}
}

// protected fields keep the resource's identity.
func protected(path string) bool {
	switch path {
	case ".apiVersion", ".kind", ".metadata", ".metadata.name":
		return true
	}
	return false
}

// slots lists the editable places under n, depth first.
func slots(n *yaml.Node, path string, out *[]slot) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := path + "." + n.Content[i].Value
			if !protected(p) {
				*out = append(*out, slot{n, i, p})
			}
			slots(n.Content[i+1], p, out)
		}
	case yaml.SequenceNode:
		for i, el := range n.Content {
			p := path + "[]"
			*out = append(*out, slot{n, i, p})
			slots(el, p, out)
		}
	}
}

func collect(root *yaml.Node, keep func(slot) bool) []slot {
	var all, out []slot
	slots(root, "", &all)
	for _, s := range all {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

func (g *gen) pickSlot(root *yaml.Node, keep func(slot) bool) (slot, bool) {
	c := collect(root, keep)
	if len(c) == 0 {
		return slot{}, false
	}
	return c[g.intn(len(c))], true
}

func inMap(s slot) bool { return s.parent.Kind == yaml.MappingNode }

// notKey is inMap for fields that are not an element's merge key: nulls and kind changes
// stay off keys (an element whose key is null or a map has no identity at all; the rare
// "drop the key" edit covers elements without one).
func notKey(s slot) bool {
	if !inMap(s) {
		return false
	}
	switch s.parent.Content[s.i].Value {
	case "name", "mountPath", "ip", "topologyKey", "containerPort", "port", "uid", "type", "protocol", "whenUnsatisfiable":
		return false
	}
	return true
}

// listNodes lists the sequences under root.
func listNodes(root *yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	var walkN func(n *yaml.Node)
	walkN = func(n *yaml.Node) {
		if n.Kind == yaml.SequenceNode {
			out = append(out, n)
		}
		for _, c := range n.Content {
			walkN(c)
		}
	}
	walkN(root)
	return out
}

func mapNodes(root *yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	var walkN func(n *yaml.Node)
	walkN = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			out = append(out, n)
		}
		for _, c := range n.Content {
			walkN(c)
		}
	}
	walkN(root)
	return out
}

// New fields, each with one kind of value, as a schema would have it.
var newFieldNames = []string{"minReadySeconds", "paused", "priority", "timeoutSeconds", "enabled", "extra", "hostNetwork", "description", "aliases"}

func (g *gen) newValue(name string) *yaml.Node {
	switch name {
	case "minReadySeconds", "priority", "timeoutSeconds":
		return nScalar(g.intn(100))
	case "paused", "enabled", "hostNetwork":
		return nScalar(g.chance(0.5))
	case "extra":
		return nMap("key", g.pick("a", "b"), "count", g.intn(5))
	case "aliases":
		return nSeq(g.pick("one", "two"), g.pick("three", "four"))
	default:
		return nScalar(g.pick("value", "other", "x", "enabled"))
	}
}

// mapFields hold maps wherever they appear in the templates.
func mapField(name string) bool {
	switch name {
	case "data", "labels", "annotations", "resources", "limits", "requests", "selector", "matchLabels",
		"nodeSelector", "config", "logging", "timeouts", "strategy", "rollingUpdate", "metadata", "spec", "template", "extra", "configMap":
		return true
	}
	return false
}

func (g *gen) changeScalar(n *yaml.Node) *yaml.Node {
	c := *n
	c.LineComment, c.HeadComment, c.FootComment = "", "", ""
	switch n.ShortTag() {
	case yaml.NodeTagInt:
		v, _ := strconv.Atoi(n.Value)
		c.Value = strconv.Itoa(v + 1 + g.intn(5))
	case yaml.NodeTagBool:
		c.Value = strconv.FormatBool(n.Value != "true")
	case yaml.NodeTagNull:
		return nScalar("filled")
	default:
		c.Value = g.pick("changed", "v2", "new", n.Value+"-x", "registry.example.com/app:2.0.0")
		if c.Value == n.Value {
			c.Value += "z"
		}
	}
	return &c
}

// keyField returns the field an element is identified by, when it has one.
var elementKeys = []string{"containerPort", "port", "mountPath", "uid", "ip", "topologyKey", "name", "type"}

func elemKey(el *yaml.Node) (string, *yaml.Node) {
	if el.Kind != yaml.MappingNode {
		return "", nil
	}
	for _, k := range elementKeys {
		for i := 0; i+1 < len(el.Content); i += 2 {
			if el.Content[i].Value == k && el.Content[i+1].Kind == yaml.ScalarNode {
				return k, el.Content[i+1]
			}
		}
	}
	return "", nil
}

// edit applies one random edit operation to root. local marks dest's edits (more
// clears and more null fills).
func (g *gen) edit(root *yaml.Node, local bool) {
	w := g.intn(100)
	switch {
	case w < 28 || w >= 94: // change a scalar (a field or an element of a scalar list)
		if s, ok := g.pickSlot(root, func(s slot) bool { return s.value().Kind == yaml.ScalarNode && !isNullNode(s.value()) }); ok {
			s.set(g.changeScalar(s.value()))
		}
	case w < 40: // delete a field or an element
		if s, ok := g.pickSlot(root, func(slot) bool { return true }); ok {
			s.remove()
		}
	case w < 52: // add a field
		maps := mapNodes(root)
		m := maps[g.intn(len(maps))]
		name := newFieldNames[g.intn(len(newFieldNames))]
		if indexOf(m, name) >= 0 {
			return
		}
		at := 2 * g.intn(len(m.Content)/2+1)
		m.Content = append(m.Content[:at:at], append([]*yaml.Node{nScalar(name), g.newValue(name)}, m.Content[at:]...)...)
	case w < 58: // an explicit null: a local or upstream clear
		p := 0.3
		if local {
			p = 1
		}
		if !g.chance(p) {
			return
		}
		if s, ok := g.pickSlot(root, notKey); ok {
			s.set(nScalar(nil))
		}
	case w < 62: // fill a null (dest sets a value where the package ships null)
		if s, ok := g.pickSlot(root, func(s slot) bool { return inMap(s) && isNullNode(s.value()) }); ok {
			if mapField(s.parent.Content[s.i].Value) {
				s.set(nMap("filled", g.pick("a", "b")))
			} else {
				s.set(nScalar("filled"))
			}
		}
	case w < 77: // add an element to a list
		lists := listNodes(root)
		if len(lists) == 0 {
			return
		}
		l := lists[g.intn(len(lists))]
		if len(l.Content) == 0 {
			l.Content = append(l.Content, nScalar(g.fresh("elem")))
			return
		}
		el := yaml.CopyYNode(l.Content[g.intn(len(l.Content))])
		switch el.Kind {
		case yaml.ScalarNode:
			el = nScalar(g.fresh("elem"))
		case yaml.MappingNode:
			k, kv := elemKey(el)
			if k == "" {
				if len(el.Content) >= 2 && el.Content[1].Kind == yaml.ScalarNode {
					el.Content[1] = g.changeScalar(el.Content[1])
				}
				break
			}
			if kv.ShortTag() == yaml.NodeTagInt {
				kv.Value = strconv.Itoa(9000 + g.intn(900))
			} else {
				kv.Value = g.fresh(kv.Value)
			}
			// and change something else in it
			for i := 0; i+1 < len(el.Content); i += 2 {
				if el.Content[i].Value != k && el.Content[i+1].Kind == yaml.ScalarNode && g.chance(0.5) {
					el.Content[i+1] = g.changeScalar(el.Content[i+1])
					break
				}
			}
		}
		at := g.intn(len(l.Content) + 1)
		l.Content = append(l.Content[:at:at], append([]*yaml.Node{el}, l.Content[at:]...)...)
	case w < 87: // reorder a list
		lists := listNodes(root)
		var long []*yaml.Node
		for _, l := range lists {
			if len(l.Content) > 1 {
				long = append(long, l)
			}
		}
		if len(long) == 0 {
			return
		}
		l := long[g.intn(len(long))]
		i, j := g.intn(len(l.Content)), g.intn(len(l.Content))
		l.Content[i], l.Content[j] = l.Content[j], l.Content[i]
	case w < 88: // change a field's kind (scalar <-> map/list)
		if s, ok := g.pickSlot(root, notKey); ok {
			if s.value().Kind == yaml.ScalarNode {
				s.set(nMap("value", g.pick("a", "b")))
			} else {
				s.set(nScalar(g.pick("inline", "none")))
			}
		}
	case w < 90: // duplicate a keyed element, key included (lists with repeated keys)
		lists := listNodes(root)
		if len(lists) == 0 {
			return
		}
		l := lists[g.intn(len(lists))]
		if len(l.Content) > 0 && l.Content[0].Kind == yaml.MappingNode {
			el := yaml.CopyYNode(l.Content[g.intn(len(l.Content))])
			if len(el.Content) >= 4 && el.Content[3].Kind == yaml.ScalarNode {
				el.Content[3] = g.changeScalar(el.Content[3])
			}
			l.Content = append(l.Content, el)
		}
	case w < 92: // drop the key of one element (lists where not every element has the key)
		lists := listNodes(root)
		if len(lists) == 0 {
			return
		}
		l := lists[g.intn(len(lists))]
		if len(l.Content) > 0 {
			el := l.Content[g.intn(len(l.Content))]
			if k, _ := elemKey(el); k != "" {
				el.Content = el.Content[2:]
				if i := indexOf(el, k); i >= 0 {
					el.Content = append(el.Content[:i:i], el.Content[i+2:]...)
				}
				if len(el.Content) == 0 {
					el.Content = []*yaml.Node{nScalar("note"), nScalar("keyless")}
				}
			}
		}
	default: // empty a list (92, 93)
		lists := listNodes(root)
		if len(lists) > 0 {
			lists[g.intn(len(lists))].Content = nil
		}
	}
}

func indexOf(m *yaml.Node, name string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			return i
		}
	}
	return -1
}

func isNullNode(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == yaml.NodeTagNull
}

func (g *gen) edits(root *yaml.Node, min, max int, local bool) *yaml.Node {
	c := yaml.CopyYNode(root)
	n := min + g.intn(max-min+1)
	for i := 0; i < n; i++ {
		g.edit(c, local)
	}
	return c
}

// case3 returns a related original, updated, dest.
func (g *gen) case3() (o, u, d *yaml.Node) {
	g.seq = 0
	o = g.resource()
	u = g.edits(o, 1, 4, false)
	switch x := g.intn(100); {
	case x < 15: // dest already took part of the upgrade
		d = g.edits(u, 0, 3, true)
	case x < 20: // dest untouched
		d = yaml.CopyYNode(o)
	default:
		d = g.edits(o, 0, 3, true)
	}
	return o, u, d
}

// case2 returns a src patch and a dest.
func (g *gen) case2() (s, d *yaml.Node) {
	g.seq = 0
	o := g.resource()
	d = g.edits(o, 0, 3, true)
	s = g.edits(o, 1, 4, false)
	if g.chance(0.6) {
		g.sparsify(s, "")
	}
	if g.chance(0.2) { // a null in src: clear the field
		if sl, ok := g.pickSlot(s, notKey); ok {
			sl.set(nScalar(nil))
		}
	}
	if g.chance(0.35) {
		g.directive(s)
	}
	return s, d
}

// sparsify drops fields from a src patch (never identity fields, never merge keys).
func (g *gen) sparsify(n *yaml.Node, path string) {
	switch n.Kind {
	case yaml.MappingNode:
		k, _ := elemKey(n)
		content := n.Content[:0:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := path + "." + n.Content[i].Value
			name := n.Content[i].Value
			if !protected(p) && name != k && path != "" && g.chance(0.35) {
				continue
			}
			g.sparsify(n.Content[i+1], p)
			content = append(content, n.Content[i], n.Content[i+1])
		}
		n.Content = content
	case yaml.SequenceNode:
		for _, el := range n.Content {
			g.sparsify(el, path+"[]")
		}
	}
}

// directive adds one strategic-merge directive to a src patch.
func (g *gen) directive(s *yaml.Node) {
	maps := mapNodes(s)
	lists := listNodes(s)
	switch g.intn(8) {
	case 0, 1: // $patch: delete on a keyed element
		for _, l := range lists {
			if len(l.Content) > 0 {
				if k, _ := elemKey(l.Content[0]); k != "" && g.chance(0.5) {
					el := l.Content[g.intn(len(l.Content))]
					if k2, _ := elemKey(el); k2 == k {
						el.Content = append(el.Content, nScalar("$patch"), nScalar("delete"))
						return
					}
				}
			}
		}
	case 2: // $patch: replace on a map
		m := maps[g.intn(len(maps))]
		if m != s {
			m.Content = append(m.Content, nScalar("$patch"), nScalar("replace"))
		}
	case 3: // $patch: delete on a map field
		m := maps[g.intn(len(maps))]
		if m != s && indexOf(m, "name") < 0 {
			m.Content = append(m.Content, nScalar("$patch"), nScalar("delete"))
		}
	case 4: // sequence-level {$patch: replace}
		for _, l := range lists {
			if len(l.Content) > 0 && l.Content[0].Kind == yaml.MappingNode && g.chance(0.5) {
				l.Content = append([]*yaml.Node{nMap("$patch", "replace")}, l.Content...)
				return
			}
		}
	case 5: // $retainKeys
		m := maps[g.intn(len(maps))]
		if m != s && len(m.Content) >= 2 {
			m.Content = append(m.Content, nScalar("$retainKeys"), nSeq(m.Content[0].Value))
		}
	case 6: // $setElementOrder/<list>
		m := maps[g.intn(len(maps))]
		for i := 0; i+1 < len(m.Content); i += 2 {
			l := m.Content[i+1]
			if l.Kind == yaml.SequenceNode && len(l.Content) > 1 {
				if k, _ := elemKey(l.Content[0]); k != "" {
					order := nSeq()
					for j := len(l.Content) - 1; j >= 0; j-- {
						if _, kv := elemKey(l.Content[j]); kv != nil {
							order.Content = append(order.Content, nMap(k, yaml.CopyYNode(kv)))
						}
					}
					m.Content = append(m.Content, nScalar("$setElementOrder/"+m.Content[i].Value), order)
					return
				}
			}
		}
	case 7: // $deleteFromPrimitiveList/<list>
		m := maps[g.intn(len(maps))]
		for i := 0; i+1 < len(m.Content); i += 2 {
			l := m.Content[i+1]
			if l.Kind == yaml.SequenceNode && len(l.Content) > 0 && l.Content[0].Kind == yaml.ScalarNode {
				m.Content = append(m.Content, nScalar("$deleteFromPrimitiveList/"+m.Content[i].Value), nSeq(yaml.CopyYNode(l.Content[0])))
				return
			}
		}
	}
}
