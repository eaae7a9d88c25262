package pkgupdate

// The bytes pkg update writes for a changed KRM file: dest's for every line the merge
// did not change (wrapped plain scalars, flow style, comments, indentation, "\r\n"),
// upstream's for the values it takes (internal/keepbytes).

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "pgregory.net/rapid"

	"github.com/krm-merge/krm-merge/internal/keepbytes"
	"github.com/krm-merge/krm-merge/internal/textmerge"
)

// gadgetsCRD is a CRD as controller-gen before v0.14 wrote it (sigs.k8s.io/yaml):
// descriptions wrapped at 80 columns as multi-line plain scalars, which yaml.v3 joins.
const gadgetsCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    controller-gen.kubebuilder.io/version: v0.4.1
  name: gadgets.example.com
spec:
  group: example.com
  names:
    kind: Gadget
    listKind: GadgetList
    plural: gadgets
    singular: gadget
  scope: Namespaced
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        description: Gadget is the Schema for the gadgets API. A gadget is a set of
          parts that a controller keeps running.
        properties:
          apiVersion:
            description: 'APIVersion defines the versioned schema of this representation
              of an object. Servers should convert recognized schemas to the latest
              internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources'
            type: string
          spec:
            description: GadgetSpec defines the desired state of Gadget, as the user
              writes it; the controller never changes it.
            properties:
              parts:
                description: Parts is the number of parts of the gadget. It must be
                  positive and at most ten.
                format: int32
                type: integer
              mode:
                description: Mode is how the controller runs the gadget, one of Fast
                  or Careful; Careful when it is empty.
                type: string
            type: object
        type: object
    served: true
    storage: true
`

const (
	partsV1 = `                description: Parts is the number of parts of the gadget. It must be
                  positive and at most ten.
`
	partsV2 = `                description: Parts is the number of parts of the gadget. It must be
                  positive and at most twenty; zero means the default, which the
                  controller picks.
`
)

// recordKeeps records how each written KRM file was made while the test runs.
func recordKeeps(t *testing.T) map[string]keepbytes.Result {
	t.Helper()
	got := map[string]keepbytes.Result{}
	keepHook = func(p string, r keepbytes.Result) { got[p] = r }
	t.Cleanup(func() { keepHook = nil })
	return got
}

// A plain copy of a CRD with wrapped descriptions (--repo): the update writes
// upstream's change and nothing else, so the package's diff is upstream's, line for line.
func TestUpdateKeepsWrappedScalars(t *testing.T) {
	v2 := strings.Replace(gadgetsCRD, partsV1, partsV2, 1)
	repo := upstreamRepo(t, "crds", release{tag: "v1", files: map[string]string{"crd.yaml": gadgetsCRD}},
		release{tag: "v2", files: map[string]string{"crd.yaml": v2}})
	dir := filepath.Join(t.TempDir(), "crds")
	writeFiles(t, dir, map[string]string{"crd.yaml": gadgetsCRD})
	keeps := recordKeeps(t)
	_, err := Update(context.Background(), Options{Dir: dir, Version: "v2", Repo: repo, Directory: "/crds", From: "v1", CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	got := read(t, filepath.Join(dir, "crd.yaml"))
	if ours, theirs := textmerge.Unified([]byte(gadgetsCRD), []byte(got), 3), textmerge.Unified([]byte(gadgetsCRD), []byte(v2), 3); ours != theirs {
		t.Errorf("the package's diff:\n%s\nupstream's:\n%s", ours, theirs)
	}
	if r := keeps["crd.yaml"]; r.Source != keepbytes.Kept || r.Rejected != 0 {
		t.Errorf("crd.yaml: %s, %d rejected", r.Source, r.Rejected)
	}
}

// A kpt copy (kpt pkg get joined the wrapped lines) with a Kptfile edited by hand: the
// changed description arrives as upstream wrote it, every other line stays, and the
// Kptfile's diff is the lock's lines.
func TestUpdateKptCopyChangesOnlyChangedLines(t *testing.T) {
	v2 := strings.Replace(gadgetsCRD, partsV1, partsV2, 1)
	kf := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: gadgets\n"
	repo := upstreamRepo(t, "crds", release{tag: "v1", files: map[string]string{"crd.yaml": gadgetsCRD, "Kptfile": kf}},
		release{tag: "v2", files: map[string]string{"crd.yaml": v2, "Kptfile": kf}})
	dir := filepath.Join(t.TempDir(), "crds")
	kptGet(t, "file://"+repo, "/crds", "v1", dir)
	kptfile := read(t, filepath.Join(dir, "Kptfile"))
	// our edits: a header, a description wrapped by hand, comments spaced our way
	kptfile = "# The gadgets, as we run them.\n" + strings.Replace(kptfile, "  name: crds\n",
		"  name: crds\ninfo:\n  description: The gadget CRDs, vendored from upstream and\n    updated with krm-merge pkg update.\n", 1)
	kptfile = strings.Replace(kptfile, "    directory: /crds\n    ref: v1\n    commit:", "    directory: /crds   #  where upstream keeps them\n    ref: v1\n    commit:", 1)
	writeFiles(t, dir, map[string]string{"Kptfile": kptfile})
	before := map[string]string{"Kptfile": kptfile, "crd.yaml": read(t, filepath.Join(dir, "crd.yaml"))}
	keeps := recordKeeps(t)
	if _, err := Update(context.Background(), options(dir, t)); err != nil {
		t.Fatal(err)
	}
	v1Commit, v2Commit := git(t, repo, "rev-parse", "v1"), git(t, repo, "rev-parse", "v2")
	crd := read(t, filepath.Join(dir, "crd.yaml"))
	joined := "                description: Parts is the number of parts of the gadget. It must be positive and at most ten.\n"
	if want := strings.Replace(before["crd.yaml"], joined, partsV2, 1); crd != want {
		t.Errorf("crd.yaml (-want +got):\n%s", textmerge.Unified([]byte(want), []byte(crd), 1))
	}
	want := strings.NewReplacer("    ref: v1\n", "    ref: v2\n", "commit: "+v1Commit, "commit: "+v2Commit).Replace(kptfile)
	if got := read(t, filepath.Join(dir, "Kptfile")); got != want {
		t.Errorf("Kptfile (-want +got):\n%s", textmerge.Unified([]byte(want), []byte(got), 1))
	}
	for _, p := range []string{"Kptfile", "crd.yaml"} {
		if r := keeps[p]; r.Source != keepbytes.Kept || r.Rejected != 0 {
			t.Errorf("%s: %s, %d rejected", p, r.Source, r.Rejected)
		}
	}
}

// setChecks sets rapid's case count to n when neither -rapid.checks nor RAPID_CHECKS
// gives one: each case here runs git.
func setChecks(t *testing.T, n int) {
	t.Helper()
	given := os.Getenv("RAPID_CHECKS") != ""
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "rapid.checks" })
	if !given {
		if err := flag.Set("rapid.checks", fmt.Sprint(n)); err != nil {
			t.Fatal(err)
		}
	}
}
