package testsupport

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// NodeDiff describes the first difference between the trees a and b, with the position of
// the node as at followed by Content indexes ("$[1][3]"); "" when they are the same.
func NodeDiff(a, b *yaml.Node, at string) string {
	if (a == nil) != (b == nil) {
		return at + ": one is nil"
	}
	if a == nil {
		return ""
	}
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Style != b.Style || a.Value != b.Value || a.Anchor != b.Anchor ||
		a.HeadComment != b.HeadComment || a.LineComment != b.LineComment || a.FootComment != b.FootComment ||
		len(a.Content) != len(b.Content) {
		return fmt.Sprintf("%s: %+v vs %+v", at, *a, *b)
	}
	for i := range a.Content {
		if d := NodeDiff(a.Content[i], b.Content[i], fmt.Sprintf("%s[%d]", at, i)); d != "" {
			return d
		}
	}
	return ""
}
