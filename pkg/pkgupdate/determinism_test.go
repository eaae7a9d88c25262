package pkgupdate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/internal/textmerge"
	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/kptprep"
	"github.com/krm-merge/krm-merge/pkg/pkgupdate/internal/pkgio"
)

// The package of the determinism tests: two nameless kustomizations, only base's with a
// trailing comment block, the two changed upstream, and one genuine conflict (the
// ConfigMap's value, changed on both sides).
const (
	patchesComment = "# patches:\n# - path: patch.yaml\n"
	trailer        = "\n" + patchesComment // a blank line, then the block: the document's foot comment
	overlayHead    = "# the overlay\n"
)

func namelessKust(resources ...string) string {
	return "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- " + strings.Join(resources, "\n- ") + "\n"
}

var (
	namelessV1 = release{tag: "v1", files: map[string]string{
		"Kptfile":                    "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: tree\n",
		"base/kustomization.yaml":    namelessKust("cm.yaml") + trailer,
		"base/cm.yaml":               "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: \"1\"\n",
		"overlay/kustomization.yaml": overlayHead + namelessKust("../base"),
	}}
	namelessV2 = release{tag: "v2", files: map[string]string{
		"base/kustomization.yaml":    namelessKust("cm.yaml", "extra.yaml") + trailer,
		"base/extra.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n",
		"base/cm.yaml":               "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: \"2\"\n",
		"overlay/kustomization.yaml": overlayHead + namelessKust("../base", "../extra"),
	}}
	// local: a resource of our own in each kustomization, the conflicting value
	namelessLocal = map[string]string{
		"base/kustomization.yaml":    namelessKust("cm.yaml", "ours.yaml") + trailer,
		"base/ours.yaml":             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ours\n",
		"base/cm.yaml":               "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: \"3\"\n",
		"overlay/kustomization.yaml": overlayHead + namelessKust("../base", "../local"),
	}
)

// copyPackage copies the git work tree holding dir (its .git included) into a new
// temporary directory and returns the copy of dir.
func copyPackage(t *testing.T, dir string) string {
	t.Helper()
	work := filepath.Dir(dir)
	to := filepath.Join(t.TempDir(), "work")
	if err := os.CopyFS(to, os.DirFS(work)); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(to, filepath.Base(dir))
}

// A package with several nameless documents updates to the same bytes in every run,
// under updated and under mark, on one core and on all: each kustomization keeps its
// own comments (base its trailing block, overlay its head), and only the genuine
// conflict is reported and marked. Each run is a whole Update through git (a second
// apiece on a busy machine), so there are few; the merge step alone, where the output
// is decided, runs 50 times in TestNamelessDocumentsMergeDeterministic.
func TestNamelessDocumentsDeterministic(t *testing.T) {
	dirs, cache := markPackages(t, 1, namelessLocal, namelessV1, namelessV2)
	runs := 3
	if testing.Short() {
		runs = 2
	}
	for _, procs := range []int{0, 1} {
		for _, policy := range []config.ConflictPolicy{defaultMerge().OnConflict, config.MarkConflicts} {
			t.Run(fmt.Sprintf("GOMAXPROCS=%d/%s", procs, policy), func(t *testing.T) {
				if procs > 0 {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				}
				var first map[string]string
				for i := 0; i < runs; i++ {
					dir := copyPackage(t, dirs[0])
					rep, err := update(dir, cache, policy)
					var me *MarkedError
					if policy == config.MarkConflicts && !errors.As(err, &me) {
						t.Fatalf("run %d: want a MarkedError, got %v", i, err)
					}
					if policy != config.MarkConflicts && err != nil {
						t.Fatalf("run %d: %v", i, err)
					}
					if n := rep.Conflicts(); n != 1 {
						t.Errorf("run %d: %d conflicts, want the ConfigMap's only: %+v", i, n, rep.Packages[0].Conflicts)
					}
					got := snapshot(t, dir)
					for p, c := range got { // the state names the package's directory
						got[p] = strings.ReplaceAll(c, dir, "DIR")
					}
					checkOwnComments(t, i, got, policy == config.MarkConflicts)
					if first == nil {
						first = got
						continue
					}
					for p := range first {
						if got[p] != first[p] {
							t.Errorf("run %d: %s differs from run 0 (-run 0 +run %d):\n%s", i, p, i, textmerge.Unified([]byte(first[p]), []byte(got[p]), 1))
						}
					}
					if len(got) != len(first) {
						t.Errorf("run %d: %d files, run 0 wrote %d", i, len(got), len(first))
					}
					if t.Failed() {
						return
					}
				}
			})
		}
	}
}

// checkOwnComments checks a run's kustomizations: base keeps its trailing block once
// and gets no head, overlay keeps its head and gets no trailing block; neither holds
// markers, and under mark only base/cm.yaml does.
func checkOwnComments(t *testing.T, run int, files map[string]string, mark bool) {
	t.Helper()
	base, overlay := files["base/kustomization.yaml"], files["overlay/kustomization.yaml"]
	if n := strings.Count(base, patchesComment); n != 1 {
		t.Errorf("run %d: base/kustomization.yaml holds its trailing comment %d times:\n%s", run, n, base)
	}
	if strings.Contains(base, overlayHead) {
		t.Errorf("run %d: base/kustomization.yaml got overlay's comment:\n%s", run, base)
	}
	if strings.Contains(overlay, "# patches") {
		t.Errorf("run %d: overlay/kustomization.yaml got base's comment:\n%s", run, overlay)
	}
	if n := strings.Count(overlay, overlayHead); n != 1 {
		t.Errorf("run %d: overlay/kustomization.yaml holds its head comment %d times:\n%s", run, n, overlay)
	}
	for _, want := range []string{"- extra.yaml", "- ours.yaml"} {
		if !strings.Contains(base, want) {
			t.Errorf("run %d: base/kustomization.yaml lacks %q:\n%s", run, want, base)
		}
	}
	for p, c := range files {
		marked := strings.Contains(c, "<<<<<<< ")
		if want := mark && p == "base/cm.yaml"; marked != want {
			t.Errorf("run %d: %s markers %v, want %v:\n%s", run, p, marked, want, c)
		}
	}
}

// TestNamelessDocumentsMergeDeterministic is TestNamelessDocumentsDeterministic's
// check on the merge step alone (mergeFiles), 50 runs for each policy, on all cores and
// on one.
func TestNamelessDocumentsMergeDeterministic(t *testing.T) {
	dirs := writeTrees(t, namelessV1.files, namelessV2.files, namelessLocal)
	for _, procs := range []int{0, 1} {
		for _, policy := range []config.ConflictPolicy{defaultMerge().OnConflict, config.MarkConflicts} {
			t.Run(fmt.Sprintf("GOMAXPROCS=%d/%s", procs, policy), func(t *testing.T) {
				if procs > 0 {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				}
				var first map[string]string
				for i := 0; i < 50; i++ {
					got, pr, err := mergeFiles(dirs, policy)
					if err != nil {
						t.Fatalf("run %d: %v", i, err)
					}
					if n := len(pr.Conflicts); n != 1 {
						t.Errorf("run %d: %d conflicts, want the ConfigMap's only: %+v", i, n, pr.Conflicts)
					}
					checkOwnComments(t, i, got, policy == config.MarkConflicts)
					if first == nil {
						first = got
					} else if !reflect.DeepEqual(got, first) {
						for p := range first {
							if got[p] != first[p] {
								t.Errorf("run %d: %s differs from run 0 (-run 0 +run %d):\n%s", i, p, i, textmerge.Unified([]byte(first[p]), []byte(got[p]), 1))
							}
						}
						t.Errorf("run %d: files %v, run 0's %v", i, keysOf(got), keysOf(first))
					}
					if t.Failed() {
						return
					}
				}
			})
		}
	}
}

// writeTrees writes the original, updated and local files (the local copy is original's
// files changed as local says, "" removing one) into three new directories, and
// returns them in that order.
func writeTrees(t *testing.T, original, updated, local map[string]string) [3]string {
	t.Helper()
	merged := func(base, over map[string]string) map[string]string {
		out := map[string]string{}
		for p, c := range base {
			out[p] = c
		}
		for p, c := range over {
			out[p] = c
		}
		return out
	}
	var dirs [3]string
	for i, files := range []map[string]string{original, merged(original, updated), merged(original, local)} {
		dirs[i] = t.TempDir()
		writeFiles(t, dirs[i], files)
	}
	return dirs
}

// mergeFiles runs the merge step of an update (merger.merge, without git) on the
// trees in dirs (original, updated, dest), each resource given kpt pkg get's
// bookkeeping, under policy, and returns each file the update writes (with the
// content of markers under mark), "" for a file it deletes, and the package's report.
func mergeFiles(dirs [3]string, policy config.ConflictPolicy) (map[string]string, *PackageReport, error) {
	var t trees
	for i, tp := range []**pkgio.Tree{&t.original, &t.updated, &t.dest} {
		tree, err := pkgio.Read(dirs[i], pkgio.Options{})
		if err != nil {
			return nil, nil, err
		}
		for _, f := range tree.Files {
			for _, d := range f.Docs {
				if err := kptprep.Resource(d.Node); err != nil {
					return nil, nil, err
				}
			}
		}
		*tp = tree
	}
	m := defaultMerge()
	m.OnConflict = policy
	pr := &PackageReport{Path: ".", From: Version{Ref: "v1"}, To: Version{Ref: "v2"}}
	mg := &merger{cfg: functionConfig(m), rel: ".", src: &source{fromRef: "v1", toRef: "v2"}, pr: pr, marking: &marking{}}
	if err := mg.merge(t, nil); err != nil {
		return nil, nil, err
	}
	out := map[string]string{}
	for _, c := range mg.changes {
		out[c.change.Path] = string(c.change.Data)
	}
	return out, pr, nil
}

func keysOf(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// A nameless kustomization deleted upstream and changed locally is marked under mark
// with its own original as the base, never another file's kustomization, in every run.
func TestNamelessDeletedUpstreamMarkedWithItsOwnBase(t *testing.T) {
	v1 := map[string]string{
		"base/kustomization.yaml":    namelessKust("cm.yaml"),
		"overlay/kustomization.yaml": namelessKust("../base"),
		"other/kustomization.yaml":   namelessKust("../elsewhere"),
	}
	v2 := map[string]string{"overlay/kustomization.yaml": ""}
	local := map[string]string{"overlay/kustomization.yaml": namelessKust("../base", "../local")}
	dirs := writeTrees(t, v1, v2, local)
	var first string
	for i := 0; i < 20; i++ {
		got, pr, err := mergeFiles(dirs, config.MarkConflicts)
		if err != nil {
			t.Fatal(err)
		}
		if len(pr.Conflicts) != 1 {
			t.Fatalf("conflicts %+v, want overlay's only", pr.Conflicts)
		}
		marked := got["overlay/kustomization.yaml"]
		if base := side(t, marked, 'b'); base != v1["overlay/kustomization.yaml"] {
			t.Fatalf("run %d: the base side is\n%s\nwant overlay's original\n%s\nin\n%s", i, base, v1["overlay/kustomization.yaml"], marked)
		}
		if i == 0 {
			first = marked
		} else if marked != first {
			t.Fatalf("run %d differs from run 0:\n%s", i, textmerge.Unified([]byte(first), []byte(marked), 1))
		}
	}
}
