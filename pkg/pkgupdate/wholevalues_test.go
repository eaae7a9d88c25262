package pkgupdate

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/config"
)

// A conflict line cuts a long value around where the sides differ; the JSON report's
// row holds the three values whole, for a tool that resolves it.
func TestConflictRowsHoldWholeValues(t *testing.T) {
	long := func(tail string) string {
		return "gcr.io/knative-releases/knative.dev/eventing/cmd/apiserver_receive_adapter@sha256:" + strings.Repeat(tail, 64)
	}
	cm := func(v string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  note: " + v + "\n"
	}
	kptfile := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n"
	o, u, d := "original "+long("a"), "updated "+long("b"), "local "+long("c")
	repo := upstreamRepo(t, "catalog/app", release{tag: "v1", files: map[string]string{"Kptfile": kptfile, "cm.yaml": cm(o)}},
		release{tag: "v2", files: map[string]string{"Kptfile": kptfile, "cm.yaml": cm(u)}})
	work := filepath.Join(t.TempDir(), "work")
	git(t, t.TempDir(), "init", "-q", work)
	dir := filepath.Join(work, "my-app")
	kptGet(t, "file://"+repo, "/catalog/app", "v1", dir)
	writeFiles(t, dir, map[string]string{"cm.yaml": cm(d)})
	git(t, work, "add", "-A")
	git(t, work, "commit", "-qm", "get")
	opts := options(dir, t)
	opts.Merge = defaultMerge()
	opts.Merge.OnConflict = config.DestWins
	rep, err := Update(context.Background(), opts)
	if err != nil || rep.Conflicts() != 1 {
		t.Fatalf("%v, %+v", err, rep)
	}
	c := rep.Packages[0].Conflicts[0]
	if strings.Contains(c.Message, long("a")) || !strings.Contains(c.Message, "...") {
		t.Errorf("the message does not cut the long values: %s", c.Message)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var row map[string]interface{}
	if err := json.Unmarshal(b, &row); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"original": o, "updated": u, "dest": d} {
		if row[k] != want {
			t.Errorf("%s: %v, want %s", k, row[k], want)
		}
	}
}
