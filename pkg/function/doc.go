// Package function is krm-merge as a KRM function: a kyaml framework.ResourceListProcessor
// that reads the functionConfig (package config), turns it into each package's options
// (options.go: the config stops here), checks the items (checkitems.go), assigns roles
// (package roles), runs the mode's resource rules and engines (package resources), and
// writes the output items and results.
//
// Contract (docs/function.md): on success the ResourceList's items are the merged items
// and its results hold a summary, one warning per conflict and any warnings. On any
// error the items are emptied (nothing half-merged reaches the host), the results say
// what and where (resource, file, field), and Process returns the results as its error,
// so the binary exits 1 and kpt leaves the package untouched.
package function
