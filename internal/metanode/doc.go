// Package metanode finds and edits a resource's metadata.annotations node in its YAML tree, for
// the direct edits (package resourcelist: kyaml's annotation migration; package
// resources: host annotations) that must leave the node tree kyaml's own annotation
// calls would. It answers only for the plain shape, where kyaml's helpers (which take
// the last of repeated keys in some places and the first in others) all agree: each
// field once. Callers fall back to kyaml's calls on nil.
package metanode
