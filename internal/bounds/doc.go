// Package bounds holds what krm-merge checks of an item's YAML before merging it: YAML
// aliases, which let a few lines stand for unbounded data (whether a tree holds any,
// HasAlias: the readers and merges take a slower, alias-safe path then; and the limit on
// an item's size with its aliases expanded, so that hostile YAML ends in a clear error
// instead of unbounded time or memory), and repeated map keys, which YAML forbids and
// yaml.v3 parses anyway (a merge would otherwise pair and write both copies), and the
// shape of an item's head (BadHead: apiVersion, kind, metadata, name, namespace,
// annotations and labels as kyaml reads and edits them). It only measures; callers turn
// a breach into their own error (a results entry naming the resource, or an API error).
//
// HasNullElement finds a null element in a list of primitives, which the merges drop.
//
// Callers: package function checks every item before a run (and promises the merge's
// options AliasFree and NullElementFree when no item has either), packages merge and apply check inputs
// they are given directly, package config bounds the functionConfig, and
// pkg/function/internal/resourcelist picks its alias-safe path with HasAlias and declines items
// whose head is malformed.
package bounds
