package vocab

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
)

// The annotations a KRM host puts on the items it reads, to say where it read them
// (kyaml's kioutil names): each in its internal.config.kubernetes.io/ form and its
// legacy config.kubernetes.io/ form, which kpt and kyaml write side by side; the
// internal one first, as kioutil.GetFileAnnotations reads them.
var (
	// PathAnnotations hold an item's file path relative to the package.
	PathAnnotations = [2]string{kioutil.PathAnnotation, kioutil.LegacyPathAnnotation}
	// IndexAnnotations hold an item's index among the documents of its file.
	IndexAnnotations = [2]string{kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation}
	// IDAnnotations hold the id by which a host maps an output item to its input.
	IDAnnotations = [2]string{kioutil.IdAnnotation, kioutil.LegacyIdAnnotation}
)

// IsReaderAnnotation reports whether key is one of the annotations kyaml's function
// framework treats as its own around a function (kioutil.GetInternalAnnotations' rule):
// any internal.config.kubernetes.io/ key, or the legacy config.kubernetes.io/path, index
// or id.
func IsReaderAnnotation(key string) bool {
	return strings.HasPrefix(key, "internal.config.kubernetes.io/") ||
		key == PathAnnotations[1] || key == IndexAnnotations[1] || key == IDAnnotations[1]
}

// IsHostAnnotation reports whether key is an annotation a KRM host or the role
// selection puts on items (it says how an item was read, not what the resource is):
// IsReaderAnnotation's, any internal.config.k8s.io/ key (kpt numbers the items a
// selector or --match-kind picks in internal.config.k8s.io/kpt-resource-id), or the
// run's role annotation roleAnnotation.
func IsHostAnnotation(key, roleAnnotation string) bool {
	return IsReaderAnnotation(key) || strings.HasPrefix(key, "internal.config.k8s.io/") || key == roleAnnotation
}
