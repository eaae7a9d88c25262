package e2e

// `krm-merge pkg update` of a kpt copy holding kustomizations: the flux2 bases vendored
// for kpt (.krmignore'd JSON patches, each kustomization.yaml marked local-config, so a
// resource whose metadata has no name), one base new upstream.

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// fluxLocalConfig is what fluxKptUpstream puts after `kind: Kustomization` in every
// kustomization.yaml of the bases.
const fluxLocalConfig = "metadata:\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n"

// fluxKptUpstream builds the flux2 bases (v2.7.0, v2.9.4) into manifests/bases of a new
// git repository, each release tagged, as a maintainer vendoring them for kpt would: a
// .krmignore listing patch.yaml (kpt refuses to read a JSON 6902 patch list), every
// kustomization.yaml marked local-config under metadata.annotations (kpt packages'
// convention: `kpt fn render` and `kpt live` leave it out), and source-watcher/ absent
// from v2.7.0, so that it is a base upstream adds. It returns the repository's path.
func fluxKptUpstream(t *testing.T, data string) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "flux2")
	target := filepath.Join(repo, filepath.FromSlash(fluxPath))
	if err := os.MkdirAll(target, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "init", "-q", "-b", "main")
	for _, tag := range []string{fluxOld, fluxNew} {
		if err := os.RemoveAll(target); err != nil {
			t.Fatal(err)
		}
		copyTree(t, filepath.Join(data, "flux2-bases", tag), target)
		if tag == fluxOld {
			if err := os.RemoveAll(filepath.Join(target, "source-watcher")); err != nil {
				t.Fatal(err)
			}
		}
		writeFile(t, filepath.Join(target, ".krmignore"), []byte("patch.yaml\n"))
		ks, _ := filepath.Glob(filepath.Join(target, "*", "kustomization.yaml"))
		if len(ks) < 6 {
			t.Fatalf("%s: %d kustomizations", tag, len(ks))
		}
		for _, k := range ks {
			s := readFile(t, k)
			if !strings.HasPrefix(s, "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n") {
				t.Fatalf("%s: %s does not start as the test expects:\n%s", tag, k, s)
			}
			writeFile(t, k, []byte(strings.Replace(s, "kind: Kustomization\n", "kind: Kustomization\n"+fluxLocalConfig, 1)))
		}
		git(t, repo, "add", "-A")
		git(t, repo, "commit", "-q", "-m", tag)
		git(t, repo, "tag", tag)
	}
	return repo
}

// customiseFluxKpt makes the local changes of the kpt copy of the bases: an image
// mirror in source-controller's kustomization, a label in helm-controller's
// LabelTransformer, an op appended to kustomize-controller's (.krmignore'd) patch.yaml
// and a local file.
func customiseFluxKpt(t *testing.T, dir string) {
	t.Helper()
	appendTo := func(file, text string) {
		p := filepath.Join(dir, file)
		writeFile(t, p, []byte(readFile(t, p)+text))
	}
	appendTo("source-controller/kustomization.yaml", fluxMirror)
	appendTo("kustomize-controller/patch.yaml", fluxLocalOp)
	labels := filepath.Join(dir, "helm-controller/labels.yaml")
	s := readFile(t, labels)
	if !strings.Contains(s, "  app.kubernetes.io/part-of: flux\n") {
		t.Fatalf("helm-controller/labels.yaml:\n%s", s)
	}
	writeFile(t, labels, []byte(strings.Replace(s, "  app.kubernetes.io/part-of: flux\n",
		"  app.kubernetes.io/part-of: flux\n  team: platform # ours\n", 1)))
	writeFile(t, filepath.Join(dir, "NOTES.md"), []byte("Vendored from fluxcd/flux2 with kpt.\n"))
}

// The flux bases fetched with `kpt pkg get` (kustomizations without metadata.name, left
// alone by kpt), customised, updated to the release that adds source-watcher.
func TestPkgUpdateFluxKptKustomizations(t *testing.T) {
	requireKpt(t)
	data := requireData(t)
	t.Parallel()
	repo := fluxKptUpstream(t, data)
	work := workRepo(t)
	dir := kptGet(t, repo, fluxPath, fluxOld, work, "bases")
	fetched := snapshot(t, dir)
	// What kpt pkg get writes for the new release: the reference for upstream's change
	// as a kpt copy sees it, and for the base it adds.
	fetchedNew := snapshot(t, kptGet(t, repo, fluxPath, fluxNew, workRepo(t), "bases"))
	for _, c := range []string{"helm-controller", "source-controller"} {
		// kpt pkg get leaves a resource without name, namespace and labels alone: no
		// kpt-merge comment, no upstream identifier.
		k := fetched[c+"/kustomization.yaml"]
		if !strings.Contains(k, "kind: Kustomization\n"+fluxLocalConfig+"resources:\n") || strings.Contains(k, "kpt") {
			t.Fatalf("kpt pkg get wrote %s/kustomization.yaml otherwise than this test expects:\n%s", c, k)
		}
	}
	if _, ok := fetched["source-watcher/kustomization.yaml"]; ok {
		t.Fatal("source-watcher/ is in the old release")
	}
	commitAll(t, work, "kpt pkg get "+fluxOld)
	customiseFluxKpt(t, dir)
	commitAll(t, work, "customise")
	before := snapshot(t, dir)
	beforeDocs := krmDocs(t, dir, nil)
	cache := t.TempDir()

	r := mustUpdate(t, work, cache, "bases@"+fluxNew, "--output", "json", "--on-conflict", "updated") // kpt's policy, for the comparison below
	t.Logf("krm-merge pkg update bases@%s took %v", fluxNew, r.took)
	rep := parseReport(t, r)
	if len(rep.Packages) != 1 {
		t.Fatalf("report: %d packages\n%s", len(rep.Packages), r.stdout)
	}
	p := rep.Packages[0]
	if p.From.Ref != fluxOld || p.To.Ref != fluxNew || p.Counts.Conflicts != 0 || p.Counts.Added != 3 || p.Counts.Deleted != 0 {
		t.Errorf("report: from %s to %s, counts %+v", p.From.Ref, p.To.Ref, p.Counts)
	}
	var added []string
	for _, res := range p.Resources {
		if res.Action == "added" {
			added = append(added, res.File)
		}
	}
	sort.Strings(added)
	if want := []string{"source-watcher/account.yaml", "source-watcher/kustomization.yaml", "source-watcher/labels.yaml"}; !reflect.DeepEqual(added, want) {
		t.Errorf("added resources in %v, want %v", added, want)
	}
	after := snapshot(t, dir)

	// Every file but the Kptfile changed exactly as upstream's (kpt-fetched) files
	// changed, as multisets of lines: upstream's lines in, upstream's removed lines out,
	// every local line kept.
	files := map[string]bool{}
	for _, snap := range []map[string]string{fetched, fetchedNew, before, after} {
		for rel := range snap {
			files[rel] = true
		}
	}
	for rel := range files {
		if rel == "Kptfile" {
			continue
		}
		if _, old := fetched[rel]; !old {
			if _, local := before[rel]; local {
				if after[rel] != before[rel] {
					t.Errorf("%s, a local file, changed", rel)
				}
				continue
			}
			// the new base: each file as kpt pkg get writes upstream's
			if after[rel] != fetchedNew[rel] {
				t.Errorf("%s, new upstream, is not as kpt pkg get writes it:\n%s\nwant:\n%s", rel, after[rel], fetchedNew[rel])
			}
			continue
		}
		upRemoved, upAdded := lineDelta(fetched[rel], fetchedNew[rel])
		gotRemoved, gotAdded := lineDelta(before[rel], after[rel])
		if !reflect.DeepEqual(gotRemoved, upRemoved) || !reflect.DeepEqual(gotAdded, upAdded) {
			t.Errorf("%s: the update removed %v and added %v; upstream removed %v and added %v", rel, gotRemoved, gotAdded, upRemoved, upAdded)
		}
	}
	for _, c := range []string{"helm-controller", "image-automation-controller", "image-reflector-controller",
		"kustomize-controller", "notification-controller", "source-controller", "source-watcher"} {
		rel := c + "/kustomization.yaml"
		n, err := yaml.Parse(after[rel])
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		up, err := yaml.Parse(fetchedNew[rel])
		if err != nil {
			t.Fatal(err)
		}
		got, want := stringList(t, n, "resources"), stringList(t, up, "resources")
		sort.Strings(got)
		sort.Strings(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: resources %v, upstream's %v", rel, got, want)
		}
		if v := scalar(t, n, "metadata", "annotations", "config.kubernetes.io/local-config"); v != "true" || n.GetName() != "" ||
			strings.Contains(after[rel], "kpt-merge") || strings.Contains(after[rel], "upstream-identifier") {
			t.Errorf("%s: the kustomization is not as kpt pkg get leaves it (local-config %q, name %q):\n%s", rel, v, n.GetName(), after[rel])
		}
	}
	// The local changes, each where it was.
	if k := after["source-controller/kustomization.yaml"]; !strings.HasSuffix(k, fluxMirror) {
		t.Errorf("source-controller/kustomization.yaml lost the mirror:\n%s", k)
	}
	for file, want := range map[string]string{
		"helm-controller/labels.yaml":     "  app.kubernetes.io/part-of: flux\n  team: platform # ours\n",
		"kustomize-controller/patch.yaml": fluxLocalOp,
		"NOTES.md":                        "Vendored from fluxcd/flux2 with kpt.\n",
	} {
		if !strings.Contains(after[file], want) {
			t.Errorf("%s lost %q:\n%s", file, want, after[file])
		}
	}
	// The Kptfile records the new release.
	commit := strings.TrimSpace(git(t, repo, "rev-parse", fluxNew))
	for _, want := range []string{"    directory: /manifests/bases\n    ref: " + fluxNew + "\n  updateStrategy: resource-merge\n",
		"    ref: " + fluxNew + "\n    commit: " + commit + "\n"} {
		if !strings.Contains(after["Kptfile"], want) {
			t.Errorf("Kptfile lacks %q:\n%s", want, after["Kptfile"])
		}
	}
	commitAll(t, work, "update")
	if r := mustUpdate(t, work, cache, "bases@"+fluxNew); !strings.Contains(r.stdout, "Already up to date") {
		t.Errorf("second run:\n%s", r.stdout)
	}
	unchanged(t, "a second run", dir, after)

	t.Run("compared with kpt pkg update", func(t *testing.T) {
		kptDir := kptUpdate(t, snapshotDir(t, before, "bases"), fluxNew)
		kpt := snapshot(t, kptDir)
		notKptfile := func(n *yaml.RNode) bool { return n.GetKind() != "Kptfile" }
		compareWithKpt(t, krmDocsOf(t, beforeDocs, notKptfile), krmDocs(t, kptDir, notKptfile), krmDocs(t, dir, notKptfile),
			func(key, field, before, kpt, krm string) string {
				if strings.Contains(key, "#kustomize.config.k8s.io/Kustomization/") && strings.HasPrefix(field, ".resources[") && sameResources(t, kptDir, dir, key) {
					return "the same kustomization resources in another order: a URL new upstream has no predecessor in updated, " +
						"so it goes after dest's entries (kpt pkg update takes upstream's order)"
				}
				return ""
			})
		// Files that are no resources: the same, but for the new base's patch.yaml.
		for rel := range mergeKeys(kpt, after) {
			if rel == "Kptfile" || strings.HasSuffix(rel, ".yaml") && !strings.HasSuffix(rel, "/patch.yaml") {
				continue
			}
			switch {
			case rel == "source-watcher/patch.yaml":
				if _, ok := kpt[rel]; ok {
					t.Errorf("kpt pkg update added %s; the named difference below is gone", rel)
				} else if after[rel] != fetchedNew[rel] {
					t.Errorf("%s is not upstream's", rel)
				}
			case kpt[rel] != after[rel]:
				t.Errorf("%s: krm-merge's differs from kpt's:\n%s\nkpt:\n%s", rel, after[rel], kpt[rel])
			}
		}
		t.Log("deliberate difference from kpt pkg update: the new base's source-watcher/patch.yaml (listed in .krmignore) is added " +
			"as upstream has it (kpt pkg update adds no .krmignore'd file, so its source-watcher/kustomization.yaml names a patch that is not there)")
		// The Kptfiles record the same release.
		if kpt["Kptfile"] != after["Kptfile"] {
			t.Errorf("Kptfile differs from kpt's:\n%s\nkpt:\n%s", after["Kptfile"], kpt["Kptfile"])
		}
	})
}
