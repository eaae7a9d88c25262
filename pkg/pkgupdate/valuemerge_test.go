package pkgupdate

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/config"
)

// An image mirrored locally while upstream bumps the tag merges inside the value: the
// mirror stays, the new tag arrives, no conflict, and the report says what came from
// each side (also under onConflict mark, where the merge runs more than once).
func TestValueMergedInsideIsReported(t *testing.T) {
	customise := map[string]string{}
	for k, v := range custom {
		customise[k] = v
	}
	customise["deploy.yaml"] = strings.Replace(custom["deploy.yaml"], "image: app:1", "image: mirror.example.com/team/app:1", 1)
	for _, policy := range []config.ConflictPolicy{config.UpdatedWins, config.MarkConflicts} {
		t.Run(string(policy), func(t *testing.T) {
			dir, _ := localPackage(t, customise)
			opts := options(dir, t)
			opts.Merge = defaultMerge()
			opts.Merge.OnConflict = policy
			rep, err := Update(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if n := rep.Conflicts(); n != 0 {
				t.Errorf("conflicts: %+v", rep.Packages[0].Conflicts)
			}
			web := resource(t, filepath.Join(dir, "deploy.yaml"), "Deployment", "web")
			if got := field(t, web, "spec", "template", "spec", "containers", "[name=app]", "image"); got != "mirror.example.com/team/app:2" {
				t.Errorf("image %s, want the mirror at upstream's new tag", got)
			}
			m := rep.Packages[0].MergedInside
			if len(m) != 1 || m[0].File != "deploy.yaml" || m[0].Field != "spec.template.spec.containers[name=app].image" ||
				!strings.Contains(m[0].Message, "from updated the tag") || !strings.Contains(m[0].Message, "from dest the repository") {
				t.Errorf("merged inside: %+v", m)
			}
		})
	}
}
