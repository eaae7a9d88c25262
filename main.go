// Command krm-merge is a KRM function that merges Kubernetes resources: 3-way (the change
// from an original to an updated upstream, applied onto a local copy) and 2-way (src into
// dest). It reads a ResourceList on stdin and writes the merged ResourceList on stdout;
// with arguments it runs standalone: `krm-merge fn-config.yaml resources.yaml...`.
//
// `krm-merge pkg update DIR[@VERSION]` updates a package directory from its upstream
// (package pkgupdate, command in internal/cli/pkgcmd).
//
// This file only wires the processor (package function) into kyaml's command builder,
// with the fast ResourceList reader and writer (package resourcelist) on stdin, the
// input checks of kyaml's path and of standalone runs (package inputcheck) and the help
// text (package help), and adds the pkg command.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/fn/framework/command"

	"github.com/krm-merge/krm-merge/internal/cli/help"
	"github.com/krm-merge/krm-merge/internal/cli/pkgcmd"
	"github.com/krm-merge/krm-merge/internal/inputcheck"
	"github.com/krm-merge/krm-merge/internal/resourcelist"
	"github.com/krm-merge/krm-merge/pkg/function"
)

// version is stamped at build time (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	proc := &function.Processor{}
	cmd := command.Build(proc, command.StandaloneEnabled, false)
	cmd.Use = "krm-merge [fn-config.yaml [resources.yaml...]]"
	cmd.Short = "Merge Kubernetes resources 3-way or 2-way, as a KRM function"
	cmd.Version = version
	cmd.Long = help.Text()
	run := cmd.RunE
	// kyaml's path for a ResourceList on stdin: malformed input still gets a results entry
	kyamlStdin := func(c *cobra.Command, args []string, in io.Reader) error {
		in, err := inputcheck.ResourceList(in, c.OutOrStdout())
		if err != nil {
			return err
		}
		c.SetIn(in)
		return run(c, args)
	}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if len(args) > 0 { // standalone: fn-config.yaml resources.yaml...
			// kyaml writes only the items: the results go to stderr
			proc.Report = c.ErrOrStderr()
			// kyaml joins item files without a separator and checks no item's shape:
			// join and check them here, the items on stdin when no file is named.
			files := args[1:]
			if len(files) == 0 {
				files = []string{"-"}
			}
			in, err := inputcheck.Standalone(files, c.InOrStdin())
			if err != nil {
				fmt.Fprintln(c.ErrOrStderr(), err)
				return err
			}
			c.SetIn(in)
			args = []string{args[0], "-"}
			return run(c, args)
		}
		if stack, _ := c.Flags().GetBool("stack"); stack || os.Getenv("KUSTOMIZE_PLUGIN_CONFIG_STRING") != "" {
			if !stack {
				proc.Report = c.ErrOrStderr() // kustomize drops the results
			}
			return kyamlStdin(c, args, c.InOrStdin())
		}
		return resourcelist.Run(function.Processor{}, c.InOrStdin(), c.OutOrStdout(), c.ErrOrStderr(),
			func(in io.Reader) error { return kyamlStdin(c, args, in) }, memory())
	}
	cmd.AddCommand(pkgcmd.New())
	cmd.CompletionOptions.DisableDefaultCmd = true // "completion" stays a possible file argument
	if err := cmd.Execute(); err != nil {
		os.Exit(pkgcmd.ExitCode(err)) // 1, or pkg update's status for an update stopped at conflict markers
	}
}
