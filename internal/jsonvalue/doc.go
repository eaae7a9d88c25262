// Package jsonvalue compares JSON-like values: map[string]interface{},
// []interface{}, strings, booleans, numbers and nil, as encoding/json, kyaml's JSON
// reader or RNode.Map decode them.
//
// # Shapes
//
// Equal(a, b) reports whether two such values are the same value: maps by key, lists
// in order, numbers by value (int64 2 equals float64 2, a json.Number by its value),
// other scalars as Go values.
//
// # Neighbours
//
// Package plan's differ compares with it, and package apply, which works on the same
// decoded values, compares with it too; package merge compares YAML nodes by its own
// rules (merge.Equal, by tag and value).
package jsonvalue
