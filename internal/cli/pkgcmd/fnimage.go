//go:build fnimage

package pkgcmd

import (
	"errors"

	"github.com/spf13/cobra"
)

// ErrNotInImage is what `pkg update` fails with in the function image.
var ErrNotInImage = errors.New("krm-merge pkg update needs the git CLI, which the krm-merge container image " +
	"(a KRM function image) does not have: run the krm-merge binary where git is installed " +
	"(go install github.com/krm-merge/krm-merge@latest, or make build)")

// New returns the `pkg` command whose `update` fails with ErrNotInImage: the image
// leaves pkg/pkgupdate out (it needs git, and the image's size is capped).
func New() *cobra.Command {
	pkg := &cobra.Command{Use: "pkg", Short: "Work with kpt packages (not in the function image)"}
	pkg.AddCommand(&cobra.Command{
		Use:                "update DIR[@VERSION]",
		Short:              "Update a package from its upstream (not in the function image: it needs git)",
		DisableFlagParsing: true,
		SilenceUsage:       true,
		SilenceErrors:      true,
		RunE: func(c *cobra.Command, _ []string) error {
			c.PrintErrln("Error:", ErrNotInImage)
			return ErrNotInImage
		},
	})
	return pkg
}
