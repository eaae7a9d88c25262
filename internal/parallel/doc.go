// Package parallel runs independent pieces of work on every core. It holds the one
// work-sharing loop the reader (package resourcelist), role assignment (package roles)
// and the resource merges (package resources) use, so each decides only what runs in
// parallel, never how.
package parallel
