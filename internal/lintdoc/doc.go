// Package lintdoc checks krm-merge's documentation as code: its test
// (lintdoc_test.go) parses every non-test Go file of the module's root package
// (the krm-merge command) and of every package under pkg/ and internal/ with go/parser
// and go/ast, and fails with one line per finding:
//
//   - an exported identifier without a doc comment: a top-level func, a method on an
//     exported type, a type, a const or a var (a const or var in a parenthesized group
//     may be documented by the group's comment, as go doc shows it). Struct fields and
//     interface methods are not checked;
//   - a package under pkg/ or internal/ whose package comment is not in doc.go, or that
//     has more than one file carrying a package comment (the root package: more than
//     one, or none);
//   - a comment (doc comment or not) that points outside this repository, at the
//     workspace's shared directory beside it or its spec (the patterns are in the test:
//     forbidden), or at an issue by its number. Such pointers rot and mean nothing
//     to a user of the module; comments cite the project's own docs by file and
//     heading instead, e.g. (docs/merge-semantics.md, "Conflict").
//
// Run it with `go test ./internal/lintdoc`. It has no non-test code: nothing imports
// it.
package lintdoc
