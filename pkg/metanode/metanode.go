// Package metanode finds a resource's metadata.annotations node in its YAML tree, for
// the direct edits (package resourcelist: kyaml's annotation migration; package
// resources: host annotations) that must leave the node tree kyaml's own annotation
// calls would. It answers only for the plain shape, where kyaml's helpers (which take
// the last of repeated keys in some places and the first in others) all agree: each
// field once. Callers fall back to kyaml's calls on nil.
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
