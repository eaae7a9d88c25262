package merge

import "sigs.k8s.io/kustomize/kyaml/yaml"

// plainEqual reports whether a and b are the same tree, written alike (kind, tag,
// style, value and comments at every node), and plain: no aliases or anchors, no null
// scalars, no patch directives among map keys, no map with a key twice.
//
// 2-way merging such a src into an equal dest gives dest, byte for byte, whatever the
// schema says of its lists, so twoWayShared returns dest without walking the merge
// (in a generated 2-way ResourceList, the four in five resources nobody edited):
//   - a map: every dest field is merged with the src field of its name, an equal plain
//     tree (keys are distinct), and src has no field dest lacks nor any directive;
//   - a keyed list: the schema's keys are used only when every element has distinct
//     key values (schema.validate), so each dest element pairs with its own equal
//     element in src and src adds none; a set list: only of distinct scalars, and src
//     adds none; any other list is atomic: src's value, cleaned of nulls and
//     directives, which it has none of: dest's bytes;
//   - a scalar: src's value, which dest's writes exactly as.
//
// Nulls (src's null deletes the field), directives (they rewrite the result) and
// repeated keys (they pair a dest field with another src field) are where merging a
// tree with itself changes it; those trees take the full merge. Cost: one walk, up to
// the first difference, without allocation for maps of up to 16 fields.
func plainEqual(a, b *yaml.Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Style != b.Style || a.Value != b.Value ||
		a.Anchor != "" || b.Anchor != "" || a.HeadComment != b.HeadComment ||
		a.LineComment != b.LineComment || a.FootComment != b.FootComment || len(a.Content) != len(b.Content) {
		return false
	}
	switch a.Kind {
	case yaml.ScalarNode:
		return !isNull(a)
	case yaml.SequenceNode:
		for i := range a.Content {
			if !plainEqual(a.Content[i], b.Content[i]) {
				return false
			}
		}
		return true
	case yaml.MappingNode:
		if len(a.Content)%2 != 0 {
			return false
		}
		for i := 0; i < len(a.Content); i += 2 {
			if isDirective(a.Content[i].Value) || a.Content[i].Kind != yaml.ScalarNode ||
				!plainEqual(a.Content[i], b.Content[i]) || !plainEqual(a.Content[i+1], b.Content[i+1]) {
				return false
			}
		}
		return distinctKeys(a)
	}
	return false // aliases, documents
}

// distinctKeys reports whether no key of map m appears twice.
func distinctKeys(m *yaml.Node) bool {
	n := len(m.Content) / 2
	if n <= 16 {
		for i := 0; i < len(m.Content); i += 2 {
			for j := i + 2; j < len(m.Content); j += 2 {
				if m.Content[i].Value == m.Content[j].Value {
					return false
				}
			}
		}
		return true
	}
	seen := make(map[string]struct{}, n)
	for i := 0; i < len(m.Content); i += 2 {
		if _, dup := seen[m.Content[i].Value]; dup {
			return false
		}
		seen[m.Content[i].Value] = struct{}{}
	}
	return true
}
