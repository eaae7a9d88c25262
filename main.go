// Command krm-merge is a KRM function that merges Kubernetes resources: 3-way (the change
// from an original to an updated upstream, applied onto a local copy) and 2-way (src into
// dest). It reads a ResourceList on stdin and writes the merged ResourceList on stdout;
// with arguments it runs standalone: `krm-merge fn-config.yaml resources.yaml...`.
// `krm-merge pkg update DIR[@VERSION]` updates a package directory from its upstream.
//
// This file only wires the two commands together: the function's (cmd/fncmd) and the
// pkg command under it (cmd/pkgcmd), and the exit status.
package main

import (
	"os"

	"github.com/krm-merge/krm-merge/cmd/fncmd"
	"github.com/krm-merge/krm-merge/cmd/pkgcmd"
)

// version is stamped at build time (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	cmd := fncmd.New(version)
	cmd.AddCommand(pkgcmd.New())
	if err := cmd.Execute(); err != nil {
		os.Exit(pkgcmd.ExitCode(err)) // 1, or pkg update's status for an update stopped at conflict markers
	}
}
