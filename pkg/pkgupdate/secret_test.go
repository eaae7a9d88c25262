package pkgupdate

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/config"
)

// pkg update's conflict and plan lines printed a Secret's data values (`dest
// TE9DQUxQ...`), which end up in CI logs: they are redacted, and a plan's diff of a
// file holding a Secret is held back, unless ShowSecretValues (--show-secret-values).
func TestSecretValuesAreRedacted(t *testing.T) {
	secret := func(pw string) string {
		return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: " + pw + "\n"
	}
	kptfile := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n"
	repo := upstreamRepo(t, "catalog/app", release{tag: "v1", files: map[string]string{"Kptfile": kptfile, "secret.yaml": secret("T1JJR0lOQUw=")}},
		release{tag: "v2", files: map[string]string{"Kptfile": kptfile, "secret.yaml": secret("VVBEQVRFRA==")}})
	for _, show := range []bool{false, true} {
		for _, plan := range []bool{false, true} {
			work := filepath.Join(t.TempDir(), "work")
			git(t, t.TempDir(), "init", "-q", work)
			dir := filepath.Join(work, "my-app")
			kptGet(t, "file://"+repo, "/catalog/app", "v1", dir)
			writeFiles(t, dir, map[string]string{"secret.yaml": secret("TE9DQUxQQVNT")})
			git(t, work, "add", "-A")
			git(t, work, "commit", "-qm", "get")
			opts := options(dir, t)
			opts.Merge = defaultMerge()
			opts.Merge.OnConflict = config.UpdatedWins
			opts.Merge.ShowSecretValues = show
			opts.Plan = plan
			rep, err := Update(context.Background(), opts)
			if err != nil || rep.Conflicts() != 1 {
				t.Fatalf("show %v plan %v: %v, %+v", show, plan, err, rep)
			}
			// the whole report: conflicts, warnings, plan changes and a plan's file diffs
			b, _ := json.Marshal(rep)
			out := string(b)
			for _, v := range []string{"T1JJR0lOQUw=", "VVBEQVRFRA==", "TE9DQUxQQVNT"} {
				if strings.Contains(out, v) != show {
					t.Errorf("show %v plan %v: the report holds %s: %v\n%s", show, plan, v, !show, out)
				}
			}
			if !show && !strings.Contains(out, "redacted: 12 bytes, sha256:") {
				t.Errorf("plan %v: no redacted value:\n%s", plan, out)
			}
		}
	}
}
