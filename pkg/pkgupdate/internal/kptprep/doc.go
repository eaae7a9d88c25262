// Package kptprep adds to the resources of a fetched package the bookkeeping that
// `kpt pkg get` adds, so that a package fetched by krm-merge compares equal to the
// same release fetched by kpt, and what kpt added to a local copy is not mistaken for
// a local change.
//
// What kpt 1.0.0-beta.56 adds, found by fetching packages with it and comparing (the
// e2e tests check it on real packages against kpt itself), to every resource of every
// KRM file of the package (subpackages included) except Kptfiles and resources without
// metadata:
//
//   - the line comment "kpt-merge: <namespace>/<name>" on the metadata key (replacing
//     any other line comment there; an existing kpt-merge comment is kept);
//   - the annotation internal.kpt.dev/upstream-identifier
//     "<group>|<kind>|<namespace>|<name>" with the namespace and name of that comment
//     ("default" for no namespace, cluster-scoped kinds included), replacing any value;
//   - for Config Connector kinds (an apiVersion containing ".cnrm."), "kpt-pkg" recorded
//     in the cnrm.cloud.google.com/blueprint annotation (kpt's attribution; skipped
//     when KPT_DISABLE_ATTRIBUTION is set, as kpt skips it).
//
// The root Kptfile's bookkeeping (name, upstream, upstreamLock) is package kptfile's.
//
// Only package pkgupdate calls it, on both fetched releases before merging.
package kptprep
