// Package kptfile reads and edits the upstream bookkeeping of a kpt v1 Kptfile
// (apiVersion kpt.dev/v1, kind Kptfile: upstream.git.{repo, directory, ref},
// upstream.updateStrategy, upstreamLock.git.{repo, directory, ref, commit}, as
// `kpt pkg get` writes them). Edits change the YAML nodes in place, so the rest of the
// file keeps its order, formatting and comments.
//
// Only package pkgupdate calls it, to read where a package comes from and to record the
// release it was updated to.
package kptfile
