// Command gen writes pkg/apply/patchmeta's table.json.gz: the patch metadata of every kind
// of kubectl's built-in scheme, read from the k8s.io/api types of the version in go.mod.
// Run it through `go generate ./pkg/apply/patchmeta` after bumping k8s.io/api;
// TestTableIsCurrent fails until then.
//
// Usage: gen -o FILE
package main
