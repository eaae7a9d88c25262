// Package nodediff compares YAML node trees for tests that check a direct node edit
// against kyaml's own calls: the kind, tag, style, value, anchor, comments and content
// of every node, in order.
package nodediff
