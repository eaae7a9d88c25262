package merge_test

// The differential tests' reference (differential_test.go): kyaml v0.21.2's merge3
// and merge2 run as the function would have, and how kyaml decides a list at a place
// (its keys, its schema, its errors), which the classifier of differences asks.

import (
	"fmt"
	"strings"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"sigs.k8s.io/kustomize/kyaml/openapi"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/kustomize/kyaml/yaml/merge2"
	"sigs.k8s.io/kustomize/kyaml/yaml/merge3"
	"sigs.k8s.io/kustomize/kyaml/yaml/walk"
)

// withDefaultKeys runs f with kyaml's heuristic keys set to the default associative keys (kyaml v0.21.2
// defaults to just "name"), restoring them after.
func withDefaultKeys(f func()) {
	saved := yaml.AssociativeSequenceKeys
	yaml.AssociativeSequenceKeys = schema.DefaultAssociativeKeys()
	defer func() { yaml.AssociativeSequenceKeys = saved }()
	f()
}

func kyaml3(o, u, d *yaml.RNode) (out *yaml.RNode, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("kyaml panic: %v", r)
		}
	}()
	withDefaultKeys(func() {
		out, err = walk.Walker{
			Sources:               []*yaml.RNode{d.Copy(), o.Copy(), u.Copy()},
			Visitor:               merge3.Visitor{},
			VisitKeysAsScalars:    true,
			InferAssociativeLists: true,
		}.Walk()
	})
	return out, err
}

func kyaml2(s, d *yaml.RNode) (out *yaml.RNode, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("kyaml panic: %v", r)
		}
	}()
	withDefaultKeys(func() {
		out, err = walk.Walker{
			Sources:               []*yaml.RNode{d.Copy(), s.Copy()},
			Visitor:               merge2.Merger{},
			InferAssociativeLists: true,
		}.Walk()
	})
	return out, err
}

// kyamlList is how kyaml v0.21.2 merges the list at a place: its merge keys, nil for a
// non-associative list, [""] for a primitive associative list; err when kyaml errors.
func kyamlList(path fieldpath.Path, roots []*yaml.RNode, lists ...*yaml.Node) (keys []string, err bool) {
	rs := kyamlSchemaAt(path, roots)
	if rs != nil {
		strategy, ks := rs.PatchStrategyAndKeyList()
		if !strings.Contains(","+strategy+",", ",merge,") {
			return nil, false
		}
		if len(ks) == 0 {
			return []string{""}, false
		}
		return ks, false
	}
	assoc := false
	for _, l := range lists {
		if isSeqNode(l) && associativeKey(l) != "" {
			assoc = true
		}
	}
	if !assoc {
		return nil, false
	}
	key := ""
	for _, l := range lists {
		if isSeqNode(l) && len(dn(l).Content) > 0 {
			k := associativeKey(l)
			if key != "" && k != key {
				return nil, true
			}
			key = k
		}
	}
	return []string{key}, false
}

// associativeKey is kyaml's GetAssociativeKey with the associative keys.
func associativeKey(l *yaml.Node) string {
	for _, k := range schema.DefaultAssociativeKeys() {
		all := true
		for _, el := range dn(l).Content {
			if fieldOf(el, k) == nil {
				all = false
			}
		}
		if all {
			return k
		}
	}
	return ""
}

// kyamlSchemaAt follows kyaml's schema lookup: the kind's OpenAPI (nil for custom
// kinds), then Field / Elements along the path.
func kyamlSchemaAt(path fieldpath.Path, roots []*yaml.RNode) *openapi.ResourceSchema {
	var rs *openapi.ResourceSchema
	for _, r := range roots {
		if r.IsNil() {
			continue
		}
		m, _ := r.GetMeta()
		if m.Kind != "" && m.APIVersion != "" {
			rs = openapi.SchemaForResourceType(yaml.TypeMeta{Kind: m.Kind, APIVersion: m.APIVersion})
			break
		}
	}
	for _, s := range path {
		if rs == nil {
			return nil
		}
		if s.Kind == fieldpath.Field {
			rs = rs.Field(s.Name)
		} else {
			rs = rs.Elements()
		}
	}
	return rs
}

func hasDuplicates(l *yaml.Node, keys []string) bool {
	if !isSeqNode(l) {
		return false
	}
	seen := map[string]bool{}
	for _, el := range dn(l).Content {
		var b strings.Builder
		for _, k := range keys {
			if k == "" {
				b.WriteString(dn(el).Value)
				continue
			}
			if v := dn(fieldOf(el, k)); v != nil {
				b.WriteString(v.Value)
			}
			b.WriteString("\x00")
		}
		if seen[b.String()] {
			return true
		}
		seen[b.String()] = true
	}
	return false
}

// stubOnly reports whether n, kyaml's value at path, holds no value: empty maps and
// lists, nested, and keyed elements holding only their merge keys and such stubs (kyaml
// sets the key on every element it re-creates).
func stubOnly(n *yaml.Node, path fieldpath.Path, roots []*yaml.RNode, keys []string) bool {
	n = dn(n)
	switch {
	case n == nil:
		return true
	case n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			name := n.Content[i].Value
			isKey := false
			for _, k := range keys {
				isKey = isKey || k == name
			}
			if isKey && dn(n.Content[i+1]).Kind == yaml.ScalarNode {
				continue
			}
			if !stubOnly(n.Content[i+1], path.Field(name), roots, nil) {
				return false
			}
		}
		return true
	case n.Kind == yaml.SequenceNode:
		elKeys, _ := kyamlList(path, roots, n)
		for i, el := range n.Content {
			if !stubOnly(el, path.Index(i), roots, elKeys) {
				return false
			}
		}
		return true
	}
	return false
}

// lastKeys returns the merge key names of p's last step when it is a keyed element.
func lastKeys(p fieldpath.Path) []string {
	if len(p) > 0 && p[len(p)-1].Kind == fieldpath.Key {
		return p[len(p)-1].Keys
	}
	return nil
}

func customKind(roots []*yaml.RNode) bool {
	for _, r := range roots {
		if r.IsNil() {
			continue
		}
		m, _ := r.GetMeta()
		if m.Kind != "" {
			return openapi.SchemaForResourceType(yaml.TypeMeta{Kind: m.Kind, APIVersion: m.APIVersion}) == nil
		}
	}
	return false
}

func underObjectMetaList(p fieldpath.Path) bool {
	return len(p) >= 2 && p[0].Kind == fieldpath.Field && p[0].Name == "metadata" &&
		p[1].Kind == fieldpath.Field && (p[1].Name == "finalizers" || p[1].Name == "ownerReferences")
}

// listDecisionDiffers finds the innermost list at or above p where kyaml and we decide
// differently (another key, atomic against keyed); it returns the class.
func listDecisionDiffers(p fieldpath.Path, roots []*yaml.RNode, srcs ...*yaml.Node) string {
	for n := len(p); n >= 1; n-- {
		q := p[:n]
		var lists []*yaml.Node
		anyList := false
		for _, s := range srcs {
			v := lookup(s, q)
			if isSeqNode(v) {
				anyList = true
				lists = append(lists, v)
			} else {
				lists = append(lists, nil)
			}
		}
		if !anyList {
			continue
		}
		keys, kerr := kyamlList(q, roots, lists...)
		if kerr {
			return "conflicting merge keys (kyaml errors)"
		}
		ours := resolver.Decide(schemaFor(q, roots...), lists...)
		var ourKeys []string
		switch ours.Type {
		case schema.Map:
			ourKeys = ours.Keys
		case schema.Set:
			ourKeys = []string{""}
		}
		if strings.Join(keys, ",") == strings.Join(ourKeys, ",") {
			continue
		}
		heuristic := kyamlSchemaAt(q, roots) == nil
		if heuristic && ours.Type == schema.Map && keys != nil {
			for _, l := range lists {
				if hasDuplicates(l, keys) {
					return "heuristic key uniqueness: next unique associative key (kyaml keys by a non-unique one)"
				}
			}
		}
		if ours.Type == schema.Atomic && keys != nil {
			for _, l := range lists {
				if hasDuplicates(l, keys) {
					return "duplicate merge keys: atomic (kyaml merges or loses elements)"
				}
			}
			for _, l := range lists {
				if lacksKey(l, keys[0]) {
					if heuristic {
						return "conflicting merge keys: an element lacks the key, atomic (kyaml keys the list anyway)"
					}
					return "an element lacks the schema's merge key: atomic (kyaml pairs the others)"
				}
			}
		}
		return "" // a decision difference nothing documents
	}
	return ""
}

// wildcardList reports whether p is in or at a list whose schema declares several merge
// keys and where an element of some source lacks a secondary key value.
func wildcardList(p fieldpath.Path, roots []*yaml.RNode, srcs ...*yaml.Node) bool {
	for n := len(p); n >= 1; n-- {
		q := p[:n]
		keys, _ := kyamlList(q, roots)
		if len(keys) < 2 {
			continue
		}
		for _, src := range srcs {
			if l := lookup(src, q); isSeqNode(l) {
				for _, k := range keys[1:] {
					if lacksKey(l, k) {
						return true
					}
				}
			}
		}
	}
	return false
}

// lacksKey reports whether an element of list l has no scalar value for key.
func lacksKey(l *yaml.Node, key string) bool {
	if !isSeqNode(l) || key == "" {
		return false
	}
	for _, el := range dn(l).Content {
		v := dn(fieldOf(el, key))
		if v == nil || v.Kind != yaml.ScalarNode || isNullNode(v) {
			return true
		}
	}
	return false
}
