// Package yamlnull tells an explicit null in a YAML node tree: `null`, `~` or an empty
// value, as yaml.v3 resolves a scalar (YAML 1.2's core schema). It is the one such test
// of the module: internal/bounds (an item's head, null list elements) and pkg/merge
// (nulls clear fields) ask it. It imports no package of this
// module.
package yamlnull
