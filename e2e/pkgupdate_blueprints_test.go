package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

const (
	blueprintsOld  = "project-blueprint-v0.4.0"
	blueprintsNew  = "project-blueprint-v0.4.4"
	blueprintsPath = "catalog/project"
	// localMutator is the function added to the local Kptfile's pipeline.
	localMutator = "    - image: gcr.io/kpt-fn/set-labels:v0.2.0\n      configMap:\n        team: platform # ours\n"
	// runbookLine is a local line in README.md, where upstream changed nothing nearby.
	runbookLine = "- [Our runbook](https://runbooks.example.com/project)\n"
)

// pkgUpdateBlueprintsPackage fetches the project blueprint at v0.4.0 with kpt pkg get into a
// git repository and customises it as a user would: setters applied (project acme-web,
// a billing account), a function added to the Kptfile's pipeline, comments changed and
// added, a line in README.md; extra adds more local files. It returns the repository
// holding upstream, the work repository and the package.
func pkgUpdateBlueprintsPackage(t *testing.T, extra map[string]string) (repo, work, pkg string) {
	t.Helper()
	data := requireData(t)
	repo = upstreamRepo(t, data, "blueprints-project", blueprintsPath, blueprintsOld, blueprintsNew)
	work = workRepo(t)
	pkg = kptGet(t, repo, blueprintsPath, blueprintsOld, work, "acme-project")
	commitAll(t, work, "kpt pkg get")
	pkgUpdateApplySetters(t, pkg, map[string]string{"project-id": "acme-web", "billing-account-id": "0123AB-CDEF45-6789AB"})
	kf := filepath.Join(pkg, "Kptfile")
	writeFile(t, kf, []byte(readFile(t, kf)+localMutator))
	edit := func(file, old, new string) {
		p := filepath.Join(pkg, file)
		s := readFile(t, p)
		if !strings.Contains(s, old) {
			t.Fatalf("%s lacks %q", file, old)
		}
		writeFile(t, p, []byte(strings.Replace(s, old, new, 1)))
	}
	edit("project.yaml", `cnrm.cloud.google.com/auto-create-network: "false"`, `cnrm.cloud.google.com/auto-create-network: "false" # networks come from the shared VPC`)
	edit("kcc-namespace/kcc.yaml", "# Enable KCC for this namespace\n", "# Enable Config Connector for the acme-web namespace\n")
	edit("README.md", "## Resource References\n\n- [Project](https://cloud.google.com/config-connector/docs/reference/resource-docs/resourcemanager/project)\n",
		"## Resource References\n\n- [Project](https://cloud.google.com/config-connector/docs/reference/resource-docs/resourcemanager/project)\n"+runbookLine)
	for p, c := range extra {
		writeFile(t, filepath.Join(pkg, p), []byte(c))
	}
	commitAll(t, work, "customise")
	return repo, work, pkg
}

func TestPkgUpdateBlueprintsProject(t *testing.T) {
	requireKpt(t)
	t.Parallel()
	repo, work, pkg := pkgUpdateBlueprintsPackage(t, nil)
	before := snapshot(t, pkg)
	beforeDocs := krmDocs(t, pkg, nil)
	cache := t.TempDir()
	target := "acme-project@" + blueprintsNew

	plan := mustUpdate(t, work, cache, target, "--plan")
	unchanged(t, "--plan", pkg, before)
	for _, want := range []string{"modified CHANGELOG.md", "modified README.md", "modified Kptfile", "+    ref: " + blueprintsNew,
		"metadata.annotations.cnrm.cloud.google.com/ignore-clusterless: would add true"} {
		if !strings.Contains(plan.stdout, want) {
			t.Errorf("--plan output lacks %q:\n%s", want, plan.stdout)
		}
	}

	r := mustUpdate(t, work, cache, target, "--output", "json", "--on-conflict", "updated") // kpt's policy, for the comparisons below
	t.Logf("krm-merge pkg update %s took %v", target, r.took)
	rep := parseReport(t, r)
	if p := rep.Packages[0]; p.Counts.Conflicts != 0 || p.To.Ref != blueprintsNew || p.From.Ref != blueprintsOld {
		t.Errorf("report %+v", p)
	}
	after := krmDocs(t, pkg, nil)

	// Upstream's changes arrived.
	project := find(t, after, "project.yaml", "Project", "acme-web")
	wantScalar(t, project, "cnrm/landing-zone:project/v0.4.4,kpt-pkg", "metadata", "annotations", "cnrm.cloud.google.com/blueprint")
	sa := find(t, after, "kcc-namespace/kcc.yaml", "IAMServiceAccount", "kcc-acme-web")
	wantScalar(t, sa, "true", "metadata", "annotations", "cnrm.cloud.google.com/ignore-clusterless")
	wantScalar(t, sa, "cnrm/kcc-namespace/v0.4.4,kpt-pkg", "metadata", "annotations", "cnrm.cloud.google.com/blueprint")
	binding := find(t, after, "kcc-namespace/kcc.yaml", "IAMPartialPolicy", "acme-web-sa-workload-identity-binding")
	if v := scalar(t, binding.Node, "metadata", "annotations", "cnrm.cloud.google.com/project-id"); v != "" {
		t.Errorf("the annotation upstream deleted is still there: %q", v)
	}
	changelog := readFile(t, filepath.Join(pkg, "CHANGELOG.md"))
	if !strings.HasPrefix(changelog, "# Changelog\n\n## [0.4.4]") {
		t.Errorf("CHANGELOG.md did not take upstream's entries:\n%.300s", changelog)
	}
	readme := readFile(t, filepath.Join(pkg, "README.md"))
	for _, want := range []string{"|         Name          |", "```shell\n    kpt live apply", runbookLine} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md lacks %q (upstream's table and code blocks, and the local runbook line)", want)
		}
	}
	// setters.yaml: upstream dropped the blank line after the license header; the
	// header arrives once, as upstream has it (kpt pkg update writes it twice).
	setters := readFile(t, filepath.Join(pkg, "setters.yaml"))
	if n := strings.Count(setters, "Copyright 2021 Google LLC"); n != 1 || !strings.Contains(setters, "# limitations under the License.\napiVersion: v1\n") {
		t.Errorf("setters.yaml header (%d copies):\n%s", n, setters)
	}

	// Local changes stayed.
	wantScalar(t, project, "acme-web", "spec", "name")
	wantScalar(t, project, "0123AB-CDEF45-6789AB", "spec", "billingAccountRef", "external")
	for file, want := range map[string]string{
		"project.yaml":           `cnrm.cloud.google.com/auto-create-network: "false" # networks come from the shared VPC`,
		"kcc-namespace/kcc.yaml": "# Enable Config Connector for the acme-web namespace\n",
		"setters.yaml":           "  project-id: acme-web\n",
		"Kptfile":                localMutator,
	} {
		if !strings.Contains(readFile(t, filepath.Join(pkg, file)), want) {
			t.Errorf("%s lost the local %q", file, want)
		}
	}
	// The Kptfile records the new release.
	kf := readFile(t, filepath.Join(pkg, "Kptfile"))
	commit := strings.TrimSpace(git(t, repo, "rev-parse", blueprintsNew))
	for _, want := range []string{"    directory: /catalog/project\n    ref: " + blueprintsNew + "\n  updateStrategy: resource-merge",
		"    ref: " + blueprintsNew + "\n    commit: " + commit + "\n", "name: acme-project"} {
		if !strings.Contains(kf, want) {
			t.Errorf("Kptfile lacks %q:\n%s", want, kf)
		}
	}
	afterUpdate := snapshot(t, pkg)
	commitAll(t, work, "update")
	r = mustUpdate(t, work, cache, target)
	t.Logf("second run took %v", r.took)
	if !strings.Contains(r.stdout, "Already up to date") {
		t.Errorf("second run:\n%s", r.stdout)
	}
	unchanged(t, "a second run", pkg, afterUpdate)

	t.Run("upstream's Kptfile and local-config changes", func(t *testing.T) {
		kcc := readFile(t, filepath.Join(pkg, "kcc-namespace/Kptfile"))
		if !strings.Contains(kcc, "gcr.io/kpt-fn/starlark:v0.3") || !strings.Contains(kcc, `config.kubernetes.io/local-config: "true"`) {
			t.Errorf("kcc-namespace/Kptfile:\n%s", kcc)
		}
		if !strings.Contains(readFile(t, filepath.Join(pkg, "Kptfile")), `config.kubernetes.io/local-config: "true"`) {
			t.Error("Kptfile lacks upstream's local-config annotation")
		}
		v := readFile(t, filepath.Join(pkg, "kcc-namespace/validation.yaml"))
		if !strings.Contains(v, "kind: StarlarkRun") || !strings.Contains(v, "metadata: # kpt-merge: /validate-project-ns") {
			t.Errorf("validation.yaml:\n%s", v)
		}
		if !strings.Contains(readFile(t, filepath.Join(pkg, "kcc-namespace/setters.yaml")), `config.kubernetes.io/local-config: "true"`) {
			t.Error("kcc-namespace/setters.yaml lacks upstream's quoted annotation")
		}
	})

	t.Run("compared with kpt pkg update", func(t *testing.T) {
		kptDir := kptUpdate(t, snapshotDir(t, before, "acme-project"), blueprintsNew)
		notKpt := func(n *yaml.RNode) bool { return !isKptOrLocalConfig(n) }
		compareWithKpt(t, krmDocsOf(t, beforeDocs, notKpt), krmDocs(t, kptDir, notKpt), krmDocs(t, pkg, notKpt),
			func(key, field, before, kpt, krm string) string {
				if field == ".metadata.annotations.cnrm.cloud.google.com/blueprint" && krm == strings.TrimSuffix(kpt, `"`)+`,kpt-pkg"` {
					return "the blueprint annotation keeps kpt pkg get's kpt-pkg attribution (kpt pkg update drops it: " +
						"it compares with an upstream that lacks it and takes upstream's value)"
				}
				return ""
			})
		// Text files: kpt keeps a locally changed README.md as it is and drops upstream's
		// changes to it; krm-merge merges it line by line.
		kptReadme := readFile(t, filepath.Join(kptDir, "README.md"))
		if kptReadme != before["README.md"] {
			t.Errorf("kpt pkg update changed the local README.md; the comparison below assumes it keeps it")
		}
		if readme == kptReadme {
			t.Error("krm-merge's README.md is kpt's")
		}
		t.Log("deliberate difference from kpt pkg update: README.md changed locally is merged line by line (kpt keeps the local file and drops upstream's changes)")
		if got, want := readFile(t, filepath.Join(pkg, "CHANGELOG.md")), readFile(t, filepath.Join(kptDir, "CHANGELOG.md")); got != want {
			t.Error("CHANGELOG.md (not changed locally) differs from kpt's")
		}
		// kpt pkg update writes the license header of setters.yaml twice.
		if n := strings.Count(readFile(t, filepath.Join(kptDir, "setters.yaml")), "Copyright 2021 Google LLC"); n != 2 {
			t.Errorf("kpt pkg update wrote the setters.yaml header %d times; this comparison expects its duplicate", n)
		}
		t.Log("deliberate difference from kpt pkg update: a file's license header is taken once, as upstream changed it (kpt writes it twice)")
	})

	t.Run("compared with kpt pkg update: Kptfiles and local config", func(t *testing.T) {
		kptDir := kptUpdate(t, snapshotDir(t, before, "acme-project"), blueprintsNew)
		compareWithKpt(t, krmDocsOf(t, beforeDocs, isKptOrLocalConfig), krmDocs(t, kptDir, isKptOrLocalConfig),
			krmDocs(t, pkg, isKptOrLocalConfig), func(key, field, before, kpt, krm string) string {
				if field == ".metadata.annotations.config.kubernetes.io/local-config" && before == "true" && kpt == "true" && krm == `"true"` {
					return "upstream's change of local-config from the boolean true to the string \"true\" arrives " +
						"(kpt pkg update compares the two as one value and keeps dest's)"
				}
				return ""
			})
	})
}

// A local kustomization.yaml (a resource without metadata.name) is kept.
func TestPkgUpdateBlueprintsWithKustomization(t *testing.T) {
	requireKpt(t)
	t.Parallel()
	kustomization := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- project.yaml\n- kcc-namespace\n"
	_, work, pkg := pkgUpdateBlueprintsPackage(t, map[string]string{"kustomization.yaml": kustomization})
	mustUpdate(t, work, t.TempDir(), "acme-project@"+blueprintsNew)
	if got := readFile(t, filepath.Join(pkg, "kustomization.yaml")); got != kustomization {
		t.Errorf("kustomization.yaml:\n%s", got)
	}
}

func TestPkgUpdateBlueprintsConflict(t *testing.T) {
	requireKpt(t)
	t.Parallel()
	_, work, pkg := pkgUpdateBlueprintsPackage(t, nil)
	p := filepath.Join(pkg, "project.yaml")
	writeFile(t, p, []byte(strings.Replace(readFile(t, p), "cnrm/landing-zone:project/v0.4.0,kpt-pkg", "acme/project/v7", 1)))
	commitAll(t, work, "our own blueprint annotation")
	before := snapshot(t, pkg)
	r := pkgUpdate(t, work, t.TempDir(), "acme-project@"+blueprintsNew, "--on-conflict", "error")
	if r.code != 1 || !strings.Contains(r.stdout, "project.yaml: resourcemanager.cnrm.cloud.google.com/v1beta1 Project projects/acme-web: "+
		"metadata.annotations.cnrm.cloud.google.com/blueprint: changed on both sides") {
		t.Errorf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	unchanged(t, "--on-conflict error", pkg, before)
}

// find returns the resource kind/name of file among docs (from krmDocs).
func find(t *testing.T, docs map[string]*yaml.RNode, file, kind, name string) resource {
	t.Helper()
	for k, n := range docs {
		if strings.HasPrefix(k, file+"#") && n.GetKind() == kind && n.GetName() == name {
			return resource{File: file, Node: n}
		}
	}
	t.Fatalf("%s: no %s %s", file, kind, name)
	return resource{}
}

// krmDocsOf keeps the resources keep accepts.
func krmDocsOf(t *testing.T, docs map[string]*yaml.RNode, keep func(*yaml.RNode) bool) map[string]*yaml.RNode {
	out := map[string]*yaml.RNode{}
	for k, n := range docs {
		if keep(n) {
			out[k] = n
		}
	}
	return out
}

// snapshotDir writes a package snapshot into a new directory called name.
func snapshotDir(t *testing.T, snap map[string]string, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	for p, c := range snap {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(p)), []byte(c))
	}
	return dir
}
