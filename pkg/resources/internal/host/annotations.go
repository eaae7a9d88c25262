package host

import (
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// IsAnnotation reports whether key is an annotation a KRM host or the role selection puts
// on items (it says how an item was read, not what the resource is): any
// internal.config.kubernetes.io/ key, any internal.config.k8s.io/ key (kpt numbers the
// items a selector or --match-kind picks in internal.config.k8s.io/kpt-resource-id), the
// legacy config.kubernetes.io/path, index and id, or the run's role annotation.
func IsAnnotation(key, roleAnnotation string) bool {
	return strings.HasPrefix(key, "internal.config.kubernetes.io/") || strings.HasPrefix(key, "internal.config.k8s.io/") ||
		key == kioutil.LegacyPathAnnotation || key == kioutil.LegacyIndexAnnotation ||
		key == kioutil.LegacyIdAnnotation || key == roleAnnotation
}

// ForgetID removes the host's input id (internal and legacy) from n, and an annotations
// map left empty, and returns n: for an item the host must not restore comments and
// field order onto (an added item whose source's header would land mid-file).
func ForgetID(n *yaml.RNode) *yaml.RNode {
	_ = n.PipeE(yaml.ClearAnnotation(kioutil.IdAnnotation))
	_ = n.PipeE(yaml.ClearAnnotation(kioutil.LegacyIdAnnotation))
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
