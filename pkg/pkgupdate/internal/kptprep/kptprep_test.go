package kptprep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
)

// Each testdata/<name>.in.yaml, given kpt's bookkeeping by Resource, is what
// `kpt pkg get` made of it (testdata/<name>.kpt.yaml).
func TestResourceMatchesKptPkgGet(t *testing.T) {
	t.Setenv(DisableAttributionEnv, "")
	ins, err := filepath.Glob(filepath.Join("testdata", "*.in.yaml"))
	if err != nil || len(ins) < 5 {
		t.Fatalf("testdata: %v %v", ins, err)
	}
	for _, in := range ins {
		name := strings.TrimSuffix(filepath.Base(in), ".in.yaml")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", name+".kpt.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			docs, err := pkgio.Parse(src, name+".yaml")
			if err != nil || docs == nil {
				t.Fatalf("parse: %v", err)
			}
			for _, d := range docs {
				if err := Resource(d.Node); err != nil {
					t.Fatal(err)
				}
			}
			got, err := pkgio.Encode(pkgio.TakeHeader(src, docs), docs)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("got\n%s\nkpt pkg get wrote\n%s", got, want)
			}
		})
	}
}

func TestKptfilesAreLeftAlone(t *testing.T) {
	src := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n"
	docs, _ := pkgio.Parse([]byte(src), "Kptfile")
	if err := Resource(docs[0].Node); err != nil {
		t.Fatal(err)
	}
	if got, _ := pkgio.Encode(pkgio.TakeHeader([]byte(src), docs), docs); string(got) != src {
		t.Errorf("Kptfile changed: %s", got)
	}
}

func TestAttributionCanBeDisabled(t *testing.T) {
	t.Setenv(DisableAttributionEnv, "true")
	docs, _ := pkgio.Parse([]byte("apiVersion: storage.cnrm.cloud.google.com/v1beta1\nkind: StorageBucket\nmetadata:\n  name: b\n"), "b.yaml")
	if err := Resource(docs[0].Node); err != nil {
		t.Fatal(err)
	}
	if _, ok := docs[0].Node.GetAnnotations()[BlueprintAnnotation]; ok {
		t.Error("attribution with KPT_DISABLE_ATTRIBUTION set")
	}
}

// kpt's own attribution cases (kpt internal/util/attribution tests).
func TestRecordAction(t *testing.T) {
	for _, tc := range []struct{ cur, group, want string }{
		{"", "pkg", "kpt-pkg"},
		{"kpt-pkg", "fn", "kpt-pkg-fn"},
		{"kpt-pkg-fn", "live", "kpt-pkg-fn-live"},
		{"kpt-pkg-fn-live", "fn", "kpt-pkg-fn-live"},
		{"cnrm/landing-zone:networking/v0.4.0", "fn", "cnrm/landing-zone:networking/v0.4.0,kpt-fn"},
		{"cnrm/landing-zone:networking/v0.4.0,kpt-fn", "pkg", "cnrm/landing-zone:networking/v0.4.0,kpt-pkg-fn"},
		{"cnrm/landing-zone:networking/v0.4.0,kpt-fn,blueprints_controller", "pkg", "cnrm/landing-zone:networking/v0.4.0,kpt-pkg-fn,blueprints_controller"},
	} {
		if got := RecordAction(tc.cur, tc.group); got != tc.want {
			t.Errorf("RecordAction(%q, %q) = %q, want %q", tc.cur, tc.group, got, tc.want)
		}
	}
}
