package yamlnull

import "sigs.k8s.io/kustomize/kyaml/yaml"

// Is reports whether n is an explicit null: a scalar node whose tag, given or resolved
// from its text, is !!null (`null`, `Null`, `NULL`, `~`, an empty value, or `!!null`
// with any text). false for nil, for an alias (callers that follow aliases pass the
// node it names) and for maps, lists and documents.
func Is(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == yaml.NodeTagNull
}
