// Package nodediff compares YAML node trees for tests that check a direct node edit
// against kyaml's own calls: the kind, tag, style, value, anchor, comments and content
// of every node, in order.
//
// Test helper only: the tests of internal/resourcelist and internal/host import it; no
// production package does.
package nodediff
