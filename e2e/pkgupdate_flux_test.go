package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

const (
	fluxOld  = "v2.7.0"
	fluxNew  = "v2.9.4"
	fluxPath = "manifests/bases"
	// fluxMirror is the local images entry of source-controller/kustomization.yaml.
	fluxMirror = "images:\n- name: ghcr.io/fluxcd/source-controller\n  newName: registry.example.com/mirror/source-controller\n"
	// fluxLocalOp is a local op appended to kustomize-controller/patch.yaml.
	fluxLocalOp = "- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --concurrent=10\n"
)

// customiseFlux makes the local changes of the flux bases: an image mirror in a
// kustomization, a label in a LabelTransformer, an op in a JSON patch, an annotation
// on a ServiceAccount and a local file.
func customiseFlux(t *testing.T, dir string) {
	t.Helper()
	appendTo := func(file, text string) {
		p := filepath.Join(dir, file)
		writeFile(t, p, []byte(readFile(t, p)+text))
	}
	appendTo("source-controller/kustomization.yaml", fluxMirror)
	appendTo("kustomize-controller/patch.yaml", fluxLocalOp)
	labels := filepath.Join(dir, "helm-controller/labels.yaml")
	writeFile(t, labels, []byte(strings.Replace(readFile(t, labels), "  app.kubernetes.io/part-of: flux\n",
		"  app.kubernetes.io/part-of: flux\n  team: platform # ours\n", 1)))
	account := loadYAMLFile(t, filepath.Join(dir, "notification-controller/account.yaml"))
	setField(t, account.find(t, "ServiceAccount", "notification-controller"), "arn:aws:iam::123456789012:role/flux",
		"metadata", "annotations", "eks.amazonaws.com/role-arn")
	account.save(t)
	writeFile(t, filepath.Join(dir, "NOTES.md"), []byte("Vendored from fluxcd/flux2.\n"))
}

// The flux bases vendored from git without a Kptfile (copied, not fetched with kpt),
// updated with --repo, --directory, --from and the new version.
func TestPkgUpdateFluxBases(t *testing.T) {
	data := requireData(t)
	t.Parallel()
	repo := upstreamRepo(t, data, "flux2-bases", fluxPath, fluxOld, fluxNew)
	for _, variant := range []struct {
		name, skip string
		config     string // functionConfig, "" for none
		krmignore  bool   // kustomization.yaml listed in .krmignore (merged as text)
	}{
		{name: "as vendored"},
		{name: "kustomizations as text, mergeOnPath", krmignore: true,
			config: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: merge\ndata:\n  mergeOnPath: \"true\"\n"},
	} {
		t.Run(variant.name, func(t *testing.T) {
			if variant.skip != "" {
				t.Skip(variant.skip)
			}
			work := workRepo(t)
			dir := filepath.Join(work, "bases")
			copyTree(t, filepath.Join(data, "flux2-bases", fluxOld), dir)
			args := []string{"bases", "--repo", "file://" + repo, "--directory", "/" + fluxPath, "--from", fluxOld, "--to", fluxNew}
			if variant.krmignore {
				writeFile(t, filepath.Join(dir, ".krmignore"), []byte("kustomization.yaml\n"))
			}
			if variant.config != "" {
				cfg := filepath.Join(t.TempDir(), "merge.yaml")
				writeFile(t, cfg, []byte(variant.config))
				args = append(args, "--config", cfg)
			}
			commitAll(t, work, "vendor flux bases "+fluxOld)
			customiseFlux(t, dir)
			commitAll(t, work, "customise")
			before := snapshot(t, dir)
			beforeDocs := krmDocs(t, dir, nil)
			cache := t.TempDir()

			// the version is required without a Kptfile
			if r := pkgUpdate(t, work, cache, "bases", "--repo", "file://"+repo, "--from", fluxOld); r.code != 1 || !strings.Contains(r.stderr, "version") {
				t.Errorf("no version: exit %d\n%s", r.code, r.stderr)
			}
			plan := mustUpdate(t, work, cache, append(args, "--plan")...)
			unchanged(t, "--plan", dir, before)
			if !strings.Contains(plan.stdout, "modified source-controller/kustomization.yaml") {
				t.Errorf("--plan:\n%s", plan.stdout)
			}
			r := mustUpdate(t, work, cache, append(args, "--on-conflict", "updated")...) // kpt's policy, for the comparison below
			t.Logf("krm-merge pkg update (flux bases, 7 controllers) took %v", r.took)

			for _, c := range []string{"helm-controller", "image-automation-controller", "image-reflector-controller",
				"kustomize-controller", "notification-controller", "source-controller", "source-watcher"} {
				k := readFile(t, filepath.Join(dir, c, "kustomization.yaml"))
				if strings.Contains(k, "/v1.4.0/") || strings.Contains(k, "/v1.7.0/") || !strings.Contains(k, "releases/download/v") {
					t.Errorf("%s/kustomization.yaml still points at the old releases:\n%s", c, k)
				}
				if want := before[c+"/kustomization.yaml"]; k == want {
					t.Errorf("%s/kustomization.yaml unchanged", c)
				}
			}
			if k := readFile(t, filepath.Join(dir, "source-controller/kustomization.yaml")); !strings.Contains(k, "/v1.9.4/source-controller.crds.yaml") || !strings.HasSuffix(k, fluxMirror) {
				t.Errorf("source-controller/kustomization.yaml (upstream's release, our mirror):\n%s", k)
			}
			if p := readFile(t, filepath.Join(dir, "kustomize-controller/patch.yaml")); !strings.HasSuffix(p, fluxLocalOp) {
				t.Errorf("patch.yaml lost the local op:\n%s", p)
			}
			for file, want := range map[string]string{
				"helm-controller/labels.yaml":          "team: platform # ours",
				"notification-controller/account.yaml": "eks.amazonaws.com/role-arn: arn:aws:iam::123456789012:role/flux",
				"NOTES.md":                             "Vendored from fluxcd/flux2.",
			} {
				if !strings.Contains(readFile(t, filepath.Join(dir, file)), want) {
					t.Errorf("%s lost %q", file, want)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "Kptfile")); !os.IsNotExist(err) {
				t.Errorf("a Kptfile was written: %v", err)
			}
			after := snapshot(t, dir)
			commitAll(t, work, "update")
			again := append([]string(nil), args...)
			for i := range again {
				if again[i] == fluxOld {
					again[i] = fluxNew // the directory is now at the new release
				}
			}
			mustUpdate(t, work, cache, again...)
			unchanged(t, "a second run from "+fluxNew, dir, after)

			t.Run("compared with kpt pkg update", func(t *testing.T) {
				requireKpt(t)
				kwork := workRepo(t)
				kpkg := kptGet(t, repo, fluxPath, fluxOld, kwork, "bases")
				customiseFlux(t, kpkg)
				if variant.krmignore {
					writeFile(t, filepath.Join(kpkg, ".krmignore"), []byte("kustomization.yaml\n"))
				}
				commitAll(t, kwork, "customise")
				cmd := []string{"pkg", "update", "bases@" + fluxNew}
				if out, err := execIn(kwork, "kpt", cmd...); err != nil {
					t.Fatalf("kpt pkg update: %v\n%s", err, out)
				}
				byName := func(docs map[string]*yaml.RNode) map[string]*yaml.RNode {
					out := map[string]*yaml.RNode{}
					for k, n := range docs {
						out[k[:strings.Index(k, "#")]+"#"+idOf(n).String()] = n
					}
					return out
				}
				notKptfile := func(n *yaml.RNode) bool { return n.GetKind() != "Kptfile" }
				compareWithKpt(t, byName(krmDocsOf(t, beforeDocs, notKptfile)), byName(krmDocs(t, kpkg, notKptfile)), byName(krmDocs(t, dir, notKptfile)),
					func(key, field, before, kpt, krm string) string {
						if field == ".metadata.annotations.internal.kpt.dev/upstream-identifier" || (field == ".metadata.annotations" && krm == "") {
							return "kpt pkg get's bookkeeping: a directory vendored without kpt has none"
						}
						if strings.Contains(key, "/Kustomization/") && kpt == before {
							return "upstream's changes to a .krmignore'd kustomization.yaml arrive (kpt pkg update leaves a .krmignore'd file as it was)"
						}
						if strings.Contains(key, "/Kustomization/") && strings.HasPrefix(field, ".resources[") && sameResources(t, kpkg, dir, key) {
							return "the same kustomization resources in another order: a URL new upstream has no predecessor in updated, " +
								"so it goes after dest's entries (kpt pkg update takes upstream's order)"
						}
						return ""
					})
			})
		})
	}
}

// sameResources reports whether the kustomization of key (its file before "#") lists
// the same resources, in any order, in kpt's directory and krm-merge's.
func sameResources(t *testing.T, kptDir, krmDir, key string) bool {
	t.Helper()
	file := key[:strings.Index(key, "#")]
	list := func(dir string) string {
		n, err := yaml.Parse(readFile(t, filepath.Join(dir, file)))
		if err != nil {
			t.Fatal(err)
		}
		got := stringList(t, n, "resources")
		sort.Strings(got)
		return strings.Join(got, "\n")
	}
	return list(kptDir) == list(krmDir)
}

func execIn(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}
