// Package fieldpath names a place inside a resource: the field.path of a result, the
// location of a conflict.
//
// A Path is a list of steps. Its String form is the one kpt and kustomize users read in
// results: fields joined by dots, keyed list elements as [key=value] (several keys joined
// by ","), primitive set elements as [=value] and positional elements as [index]:
//
//	spec.template.spec.containers[name=nginx].ports[containerPort=80,protocol=TCP]
//	metadata.finalizers[=example.com/protect]
//
// This mirrors the element selectors of structured-merge-diff's field paths and of kpt's
// results, so a path can be pasted into a search or a patch target.
package fieldpath
