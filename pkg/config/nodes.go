package config

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Helpers on YAML nodes and message text shared by the loader and Validate.

// oneLine joins the lines of s (e.g. a YAML parser's multi-line error) with spaces.
func oneLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, " ")
}

// deAnchor returns a copy of n with every alias replaced by what it names (and YAML
// merge keys applied), leaving n unchanged. yaml.v3 first decodes the text, which
// refuses alias bombs ("excessive aliasing"), so the expansion is bounded.
func deAnchor(n *yaml.Node) (*yaml.Node, error) {
	text, err := yaml.NewRNode(n).String()
	if err != nil {
		return nil, err
	}
	var probe interface{}
	if err := yaml.Unmarshal([]byte(text), &probe); err != nil {
		return nil, err
	}
	c, err := yaml.Parse(text)
	if err != nil {
		return nil, err
	}
	if err := c.DeAnchor(); err != nil {
		return nil, err
	}
	return rootNode(c), nil
}

// rootNode returns fc's node, looking through a document node; nil for none.
func rootNode(fc *yaml.RNode) *yaml.Node {
	if fc == nil {
		return nil
	}
	n := fc.YNode()
	for n != nil && n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	return n
}

// mapValue returns the value of key in mapping m, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// scalarValue returns a scalar node's text, or "" for nil or a non-scalar.
func scalarValue(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// nodeKindName names a node's kind for messages.
func nodeKindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "map"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	case yaml.ScalarNode:
		if n.Tag == yaml.NodeTagNull {
			return "null"
		}
		return "scalar"
	default:
		return "document"
	}
}
