package roles

import (
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The annotations a KRM host (kpt, kyaml) and the role selection put on items: where an
// item lives (path, index), kpt's input id, and the role. They say how an item was read,
// not what the resource is, so no merge (package resources) or apply (package apply)
// takes them from a source; the output keeps dest's.

// IsHostAnnotation reports whether key is one of them: any
// internal.config.kubernetes.io/ key, the legacy config.kubernetes.io/path, index and
// id, or the run's role annotation.
func IsHostAnnotation(key, roleAnnotation string) bool {
	return strings.HasPrefix(key, "internal.config.kubernetes.io/") ||
		key == kioutil.LegacyPathAnnotation || key == kioutil.LegacyIndexAnnotation ||
		key == kioutil.LegacyIdAnnotation || key == roleAnnotation
}

// ForgetInputID removes kpt's input id (internal and legacy) from n, and an annotations
// map left empty, and returns n. kpt copies comments and field order from the input item
// with the same id onto an output item, which would undo the merge's own placement, so
// rewritten and added items go out without it.
func ForgetInputID(n *yaml.RNode) *yaml.RNode {
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

// LastIndexes returns, per file, the highest index annotation among items read from
// files (inline items have none), so that an item added to a file goes after its last.
func LastIndexes(items []Item) map[string]int {
	m := map[string]int{}
	for _, it := range items {
		if it.File == "" || it.Inline {
			continue
		}
		if v, ok := m[it.File]; !ok || it.Index > v {
			m[it.File] = it.Index
		}
	}
	return m
}
