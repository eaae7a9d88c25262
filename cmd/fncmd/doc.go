// Package fncmd is the binary's function command (New): kyaml's command.Build around
// function.Processor, with the function's fast ResourceList reader and writer on stdin
// (function.Serve, under the collector policy of memory.go), the input checks of kyaml's
// path and of standalone runs (function.CheckResourceList, function.CheckStandalone),
// and the --help text (Text: what krm-merge does, how hosts run it, every
// functionConfig key from config.Keys, so the help cannot drift from what Load
// accepts, and the per-object annotations). main.go adds the pkg command to it.
package fncmd
