package e2e

// flux2's kustomize bases (fluxcd/flux2, manifests/bases: one directory per controller)
// upgraded from v2.7.0 to v2.9.4 through the real `kpt fn eval --exec`, the way a
// kustomize user who vendored the bases takes a new flux release
// (testdata/flux2-bases/README.md).
//
//	pkg/.krmignore  the patch.yaml files of every role: they are JSON 6902 patches (a
//	                YAML list, not KRM), which kpt refuses to read
//	pkg/original/   v2.7.0, copied
//	pkg/updated/    v2.9.4, copied
//	pkg/dest/       v2.7.0, customised (flux2Customise)
//
// Every directory has a nameless kustomization.yaml and a LabelTransformer named
// `labels`: the function tells them apart by their path relative to the role directory.

import (
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

const (
	flux2Old = "v2.7.0"
	flux2New = "v2.9.4"

	flux2Mirror        = "registry.example.com/mirror/fluxcd/"
	flux2ImagesComment = "# acme: every flux image through our registry mirror"
	flux2ReplicasLine  = "# acme: HA, the controllers elect a leader"
	flux2LabelLine     = "# acme: cost allocation"
	flux2TeamLabel     = "acme.example.com/team"
)

var flux2Controllers = []string{
	"helm-controller", "image-automation-controller", "image-reflector-controller", "kustomize-controller",
	"notification-controller", "source-controller", "source-watcher",
}

// flux2Resources are the remote resources of a controller's kustomization at a tag.
func flux2Resources(t *testing.T, data, tag, controller string) []string {
	t.Helper()
	f := loadYAMLFile(t, filepath.Join(data, "flux2-bases", tag, controller, "kustomization.yaml"))
	var out []string
	for _, r := range stringList(t, f.docs[0], "resources") {
		if strings.HasPrefix(r, "https://") {
			out = append(out, r)
		}
	}
	if len(out) != 2 {
		t.Fatalf("%s %s: %d remote resources, want the CRDs and the Deployment: %v", tag, controller, len(out), out)
	}
	return out
}

// flux2Customise makes dest/ the user's copy:
//   - every kustomization pulls its controller's image through a mirror: an `images:`
//     entry with newName, under a comment;
//   - helm-controller's kustomization lists a local resource, netpol.yaml (added);
//   - kustomize-controller runs two replicas (`replicas:`, with a line comment);
//   - source-controller's LabelTransformer adds a team label (with a line comment); the
//     other six `labels` stay as upstream wrote them.
func flux2Customise(t *testing.T, dest string) {
	t.Helper()
	for _, c := range flux2Controllers {
		editYAML(t, filepath.Join(dest, c, "kustomization.yaml"), func(docs []*yaml.RNode) {
			k := docs[0]
			setField(t, k, "[{name: ghcr.io/fluxcd/"+c+", newName: "+flux2Mirror+c+"}]", "images")
			commentField(t, k, flux2ImagesComment, false, "images")
			switch c {
			case "helm-controller":
				appendElement(t, k, "netpol.yaml", "resources")
			case "kustomize-controller":
				setField(t, k, "[{name: kustomize-controller, count: 2}]", "replicas")
				mustLookup(t, k, "replicas", "[name=kustomize-controller]", "count").YNode().LineComment = flux2ReplicasLine
			}
		})
	}
	copyFile(t, filepath.Join(repoRoot, "e2e", "testdata", "flux2-bases", "netpol.yaml"), filepath.Join(dest, "helm-controller", "netpol.yaml"))
	editYAML(t, filepath.Join(dest, "source-controller", "labels.yaml"), func(docs []*yaml.RNode) {
		setField(t, docs[0], "platform", "labels", flux2TeamLabel)
		commentField(t, docs[0], flux2LabelLine, true, "labels", flux2TeamLabel)
	})
}

// flux2Run is one merge run on the flux2 package, with what the checks need from before
// it.
type flux2Run struct {
	pkg       string
	before    map[string]string // the package as committed
	reference map[string]string // the package as kpt writes it back unchanged
	run       kptRun
}

// runFlux2 builds the package (original/ and updated/ at the tags, dest/ the customised
// original tag, .krmignore), commits it and runs the merge through kpt.
func runFlux2(t *testing.T, data, originalTag, updatedTag string) *flux2Run {
	t.Helper()
	pkg := newPackageDir(t)
	src := filepath.Join(data, "flux2-bases")
	copyTree(t, filepath.Join(src, originalTag), filepath.Join(pkg, "original"))
	copyTree(t, filepath.Join(src, updatedTag), filepath.Join(pkg, "updated"))
	copyTree(t, filepath.Join(src, originalTag), filepath.Join(pkg, "dest"))
	var ignore strings.Builder
	ignore.WriteString("# JSON 6902 patches: YAML lists, not KRM; kpt must not read them.\n")
	for _, role := range []string{"original", "updated", "dest"} {
		for _, c := range flux2Controllers {
			ignore.WriteString(role + "/" + c + "/patch.yaml\n")
		}
	}
	writeFile(t, filepath.Join(pkg, ".krmignore"), []byte(ignore.String()))
	flux2Customise(t, filepath.Join(pkg, "dest"))
	gitInitCommit(t, pkg)
	r := &flux2Run{pkg: pkg, before: snapshot(t, pkg), reference: noopReference(t, pkg)}
	r.run = mustRunKpt(t, pkg, "", "originalPath=original", "updatedPath=updated", "destPath=dest")
	return r
}

// flux2Consumed reports whether kpt reads a file of original/ or updated/ (relative to
// the role directory), so that the merge consumes it.
func flux2Consumed(rel string) bool {
	return isYAMLOrKptfile(rel) && filepath.Base(rel) != "patch.yaml"
}

// TestFlux2Upgrade takes the real v2.7.0 -> v2.9.4 upgrade onto the customised copy:
// every kustomization's remote resources move to the new controller release, everything
// local stays, and no other file changes.
func TestFlux2Upgrade(t *testing.T) {
	requireKpt(t)
	data := requireData(t)
	t.Parallel()
	r := runFlux2(t, data, flux2Old, flux2New)
	dest := filepath.Join(r.pkg, "dest")

	// dest/ has 7 x (kustomization, labels, account) = 21 items from upstream, all merged,
	// and the local NetworkPolicy, kept.
	if sum, want := summaryOf(t, r.run), (summary{Merged: 21, Kept: 1}); sum != want {
		t.Errorf("summary %+v, want %+v; results:\n%s", sum, want, resultsText(r.run.Results))
	}
	if len(r.run.Results) != 1 {
		t.Errorf("want only the summary, got:\n%s", resultsText(r.run.Results))
	}

	for _, c := range flux2Controllers {
		rel := c + "/kustomization.yaml"
		got := loadYAMLFile(t, filepath.Join(dest, rel)).docs[0]
		// resources: upstream's new URLs replace the old ones; the local entries stay.
		// Under kpt an element new upstream goes as late as updated's order allows
		// (kpt pairs list elements by position when it restores comments): right before
		// account.yaml, their successor in updated, where the old URLs were.
		want := append(flux2Resources(t, data, flux2New, c), "account.yaml")
		if c == "helm-controller" {
			want = append(want, "netpol.yaml")
		}
		if gotRes := stringList(t, got, "resources"); strings.Join(gotRes, "\n") != strings.Join(want, "\n") {
			t.Errorf("dest/%s: resources\n  %s\nwant\n  %s", rel, strings.Join(gotRes, "\n  "), strings.Join(want, "\n  "))
		}
		// Everything else is dest's, field by field.
		expected, err := yaml.Parse(r.before["dest/"+rel])
		if err != nil {
			t.Fatal(err)
		}
		setField(t, expected, "["+strings.Join(want, ", ")+"]", "resources")
		if ok, diff := sameValue(t, got, expected); !ok {
			t.Errorf("dest/%s differs from dest's kustomization with the new resources: %s", rel, diff)
		}
		wantValue(t, "dest/"+rel, got, flux2Mirror+c, "images", "[name=ghcr.io/fluxcd/"+c+"]", "newName")
		if f := got.Field("images"); f == nil || f.Key.YNode().HeadComment != flux2ImagesComment {
			t.Errorf("dest/%s: the comment above images is gone", rel)
		}
	}
	k := loadYAMLFile(t, filepath.Join(dest, "kustomize-controller", "kustomization.yaml")).docs[0]
	wantValue(t, "dest/kustomize-controller/kustomization.yaml", k, "2", "replicas", "[name=kustomize-controller]", "count")
	wantContainsOnce(t, "dest/kustomize-controller/kustomization.yaml", readFile(t, filepath.Join(dest, "kustomize-controller", "kustomization.yaml")),
		"  count: 2 "+flux2ReplicasLine+"\n")

	// The LabelTransformers: source-controller's keeps the local label; none took another
	// directory's; each is byte for byte as kpt writes it.
	for _, c := range flux2Controllers {
		rel := c + "/labels.yaml"
		got := readFile(t, filepath.Join(dest, rel))
		if got != r.reference["dest/"+rel] {
			t.Errorf("dest/%s changed:\n%s", rel, firstLineDiff(r.reference["dest/"+rel], got))
		}
		lt := docIn(t, loadYAMLFile(t, filepath.Join(dest, rel)), "LabelTransformer", "labels")
		wantValue(t, "dest/"+rel, lt, c, "labels", "app.kubernetes.io/component")
		team := ""
		if c == "source-controller" {
			team = "platform"
		}
		wantValue(t, "dest/"+rel, lt, team, "labels", flux2TeamLabel)
	}
	wantContainsOnce(t, "dest/source-controller/labels.yaml", readFile(t, filepath.Join(dest, "source-controller", "labels.yaml")),
		"  "+flux2TeamLabel+": platform "+flux2LabelLine+"\n")

	// Files upstream did not change are as kpt writes them; patch.yaml (not read) and
	// netpol.yaml (local, with its header) byte for byte as they were.
	for _, c := range flux2Controllers {
		for _, f := range []string{"account.yaml", "patch.yaml"} {
			rel := "dest/" + c + "/" + f
			if got := readFile(t, filepath.Join(r.pkg, rel)); got != r.reference[rel] {
				t.Errorf("%s changed:\n%s", rel, firstLineDiff(r.reference[rel], got))
			}
		}
	}
	for _, rel := range []string{"dest/helm-controller/netpol.yaml", "dest/helm-controller/patch.yaml", ".krmignore"} {
		if got := readFile(t, filepath.Join(r.pkg, rel)); got != r.before[rel] {
			t.Errorf("%s changed:\n%s", rel, firstLineDiff(r.before[rel], got))
		}
	}

	checkComments(t, under(r.before, "dest"), snapshot(t, dest), nil, nil)
	checkOnlyDestAndSourcesChanged(t, r.pkg, flux2Consumed)
	if problems, _, _ := diffProblems("dest", under(r.before, "original"), under(r.before, "updated"), under(r.reference, "dest"), snapshot(t, dest)); len(problems) > 0 {
		t.Errorf("the merge changed dest/ beyond what upstream changed:\n  %s", strings.Join(problems, "\n  "))
	}

	// A second run with the sources restored changes nothing.
	merged := snapshot(t, dest)
	git(t, r.pkg, "checkout", "HEAD", "--", "original", "updated")
	again := mustRunKpt(t, r.pkg, "", "originalPath=original", "updatedPath=updated", "destPath=dest")
	if d := compareSnapshots(merged, snapshot(t, dest)); d != "" {
		t.Errorf("a second run with the sources restored changed dest/:\n%s", d)
	}
	if sum, want := summaryOf(t, again), (summary{Merged: 21, Kept: 1}); sum != want {
		t.Errorf("second run: summary %+v, want %+v", sum, want)
	}
}

// TestFlux2OriginalEqualsUpdated runs the merge with updated/ the older tag too: every
// dest/ file must be byte for byte what kpt writes back when the function changes nothing
// (kpt itself re-indents notification-controller's `patches:` list, which the file has
// in the other style than its `resources:`).
func TestFlux2OriginalEqualsUpdated(t *testing.T) {
	requireKpt(t)
	data := requireData(t)
	t.Parallel()
	r := runFlux2(t, data, flux2Old, flux2Old)
	if sum, want := summaryOf(t, r.run), (summary{Merged: 21, Kept: 1}); sum != want {
		t.Errorf("summary %+v, want %+v; results:\n%s", sum, want, resultsText(r.run.Results))
	}
	if len(r.run.Results) != 1 {
		t.Errorf("want only the summary, got:\n%s", resultsText(r.run.Results))
	}
	wantSameAsReference(t, "dest", snapshot(t, filepath.Join(r.pkg, "dest")), under(r.reference, "dest"))
	checkOnlyDestAndSourcesChanged(t, r.pkg, flux2Consumed)
}
