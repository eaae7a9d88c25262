// Package config reads and validates krm-merge's functionConfig.
//
// Two forms are accepted, with the same key names (docs/function.md,
// "functionConfig"):
//
//   - a ConfigMap whose data holds string values, as `kpt fn eval ... -- mode=2way` makes;
//   - a typed `fn.krm-merge.dev/v1alpha1 ResourceMerge` with the keys under spec,
//     validated against the OpenAPI schema in schema.go.
//
// The package only parses and validates: it never reads files or touches items.
package config
