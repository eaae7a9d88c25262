package e2e

// The project blueprint (GoogleCloudPlatform/blueprints, catalog/project), a kpt package
// with a subpackage, upgraded from project-blueprint-v0.4.0 to v0.4.4 through the real
// `kpt fn eval --exec`, the way a kpt user takes a new blueprint release.
//
// The package (testdata/blueprints-project/README.md shows the layout):
//
//	pkg/Kptfile     the user's own workspace package (passes through)
//	pkg/original/   the older tag, copied from the upstream repository
//	pkg/updated/    the newer tag, copied likewise
//	pkg/dest/       the user's copy: `kpt pkg get` of the older tag from a git repository
//	                holding both tags (so kpt renamed its Kptfile, added its upstream
//	                lock, a `# kpt-merge:` comment and an upstream-identifier annotation
//	                on every resource, and `,kpt-pkg` to the blueprint annotations), then
//	                customised: setters applied, a local mutator, comments and a field
//	                changed (blueprintsCustomise)
//
// README.md and CHANGELOG.md stay in the role directories, as `kpt pkg get` and a copy of
// the tag leave them: kpt reads no .md file, so they are neither merged nor consumed.

import (
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

const (
	bpOld = "project-blueprint-v0.4.0"
	bpNew = "project-blueprint-v0.4.4"

	// bpSynthetic names the synthetic upstream step (see blueprintsSyntheticStep).
	bpSynthetic = "project-blueprint-v0.4.4+synthetic"
	// bpSyntheticFirst is bpSynthetic with the new mutator inserted first, before
	// apply-setters.
	bpSyntheticFirst = "project-blueprint-v0.4.4+synthetic-first"
)

// The setter values the user chose (kpt's apply-setters writes them into every
// `# kpt-set:` field).
var (
	bpRootSetters = map[string]string{"project-id": "acme-payments", "folder-name": "payments"}
	bpKCCSetters  = map[string]string{"project-id": "acme-payments", "management-project-id": "acme-mgmt"}
)

// dest's customisations that the checks look for (blueprintsCustomise).
const (
	bpSettersCommentWas = "# These defaults can be kept"
	bpSettersComment    = "# acme: reviewed, these defaults are right for us"
	bpApplySettersLine  = "# acme: values in setters.yaml"
	bpSetLabelsHead     = "# acme: cost-allocation labels on every resource"
	bpKCCSACommentWas   = "# Create GCP ServiceAccount for use by KCC to manage resources in this project"
	bpKCCSAComment      = "# acme: KCC's GCP service account; no keys are ever exported (security review)"
	bpOwnerRoleLineWas  = "    - role: roles/owner\n"
	bpOwnerRoleLine     = "    - role: roles/editor # acme: editor is enough, owner is break-glass only\n"
)

// The synthetic upstream step's additions (blueprintsSyntheticStep).
const (
	bpEnableServices   = "gcr.io/kpt-fn/enable-gcp-services:v0.1.0"
	bpAutoCreateSetter = "# kpt-set: ${auto-create-network}"
)

const (
	// bpWorkspaceKptfile is the user's workspace package around original/, updated/ and
	// dest/; it is outside every role directory and must pass through.
	bpWorkspaceKptfile   = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: landing-zone\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\ninfo:\n  description: acme's landing zone; dest/ is the project blueprint\n"
	bpLicenseFirstLine   = "# Copyright 2021 Google LLC\n"
	bpUpstreamRepoSubdir = "catalog/project"
)

// blueprintsUpstream makes a git repository laid out like GoogleCloudPlatform/blueprints
// (catalog/project) with one commit per tag, tagged, and returns the directory.
func blueprintsUpstream(t *testing.T, data string) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "blueprints")
	for i, tag := range []string{bpOld, bpNew} {
		dir := filepath.Join(repo, filepath.FromSlash(bpUpstreamRepoSubdir))
		if i > 0 {
			git(t, repo, "rm", "-r", "-q", bpUpstreamRepoSubdir)
		}
		copyTree(t, filepath.Join(data, "blueprints-project", tag), dir)
		if i == 0 {
			git(t, repo, "init", "-q")
		}
		git(t, repo, "add", "-A")
		git(t, repo, "commit", "-q", "-m", tag)
		git(t, repo, "tag", tag)
	}
	return repo
}

// kptPkgGet fetches the blueprint at tag from the repository into dir, as a user does.
func kptPkgGet(t *testing.T, repo, tag, dir string) {
	t.Helper()
	src := "file://" + filepath.ToSlash(repo) + ".git/" + bpUpstreamRepoSubdir + "@" + tag
	out, err := runCommand(filepath.Dir(dir), "kpt", "pkg", "get", src, dir)
	if err != nil {
		t.Fatalf("kpt pkg get %s %s: %v\n%s", src, dir, err, out)
	}
}

// blueprintsPackage builds the package: original/ is originalTag, updated/ is updatedTag
// (or, for bpSynthetic, v0.4.4 with the synthetic step applied), dest/ is `kpt pkg get`
// of originalTag, customised (blueprintsCustomise, then extra); then commits it to git.
func blueprintsPackage(t *testing.T, data, originalTag, updatedTag string, extra ...func(t *testing.T, dest string)) string {
	t.Helper()
	pkg := newPackageDir(t)
	writeFile(t, filepath.Join(pkg, "Kptfile"), []byte(bpWorkspaceKptfile))
	src := filepath.Join(data, "blueprints-project")
	copyTree(t, filepath.Join(src, originalTag), filepath.Join(pkg, "original"))
	if updatedTag == bpSynthetic || updatedTag == bpSyntheticFirst {
		copyTree(t, filepath.Join(src, bpNew), filepath.Join(pkg, "updated"))
		blueprintsSyntheticStep(t, filepath.Join(pkg, "updated"), updatedTag == bpSyntheticFirst)
	} else {
		copyTree(t, filepath.Join(src, updatedTag), filepath.Join(pkg, "updated"))
	}
	kptPkgGet(t, blueprintsUpstream(t, data), originalTag, filepath.Join(pkg, "dest"))
	blueprintsCustomise(t, filepath.Join(pkg, "dest"))
	for _, e := range extra {
		e(t, filepath.Join(pkg, "dest"))
	}
	gitInitCommit(t, pkg)
	return pkg
}

// replaceOnce replaces old by new in the file, failing the test unless old occurs
// exactly once: an edit in an editor.
func replaceOnce(t *testing.T, path, old, new string) {
	t.Helper()
	s := readFile(t, path)
	if n := strings.Count(s, old); n != 1 {
		t.Fatalf("%s: %q occurs %d times, want once", path, old, n)
	}
	writeFile(t, path, []byte(strings.Replace(s, old, new, 1)))
}

// blueprintsCustomise makes dest/ the user's copy:
//   - setters: project-id and folder-name in setters.yaml, project-id and
//     management-project-id in kcc-namespace/setters.yaml, then apply-setters as
//     `kpt fn render` runs it (the subpackage's setters on the subpackage, then the
//     root's on everything): every `# kpt-set:` field gets the value, the comment stays;
//   - a comment changed in setters.yaml (on folder-namespace);
//   - a local mutator in the Kptfile (set-labels, with a comment above it) and a line
//     comment on upstream's apply-setters;
//   - the comment between two documents of kcc-namespace/kcc.yaml (above the
//     IAMServiceAccount) rewritten;
//   - a field changed: the KCC owner binding's role is roles/editor, with a comment.
func blueprintsCustomise(t *testing.T, dest string) {
	t.Helper()
	editYAML(t, filepath.Join(dest, "setters.yaml"), func(docs []*yaml.RNode) {
		for k, v := range bpRootSetters {
			setField(t, docs[0], v, "data", k)
		}
	})
	replaceOnce(t, filepath.Join(dest, "setters.yaml"), bpSettersCommentWas, bpSettersComment)
	editYAML(t, filepath.Join(dest, "kcc-namespace", "setters.yaml"), func(docs []*yaml.RNode) {
		for k, v := range bpKCCSetters {
			setField(t, docs[0], v, "data", k)
		}
	})

	var sub, all []string
	for _, rel := range yamlFilesUnder(t, dest) {
		if filepath.Base(rel) == "setters.yaml" {
			continue
		}
		all = append(all, rel)
		if strings.HasPrefix(rel, "kcc-namespace/") {
			sub = append(sub, rel)
		}
	}
	if n := applySetters(t, dest, sub, bpKCCSetters) + applySetters(t, dest, all, bpRootSetters); n < 10 {
		t.Fatalf("apply-setters set only %d fields; the blueprint has some 20 project-id fields", n)
	}

	editYAML(t, filepath.Join(dest, "Kptfile"), func(docs []*yaml.RNode) {
		k := docs[0]
		mustLookup(t, k, "pipeline", "mutators", "[image=gcr.io/kpt-fn/apply-setters:v0.1]", "image").YNode().LineComment = bpApplySettersLine
		appendElement(t, k, "{image: gcr.io/kpt-fn/set-labels:v0.2.0, configMap: {team: payments, cost-center: cc-1234}}", "pipeline", "mutators")
		els, err := mustLookup(t, k, "pipeline", "mutators").Elements()
		if err != nil {
			t.Fatal(err)
		}
		els[len(els)-1].YNode().HeadComment = bpSetLabelsHead
	})

	replaceOnce(t, filepath.Join(dest, "kcc-namespace", "kcc.yaml"), bpKCCSACommentWas, bpKCCSAComment)
	replaceOnce(t, filepath.Join(dest, "kcc-namespace", "kcc-project-owner.yaml"), bpOwnerRoleLineWas, bpOwnerRoleLine)
}

// blueprintsSyntheticStep turns a copy of v0.4.4 into a synthetic next upstream release
// (the real tags add no setter, no `# kpt-set:` comment and no pipeline function between
// two others):
//   - a new setter, auto-create-network, at the end of setters.yaml;
//   - a `# kpt-set: ${auto-create-network}` comment on the Project's
//     auto-create-network annotation, whose value ("false") it does not change;
//   - a new mutator, enable-gcp-services, right after apply-setters in the Kptfile: in
//     dest it lands between apply-setters and the local set-labels, both commented.
func blueprintsSyntheticStep(t *testing.T, updated string, first bool) {
	t.Helper()
	path := filepath.Join(updated, "setters.yaml")
	writeFile(t, path, []byte(readFile(t, path)+"  auto-create-network: \"false\"\n"))
	replaceOnce(t, filepath.Join(updated, "project.yaml"),
		"    cnrm.cloud.google.com/auto-create-network: \"false\"\n",
		"    cnrm.cloud.google.com/auto-create-network: \"false\" "+bpAutoCreateSetter+"\n")
	if first {
		replaceOnce(t, filepath.Join(updated, "Kptfile"),
			"  mutators:\n",
			"  mutators:\n    - image: "+bpEnableServices+"\n")
		return
	}
	replaceOnce(t, filepath.Join(updated, "Kptfile"),
		"      configPath: setters.yaml\n",
		"      configPath: setters.yaml\n    - image: "+bpEnableServices+"\n")
}
