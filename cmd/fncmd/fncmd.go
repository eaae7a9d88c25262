package fncmd

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kustomize/kyaml/fn/framework/command"

	"github.com/krm-merge/krm-merge/pkg/function"
)

// New returns the function command, `krm-merge [fn-config.yaml [resources.yaml...]]`:
// with no argument it reads a ResourceList on stdin and writes the merged ResourceList
// on stdout (the fast path, function.Serve; kyaml's path for input it declines, for
// `--stack` and under kustomize, where the results go to stderr); with arguments it runs
// standalone on the functionConfig and item files, the results on stderr. version is
// what --version prints. Errors from the command's Execute: the run's, after its
// error result was written.
func New(version string) *cobra.Command {
	proc := &function.Processor{}
	cmd := command.Build(proc, command.StandaloneEnabled, false)
	cmd.Use = "krm-merge [fn-config.yaml [resources.yaml...]]"
	cmd.Short = "Merge Kubernetes resources 3-way or 2-way, as a KRM function"
	cmd.Version = version
	cmd.Long = Text()
	run := cmd.RunE
	// kyaml's path for a ResourceList on stdin: malformed input still gets a results entry
	kyamlStdin := func(c *cobra.Command, args []string, in io.Reader) error {
		in, err := function.CheckResourceList(in, c.OutOrStdout())
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
			in, err := function.CheckStandalone(files, c.InOrStdin())
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
		return function.Serve(c.InOrStdin(), c.OutOrStdout(), c.ErrOrStderr(),
			func(in io.Reader) error { return kyamlStdin(c, args, in) }, memory())
	}
	cmd.CompletionOptions.DisableDefaultCmd = true // "completion" stays a possible file argument
	return cmd
}
