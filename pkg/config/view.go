package config

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/parallel"
)

// The typed form's inline resources (spec.original, spec.updated, spec.src) can be the
// bulk of a functionConfig: two releases of a package, megabytes of CRDs. The schema
// checks only their apiVersion, kind and metadata.name and metadata.namespace
// (schema.yaml: every other field is preserved unchecked), and the Config takes them
// as nodes (setInline), so the JSON values the schema sees (loader.data) and the node
// framework.LoadFunctionConfig decodes are read from a view of the functionConfig in
// which each inline resource is cut down to those fields (typedView). What stays of
// reading them whole is the one failure the cut would hide: a resource with no JSON
// form (a repeated key, a key that is not a string, a NaN), which makes the whole
// functionConfig unreadable. jsonReady tells the resources that certainly have one;
// for any other the whole node is read as before, so the error is the same.

// typedView returns node with the mapping items of the inline resource lists under spec
// cut down to apiVersion, kind and metadata (a metadata map to its name and namespace),
// their keys in order and repeated keys kept; every other node is shared with node,
// which is not changed. It returns node itself when there is nothing to cut. whole
// reports whether every inline resource surely has a JSON form (jsonReady).
func typedView(node *yaml.Node) (view *yaml.Node, whole bool) {
	spec := mapValue(node, "spec")
	if spec == nil || spec.Kind != yaml.MappingNode {
		return node, true
	}
	var cutSpec *yaml.Node
	whole = true
	for i := 0; i+1 < len(spec.Content); i += 2 {
		k, list := spec.Content[i], spec.Content[i+1]
		if !isInlineKey(k.Value) || list.Kind != yaml.SequenceNode {
			continue
		}
		cutList := shallowCopy(list)
		cutList.Content = make([]*yaml.Node, len(list.Content))
		ready := make([]bool, len(list.Content))
		parallel.ForEach(len(list.Content), 16, func(j int) { // each walk only reads its resource
			ready[j] = list.Content[j].Kind != yaml.MappingNode || jsonReady(list.Content[j])
		})
		for j, item := range list.Content {
			cutList.Content[j] = item
			if item.Kind != yaml.MappingNode {
				continue
			}
			if !ready[j] {
				whole = false
			}
			cutList.Content[j] = cutMap(item, "apiVersion", "kind", "metadata")
		}
		if cutSpec == nil {
			cutSpec = shallowCopy(spec)
			cutSpec.Content = append([]*yaml.Node(nil), spec.Content...)
		}
		cutSpec.Content[i+1] = cutList
	}
	if cutSpec == nil {
		return node, whole
	}
	view = shallowCopy(node)
	view.Content = append([]*yaml.Node(nil), node.Content...)
	for i := 0; i+1 < len(view.Content); i += 2 {
		if view.Content[i+1] == spec {
			view.Content[i+1] = cutSpec
		}
	}
	return view, whole
}

// isInlineKey reports whether a spec key holds inline resources.
func isInlineKey(name string) bool {
	return name == KeyOriginal || name == KeyUpdated || name == KeySrc
}

// cutMap returns a copy of mapping m holding only the pairs whose key is one of keys (a
// metadata map cut down to name and namespace), in order.
func cutMap(m *yaml.Node, keys ...string) *yaml.Node {
	out := shallowCopy(m)
	out.Content = nil
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		for _, want := range keys {
			if k.Value != want {
				continue
			}
			if want == "metadata" && v.Kind == yaml.MappingNode {
				v = cutMap(v, "name", "namespace")
			}
			out.Content = append(out.Content, k, v)
			break
		}
	}
	return out
}

// shallowCopy returns a copy of n sharing its children.
func shallowCopy(n *yaml.Node) *yaml.Node {
	c := *n
	return &c
}

// jsonReady reports whether n surely has a JSON form as kyaml's RNode.MarshalJSON reads
// it (yaml.v3 decoding into interface{} values, then encoding/json): maps whose keys
// are distinct plain strings other than the merge key "<<", lists, and scalars of the
// core types (strings, booleans, nulls, integers, floats other than infinities and
// NaN, timestamps) without an explicit tag other than !!str, each of the type its text
// reads as. false means "not sure"
// (an alias, a custom or !!binary tag, a key that is not a string, a repeated key),
// not "has none".
func jsonReady(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.MappingNode:
		var seen map[string]bool
		if len(n.Content) > 16 {
			seen = make(map[string]bool, len(n.Content)/2)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.ShortTag() != yaml.NodeTagString || k.Value == "<<" ||
				(k.Style&yaml.TaggedStyle != 0 && k.Tag != yaml.NodeTagString) {
				return false
			}
			if seen != nil {
				if seen[k.Value] {
					return false
				}
				seen[k.Value] = true
			} else {
				for j := 0; j < i; j += 2 {
					if n.Content[j].Value == k.Value {
						return false
					}
				}
			}
			if !jsonReady(n.Content[i+1]) {
				return false
			}
		}
		return true
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if !jsonReady(c) {
				return false
			}
		}
		return true
	case yaml.ScalarNode:
		tag := n.ShortTag()
		if n.Style&yaml.TaggedStyle != 0 && tag != yaml.NodeTagString {
			return false
		}
		if tag == yaml.NodeTagString {
			return true
		}
		// a tag set in Go on a value of another type is written with the tag and not
		// read back
		if plain := (yaml.Node{Kind: yaml.ScalarNode, Value: n.Value}); plain.ShortTag() != tag {
			return false
		}
		switch tag {
		case yaml.NodeTagBool, yaml.NodeTagNull, yaml.NodeTagInt, "!!timestamp":
			return true
		case yaml.NodeTagFloat:
			v := strings.ToLower(n.Value)
			return !strings.Contains(v, "inf") && !strings.Contains(v, "nan")
		}
	}
	return false
}
