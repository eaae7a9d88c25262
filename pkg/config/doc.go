// Package config reads and validates krm-merge's functionConfig: the configuration of
// one run (mode, how roles are chosen, who wins conflicts, where merge keys come from,
// the mergeKeys and fieldRules tables, plan) as docs/function.md, "functionConfig"
// defines it.
//
// # Shapes
//
// Input (Load): the ResourceList's functionConfig node, in one of two forms with the
// same key names (Keys lists them, with types, defaults and valid values):
//
//   - a v1 ConfigMap whose data holds string values, as `kpt fn eval DIR --exec
//     krm-merge -- mode=2way` makes it: booleans "true"/"false", associativeKeys
//     comma-separated, mergeKeys and fieldRules as YAML or JSON text;
//   - a typed fn.krm-merge.dev/v1alpha1 ResourceMerge with the keys under spec, in
//     native YAML types, plus inline resources (spec.original, spec.updated, spec.src),
//     validated first against the OpenAPI schema embedded from schema.yaml, so that
//     type errors name the field.
//
// nil, a null node or an empty map is the defaults (Defaults). Load decodes with kyaml's
// framework.LoadFunctionConfig (its ValidationSchemaProvider, Defaulter and Validator
// steps), after checking the form and keys itself; inline resources are validated and
// decoded cut down to the fields the schema checks, and copied once. Output: a *Config with
// every field filled; paths cleaned; mergeKeys as schema.ListOverride values and
// fieldRules as fieldrules.Rule values, parsed and checked. A Config built in Go is
// checked the same way by Config.Validate.
//
// The keys that decide how resources merge are one type, MergeSettings, embedded in
// Config (cfg.OnConflict is cfg.MergeSettings.OnConflict) and taken as it is by
// `krm-merge pkg update`; its defaults are DefaultMergeSettings, pkg update's
// PkgUpdateDefaults (onConflict mark), and MergeSettings.Config and Validate make and
// check the Config of a run with them.
//
// # Neighbours
//
// Package function loads the config (function.LoadConfig, which places each problem on
// the functionConfig resource) and turns it into roles.Options and resources.Options:
// the Config stops there, and no package below it sees it. Package filter
// (Filter.Config, filter.New) and package kptsdk (Processor.Config) take a Config too,
// and package pkgupdate its MergeSettings (Options.Merge). This package
// imports only schema (DefaultAssociativeKeys, ListOverride), fieldrules (Rule, ParsePath) and roles
// (CheckPath and Clean, so that a path key is read as the items' paths are): it never
// reads files, touches items or merges.
//
// # Rules
//
// The keys, their defaults and the modes' role keys are docs/function.md's
// ("functionConfig" table, "Modes", "Choosing roles"; the mergeKeys and fieldRules
// rows); onConflict is docs/merge-semantics.md, "Conflict". Load's documentation marks
// which of its checks the contract states and which are this package's reading of it.
//
// # Errors
//
// Load and Validate return Errors, one *Error per problem, in a stable order, each with
// the offending field's path in a results entry's notation ("data.mode",
// "spec.mergeKeys[0].listType"), the value, and the valid values when they are a
// finite set. Every message starts with ErrorPrefix ("functionConfig: "), so a user
// reading a result knows the configuration is at fault, not an item.
package config
