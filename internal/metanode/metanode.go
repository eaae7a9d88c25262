package metanode

import "sigs.k8s.io/kustomize/kyaml/yaml"

// Annotations returns item's metadata.annotations mapping when item is a mapping with
// one metadata field, a non-empty mapping with one annotations field, a non-empty
// mapping of an even number of nodes; else nil.
func Annotations(item *yaml.Node) *yaml.Node {
	md := Field(item, yaml.MetadataField)
	if md == nil || md.Kind != yaml.MappingNode || len(md.Content) == 0 {
		return nil
	}
	an := Field(md, yaml.AnnotationsField)
	if an == nil || an.Kind != yaml.MappingNode || len(an.Content) == 0 || len(an.Content)%2 != 0 {
		return nil
	}
	return an
}

// Field returns the value of m's field name when m is a mapping (of an even number of
// nodes) holding it exactly once, else nil.
func Field(m *yaml.Node, name string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode || len(m.Content)%2 != 0 {
		return nil
	}
	var v *yaml.Node
	for i := 0; i < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			if v != nil {
				return nil
			}
			v = m.Content[i+1]
		}
	}
	return v
}

// Plain returns item's annotations mapping (Annotations) when, besides, every key and
// value is a scalar, no key is null-tagged and no key appears twice: the shape on which
// Index, Set and Remove leave what kyaml's calls leave. Else nil.
func Plain(item *yaml.Node) *yaml.Node {
	an := Annotations(item)
	if an == nil {
		return nil
	}
	for i := 0; i < len(an.Content); i += 2 {
		k, v := an.Content[i], an.Content[i+1]
		if k.Kind != yaml.ScalarNode || v.Kind != yaml.ScalarNode || k.Tag == yaml.NodeTagNull {
			return nil
		}
	}
	if len(an.Content) <= 32 {
		for i := 0; i < len(an.Content); i += 2 {
			for j := i + 2; j < len(an.Content); j += 2 {
				if an.Content[i].Value == an.Content[j].Value {
					return nil
				}
			}
		}
		return an
	}
	seen := make(map[string]struct{}, len(an.Content)/2)
	for i := 0; i < len(an.Content); i += 2 {
		if _, dup := seen[an.Content[i].Value]; dup {
			return nil
		}
		seen[an.Content[i].Value] = struct{}{}
	}
	return an
}

// Index returns the Content index of key in mapping an, -1 when absent.
func Index(an *yaml.Node, key string) int {
	for i := 0; i+1 < len(an.Content); i += 2 {
		if an.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// Set is what yaml.SetAnnotation(key, value) leaves in a non-empty annotations mapping
// an whose keys are distinct (so that its ClearEmptyAnnotations does nothing and its
// FieldSetter finds the one key): an existing key's value node becomes a !!str scalar
// of value in the old node's style; a new key is appended with no tag or style, its
// value a single-quoted !!str scalar. value must be valid UTF-8 (kyaml writes other
// values as !!binary).
func Set(an *yaml.Node, key, value string) {
	if i := Index(an, key); i >= 0 {
		old := an.Content[i+1]
		*old = yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: value, Style: old.Style}
		return
	}
	an.Content = append(an.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Value: key},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: value, Style: yaml.SingleQuotedStyle})
}

// Remove is what yaml.ClearAnnotation(key) leaves in annotations mapping an: the first
// pair with key removed, in place (the map may be left empty).
func Remove(an *yaml.Node, key string) {
	if i := Index(an, key); i >= 0 {
		an.Content = append(an.Content[:i], an.Content[i+2:]...)
	}
}
