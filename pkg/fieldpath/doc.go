// Package fieldpath names a place inside a resource: the field.path of a result, the
// location of a conflict, the target of a field rule.
//
// A Path is a list of steps (Step): a map field by name, a keyed list element by its
// merge key values, a set element by value, or a list element by position. Its String
// form is the one kpt and kustomize users read in results: fields joined by dots,
// keyed list elements as [key=value] (several keys joined by ","), primitive set
// elements as [=value] and positional elements as [index]:
//
//	spec.template.spec.containers[name=nginx].ports[containerPort=80,protocol=TCP]
//	metadata.finalizers[=example.com/protect]
//
// This mirrors the element selectors of structured-merge-diff's field paths and of
// kpt's results, so a path can be pasted into a search or a patch target. Parse reads
// the same form as a user writes it (a dot inside a field name escaped with a
// backslash); String writes field names as they are, unescaped, so Parse(p.String())
// gives p back only when no field name holds '.', '[' or a backslash and no selector value
// holds ']' or ','.
//
// # Neighbours
//
// A leaf package: package merge names conflicts with it, package plan names changes,
// package apply names fields of kubectl's check, package fieldrules parses rule paths
// with it (HasPrefix and Step.Selects match a rule against the places the merge
// names), and package config reads the fieldRules and mergeKeys paths. The String
// form is the field.path of the results package results builds (docs/function.md,
// "Output").
//
// # Errors
//
// Only Parse fails: an empty path or field name, an unclosed, empty or malformed
// selector, a key given twice, a negative or non-numeric index; the message quotes the
// path and the offending part.
package fieldpath
