package pkgupdate

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// A multi-line value whose first line starts with a tab, held in a block with an
// indentation indicator, changed on both sides (merged inside, as git merge-file
// merges it), or a conflict alone, is written into the package as text that reads
// back: yaml.v3 writes such a value as a literal block it
// cannot read ("found a tab character where an indentation space is expected"),
// which failed the update.
func TestTabFirstValueUpdates(t *testing.T) {
	for _, c := range []struct{ name, o, u, d, want string }{
		{"merged inside", "\tt\n1\n2\n3\n", "\tt\nX\n2\n3\n", "\tt\n1\n2\nY\n", "\tt\nX\n2\nY\n"},
		{"conflict alone", "", "\t\n", "line 199", "\t\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A value starting with a tab is written as a file can hold it in a block:
			// with an indentation indicator (yaml.v3 reads it, and keeps the literal
			// style on the merged value, which it then writes without the indicator).
			cm := func(v string) string {
				f := strconv.Quote(v) + "\n"
				if strings.HasPrefix(v, "\t") && strings.HasSuffix(v, "\n") {
					f = "|2\n    " + strings.ReplaceAll(strings.TrimSuffix(v, "\n"), "\n", "\n    ") + "\n"
				}
				return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  f: " + f
			}
			kf := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n"
			repo := upstreamRepo(t, "catalog/app",
				release{tag: "v1", files: map[string]string{"Kptfile": kf, "cm.yaml": cm(c.o)}},
				release{tag: "v2", files: map[string]string{"Kptfile": kf, "cm.yaml": cm(c.u)}})
			work := filepath.Join(t.TempDir(), "work")
			git(t, t.TempDir(), "init", "-q", work)
			dir := filepath.Join(work, "my-app")
			kptGet(t, "file://"+repo, "/catalog/app", "v1", dir)
			writeFiles(t, dir, map[string]string{"cm.yaml": cm(c.d)})
			git(t, work, "add", "-A")
			git(t, work, "commit", "-qm", "get")
			if _, err := Update(context.Background(), options(dir, t)); err != nil {
				t.Fatal(err)
			}
			got := resource(t, filepath.Join(dir, "cm.yaml"), "ConfigMap", "c")
			v, err := got.Pipe(yaml.Lookup("data", "f"))
			if err != nil || v == nil {
				t.Fatalf("no data.f:\n%s", read(t, filepath.Join(dir, "cm.yaml")))
			}
			if f := v.YNode().Value; f != c.want {
				t.Errorf("data.f = %q, want %q\n%s", f, c.want, read(t, filepath.Join(dir, "cm.yaml")))
			}
		})
	}
}
