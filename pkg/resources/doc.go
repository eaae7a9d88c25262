// Package resources is the resource layer of every mode: it pairs the items of each role
// by identity (package roles), applies the mode's resource rules to each identity, calls
// the mode's engine for the pairs (package merge for 3way and 2way, package apply for
// apply), and assembles the output items and results. It is pure: no I/O.
//
// Each mode's rules are in one file (docs/roles-and-identity.md, "Resource rules"):
//
//	threeway.go  O U D merged; - U D merged as if O were empty; - U - added;
//	             O - D deleted upstream (a conflict when D changed it); O U - stays
//	             deleted locally (a warning when upstream changed it); - - D kept
//	twoway.go    S D merged; S only added; D only kept
//	apply.go     config and live applied (kubectl client-side apply); config only created;
//	             live only kept
//
// output.go assembles the output (input order, added items last, rebased into the dest
// directory), plan.go lists a merge's field changes for a plan, and results are built by
// package results from the typed outcomes (report.go).
//
// Host annotations (package host: kpt's and kyaml's path, index, id and seqindent, legacy
// and internal) and the role annotation are never merged: dest's are kept. Added items
// lose the role annotation; with path roles their path moves from the updated (src)
// directory into the dest directory.
package resources
