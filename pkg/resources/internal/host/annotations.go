package host

import (
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// ForgetID removes the host's input id (internal and legacy) from n, and an annotations
// map left empty, and returns n: for an item the host must not restore comments and
// field order onto (an added item whose source's header would land mid-file).
func ForgetID(n *yaml.RNode) *yaml.RNode {
	for _, k := range vocab.IDAnnotations {
		_ = n.PipeE(yaml.ClearAnnotation(k))
	}
	ClearEmptyAnnotations(n)
	return n
}

// ClearEmptyAnnotations removes metadata.annotations from n when it is an empty map.
func ClearEmptyAnnotations(n *yaml.RNode) {
	if m := n.Field("metadata"); m != nil {
		if a := m.Value.Field("annotations"); a != nil && len(a.Value.Content()) == 0 {
			_ = m.Value.PipeE(yaml.Clear("annotations"))
		}
	}
}

// SetLocation sets n's path and index annotations to file and index: the internal ones,
// and the legacy ones too when n has the legacy path.
func SetLocation(n *yaml.RNode, file string, index int) {
	idx := strconv.Itoa(index)
	_ = n.PipeE(yaml.SetAnnotation(kioutil.PathAnnotation, file))
	_ = n.PipeE(yaml.SetAnnotation(kioutil.IndexAnnotation, idx))
	if _, ok := n.GetAnnotations()[kioutil.LegacyPathAnnotation]; ok {
		_ = n.PipeE(yaml.SetAnnotation(kioutil.LegacyPathAnnotation, file))
		_ = n.PipeE(yaml.SetAnnotation(kioutil.LegacyIndexAnnotation, idx))
	}
}
