package e2e

// The project blueprint's upgrade through the real `kpt fn eval --exec`, and the checks
// of what kpt leaves behind; blueprints_fixture_test.go builds the package.

import (
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// bpArgs are the function's arguments: path roles, everything else by default.
var bpArgs = []string{"originalPath=original", "updatedPath=updated", "destPath=dest"}

// bpRun is one merge run on a blueprint package, with what the checks need from before
// it.
type bpRun struct {
	pkg        string
	destBefore map[string]string // dest/ as committed
	original   map[string]string // original/ as committed
	updated    map[string]string // updated/ as committed
	reference  map[string]string // the package as kpt writes it back unchanged
	run        kptRun
}

// runBlueprints builds the package and runs the merge through kpt.
func runBlueprints(t *testing.T, data, originalTag, updatedTag string, extra ...func(t *testing.T, dest string)) *bpRun {
	t.Helper()
	r := &bpRun{pkg: blueprintsPackage(t, data, originalTag, updatedTag, extra...)}
	r.destBefore = snapshot(t, filepath.Join(r.pkg, "dest"))
	r.original = snapshot(t, filepath.Join(r.pkg, "original"))
	r.updated = snapshot(t, filepath.Join(r.pkg, "updated"))
	r.reference = noopReference(t, r.pkg)
	r.run = mustRunKpt(t, r.pkg, "", bpArgs...)
	return r
}

func (r *bpRun) dest(rel string) string { return filepath.Join(r.pkg, "dest", filepath.FromSlash(rel)) }

// doc is the document of kind (and name, when given) in dest/rel after the run.
func (r *bpRun) doc(t *testing.T, rel, kind, name string) *yaml.RNode {
	t.Helper()
	return docIn(t, loadYAMLFile(t, r.dest(rel)), kind, name)
}

// checkHeaders checks that every YAML file of dest/ starts with the header kpt writes for
// it when nothing changes (the license, and the comment above the first resource, less
// the blank line kpt drops), and holds the license once.
func (r *bpRun) checkHeaders(t *testing.T) {
	t.Helper()
	ref := under(r.reference, "dest")
	checked := 0
	for _, rel := range yamlFilesUnder(t, filepath.Join(r.pkg, "dest")) {
		got := readFile(t, r.dest(rel))
		want, ok := ref[rel]
		if !ok { // added by the merge: the header of upstream's file, as kpt writes it
			want = r.reference["updated/"+rel]
		}
		if !strings.HasPrefix(want, bpLicenseFirstLine) {
			continue
		}
		checked++
		if h := leadingComments(got); h != leadingComments(want) {
			t.Errorf("dest/%s: header differs from what kpt writes for the file:\n%s", rel, firstLineDiff(leadingComments(want), h))
		}
		if n := strings.Count(got, bpLicenseFirstLine); n != 1 {
			t.Errorf("dest/%s holds the license header %d times, want once", rel, n)
		}
	}
	if checked < 7 {
		t.Errorf("checked the header of %d files of dest/, want at least the 7 licensed YAML files of v0.4.0", checked)
	}
}

// checkSetterFields checks that every `# kpt-set:` field of dest/ before the run is still
// there with its value and comment, except those in gone ("file kind/name path").
func (r *bpRun) checkSetterFields(t *testing.T, gone ...string) {
	t.Helper()
	before, after := setterFields(t, r.destBefore), setterFields(t, snapshot(t, filepath.Join(r.pkg, "dest")))
	isGone := map[string]bool{}
	for _, g := range gone {
		isGone[g] = true
	}
	for _, k := range sortedKeys(before) {
		b, a := before[k], after[k]
		switch {
		case isGone[k]:
			if a != (setterField{}) {
				t.Errorf("%s: still there (%q %s), upstream removed it", k, a.Value, a.Comment)
			}
		case a != b:
			t.Errorf("%s: %q %s after the merge, want dest's %q %s", k, a.Value, a.Comment, b.Value, b.Comment)
		}
	}
	if len(before) < 20 {
		t.Errorf("dest/ had %d `# kpt-set:` fields, want the blueprint's 25 or so", len(before))
	}
}

// checkRerun restores original/ and updated/ from git, runs the same merge on the merged
// dest/ and checks that nothing changes and nothing conflicts.
func (r *bpRun) checkRerun(t *testing.T) {
	t.Helper()
	before := snapshot(t, filepath.Join(r.pkg, "dest"))
	git(t, r.pkg, "checkout", "HEAD", "--", "original", "updated")
	run := mustRunKpt(t, r.pkg, "", bpArgs...)
	if d := compareSnapshots(before, snapshot(t, filepath.Join(r.pkg, "dest"))); d != "" {
		t.Errorf("a second run with the sources restored changed dest/:\n%s", d)
	}
	if sum := summaryOf(t, run); sum.Added != 0 || sum.Deleted != 0 || sum.Conflicts != 0 {
		t.Errorf("second run: want nothing added, deleted or in conflict, got %+v; results:\n%s", sum, resultsText(run.Results))
	}
}

// wantMutators checks the images of a Kptfile's pipeline list, in order, and the comments
// each element carries (nil: none).
func wantMutators(t *testing.T, file string, k *yaml.RNode, list string, images []string, comments [][]string) {
	t.Helper()
	var got []string
	for _, e := range mustLookup(t, k, "pipeline", list).YNode().Content {
		got = append(got, yaml.NewRNode(e).Field("image").Value.YNode().Value)
	}
	if strings.Join(got, ",") != strings.Join(images, ",") {
		t.Errorf("%s: pipeline.%s = %v, want %v", file, list, got, images)
		return
	}
	gotComments := listComments(t, k, "pipeline", list)
	for i := range images {
		if strings.Join(gotComments[i], "|") != strings.Join(comments[i], "|") {
			t.Errorf("%s: pipeline.%s[%d] (%s) carries the comments %q, want %q", file, list, i, images[i], gotComments[i], comments[i])
		}
	}
}

const (
	bpApplySetters = "gcr.io/kpt-fn/apply-setters:v0.1"
	bpSetLabels    = "gcr.io/kpt-fn/set-labels:v0.2.0"
	bpStarlark     = "gcr.io/kpt-fn/starlark:v0.3"
)

// TestBlueprintsUpgrade takes the real v0.4.0 -> v0.4.4 upgrade onto the customised copy.
func TestBlueprintsUpgrade(t *testing.T) {
	requireKpt(t)
	data := requireData(t)
	t.Parallel()
	r := runBlueprints(t, data, bpOld, bpNew)

	// Results. dest/ has 12 items (2 Kptfiles, 2 setters.yaml, 8 resources); all merge,
	// validation.yaml is added. Every blueprint annotation is a conflict: kpt pkg get
	// wrote `,kpt-pkg` after the version in dest/, and upstream bumps the version (5);
	// upstream removes an annotation the setters changed locally (1). Upstream wins.
	sum := summaryOf(t, r.run)
	if want := (summary{Merged: 12, Added: 1, Conflicts: 6}); sum != want {
		t.Errorf("summary %+v, want %+v; results:\n%s", sum, want, resultsText(r.run.Results))
	}
	const blueprint = "metadata.annotations.cnrm.cloud.google.com/blueprint"
	wantConflict(t, r.run, "resourcemanager.cnrm.cloud.google.com/v1beta1", "Project", "projects", "acme-payments", blueprint, "updated")
	wantConflict(t, r.run, "iam.cnrm.cloud.google.com/v1beta1", "IAMPartialPolicy", "projects", "kcc-acme-payments-owners-permissions", blueprint, "updated")
	wantConflict(t, r.run, "core.cnrm.cloud.google.com/v1beta1", "ConfigConnectorContext", "acme-payments", "configconnectorcontext.core.cnrm.cloud.google.com", blueprint, "updated")
	wantConflict(t, r.run, "iam.cnrm.cloud.google.com/v1beta1", "IAMServiceAccount", "config-control", "kcc-acme-payments", blueprint, "updated")
	wantConflict(t, r.run, "iam.cnrm.cloud.google.com/v1beta1", "IAMPartialPolicy", "config-control", "acme-payments-sa-workload-identity-binding", blueprint, "updated")
	wantConflict(t, r.run, "iam.cnrm.cloud.google.com/v1beta1", "IAMPartialPolicy", "config-control", "acme-payments-sa-workload-identity-binding",
		"metadata.annotations.cnrm.cloud.google.com/project-id", "updated")
	if n := len(r.run.Results); n != 7 {
		t.Errorf("%d results, want the summary and 6 conflicts:\n%s", n, resultsText(r.run.Results))
	}

	// Upstream's changes arrive.
	root := r.doc(t, "Kptfile", "Kptfile", "")
	wantValue(t, "dest/Kptfile", root, "true", "metadata", "annotations", "config.kubernetes.io/local-config")
	kcc := r.doc(t, "kcc-namespace/Kptfile", "Kptfile", "")
	wantValue(t, "dest/kcc-namespace/Kptfile", kcc, "true", "metadata", "annotations", "config.kubernetes.io/local-config")
	wantMutators(t, "dest/kcc-namespace/Kptfile", kcc, "validators", []string{bpStarlark}, [][]string{nil})
	wantValue(t, "dest/kcc-namespace/Kptfile", kcc, "validation.yaml", "pipeline", "validators", "[image="+bpStarlark+"]", "configPath")
	if got, want := readFile(t, r.dest("kcc-namespace/validation.yaml")), r.reference["updated/kcc-namespace/validation.yaml"]; got != want {
		t.Errorf("dest/kcc-namespace/validation.yaml is not upstream's file as kpt writes it:\n%s", firstLineDiff(want, got))
	}
	project := r.doc(t, "project.yaml", "Project", "acme-payments")
	wantValue(t, "dest/project.yaml", project, "cnrm/landing-zone:project/v0.4.4", "metadata", "annotations", "cnrm.cloud.google.com/blueprint")
	owner := r.doc(t, "kcc-namespace/kcc-project-owner.yaml", "IAMPartialPolicy", "kcc-acme-payments-owners-permissions")
	sa := r.doc(t, "kcc-namespace/kcc.yaml", "IAMServiceAccount", "kcc-acme-payments")
	wi := r.doc(t, "kcc-namespace/kcc.yaml", "IAMPartialPolicy", "acme-payments-sa-workload-identity-binding")
	ccc := r.doc(t, "kcc-namespace/kcc.yaml", "ConfigConnectorContext", "configconnectorcontext.core.cnrm.cloud.google.com")
	for _, n := range []*yaml.RNode{owner, sa, wi, ccc} {
		wantValue(t, "dest/kcc-namespace", n, "cnrm/kcc-namespace/v0.4.4", "metadata", "annotations", "cnrm.cloud.google.com/blueprint")
	}
	for _, n := range []*yaml.RNode{owner, sa, wi} {
		wantValue(t, "dest/kcc-namespace", n, "true", "metadata", "annotations", "cnrm.cloud.google.com/ignore-clusterless")
	}
	wantAbsent(t, "dest/kcc-namespace/kcc.yaml", wi, "metadata", "annotations", "cnrm.cloud.google.com/project-id")
	wantAbsent(t, "dest/kcc-namespace/kcc.yaml", ccc, "metadata", "annotations", "cnrm.cloud.google.com/ignore-clusterless")
	// v0.4.4 quotes the local-config annotation (a string, no longer a boolean).
	kccSetters := r.doc(t, "kcc-namespace/setters.yaml", "ConfigMap", "setters")
	if v := mustLookup(t, kccSetters, "metadata", "annotations", "config.kubernetes.io/local-config").YNode(); v.Tag != yaml.NodeTagString || v.Value != "true" {
		t.Errorf("dest/kcc-namespace/setters.yaml: local-config annotation is %s %q, want upstream's string \"true\"", v.Tag, v.Value)
	}

	// Local customisations survive: the setter values, every `# kpt-set:` field with its
	// value and comment (but the annotation upstream removed), kpt's own marks, the local
	// mutator and the comments, the changed role.
	setters := r.doc(t, "setters.yaml", "ConfigMap", "setters")
	for k, v := range bpRootSetters {
		wantValue(t, "dest/setters.yaml", setters, v, "data", k)
	}
	for k, v := range bpKCCSetters {
		wantValue(t, "dest/kcc-namespace/setters.yaml", kccSetters, v, "data", k)
	}
	r.checkSetterFields(t, "kcc-namespace/kcc.yaml IAMPartialPolicy/acme-payments-sa-workload-identity-binding metadata.annotations.cnrm.cloud.google.com/project-id")
	wantValue(t, "dest/Kptfile", root, "dest", "metadata", "name")
	wantValue(t, "dest/Kptfile", root, bpOld, "upstream", "git", "ref")
	wantMutators(t, "dest/Kptfile", root, "mutators", []string{bpApplySetters, bpSetLabels}, [][]string{{bpApplySettersLine}, {bpSetLabelsHead}})
	wantValue(t, "dest/Kptfile", root, "payments", "pipeline", "mutators", "[image="+bpSetLabels+"]", "configMap", "team")
	wantValue(t, "dest/kcc-namespace/kcc-project-owner.yaml", owner, "roles/editor", "spec", "bindings", "[role=roles/editor]", "role")
	wantValue(t, "dest/project.yaml", project, "resourcemanager.cnrm.cloud.google.com|Project|projects|project-id",
		"metadata", "annotations", "internal.kpt.dev/upstream-identifier")
	wantContainsOnce(t, "dest/kcc-namespace/kcc-project-owner.yaml", readFile(t, r.dest("kcc-namespace/kcc-project-owner.yaml")), bpOwnerRoleLine)
	wantContainsOnce(t, "dest/setters.yaml", readFile(t, r.dest("setters.yaml")), "  "+bpSettersComment+"\n  folder-namespace: hierarchy\n")
	kccText := readFile(t, r.dest("kcc-namespace/kcc.yaml"))
	wantContainsOnce(t, "dest/kcc-namespace/kcc.yaml", kccText, "\n---\n"+bpKCCSAComment+"\napiVersion: iam.cnrm.cloud.google.com/v1beta1\nkind: IAMServiceAccount\n")
	if strings.Contains(kccText, bpKCCSACommentWas) {
		t.Errorf("dest/kcc-namespace/kcc.yaml: upstream's comment above the IAMServiceAccount is back; dest rewrote it")
	}
	// Every comment, file by file: dest's, less the one on the annotation upstream removed.
	checkComments(t, r.destBefore, snapshot(t, filepath.Join(r.pkg, "dest")),
		map[string]map[string]int{"kcc-namespace/validation.yaml": textComments(t, "updated/kcc-namespace/validation.yaml", r.updated["kcc-namespace/validation.yaml"])},
		map[string]map[string]int{"kcc-namespace/kcc.yaml": {"# kpt-set: ${management-project-id}": 1}})

	r.checkHeaders(t)
	checkOnlyDestAndSourcesChanged(t, r.pkg, isYAMLOrKptfile)
	for _, rel := range []string{"Kptfile", "original/README.md", "updated/CHANGELOG.md", "dest/README.md", "dest/kcc-namespace/README.md"} {
		if got := readFile(t, filepath.Join(r.pkg, rel)); got != r.reference[rel] {
			t.Errorf("%s changed", rel)
		}
	}
	if problems, _, _ := diffProblems("dest", r.original, r.updated, under(r.reference, "dest"), snapshot(t, filepath.Join(r.pkg, "dest"))); len(problems) > 0 {
		t.Errorf("the merge changed dest/ beyond what upstream changed:\n  %s", strings.Join(problems, "\n  "))
	}
	r.checkRerun(t)
}

// TestBlueprintsNewSetterAndPipelineInsert takes the synthetic step after v0.4.4 (see
// blueprintsSyntheticStep) onto a copy of v0.4.4 customised the same way: a setter and a
// `# kpt-set:` comment upstream added arrive; the mutator upstream added after
// apply-setters goes as late as upstream's order allows, after the local set-labels (kpt
// pairs list elements by position when it restores comments, so dest's functions keep
// their positions), and every comment stays on its element, with no warning.
func TestBlueprintsNewSetterAndPipelineInsert(t *testing.T) {
	requireKpt(t)
	data := requireData(t)
	t.Parallel()
	r := runBlueprints(t, data, bpNew, bpSynthetic)

	// 13 items merge (v0.4.4 has validation.yaml); nothing conflicts: dest's `,kpt-pkg`
	// annotations are on values upstream no longer changes.
	if sum, want := summaryOf(t, r.run), (summary{Merged: 13}); sum != want {
		t.Errorf("summary %+v, want %+v; results:\n%s", sum, want, resultsText(r.run.Results))
	}
	for _, res := range r.run.Results {
		if res.Severity != "info" {
			t.Errorf("want no warning, got %s", res)
		}
	}

	// The new setter and the new setter comment arrive; dest's values and comments stay.
	setters := r.doc(t, "setters.yaml", "ConfigMap", "setters")
	wantValue(t, "dest/setters.yaml", setters, "false", "data", "auto-create-network")
	for k, v := range bpRootSetters {
		wantValue(t, "dest/setters.yaml", setters, v, "data", k)
	}
	project := r.doc(t, "project.yaml", "Project", "acme-payments")
	if v := mustLookup(t, project, "metadata", "annotations", "cnrm.cloud.google.com/auto-create-network").YNode(); v.Value != "false" || v.LineComment != bpAutoCreateSetter {
		t.Errorf("dest/project.yaml: auto-create-network is %q %q, want \"false\" with upstream's new %q", v.Value, v.LineComment, bpAutoCreateSetter)
	}
	wantContainsOnce(t, "dest/project.yaml", readFile(t, r.dest("project.yaml")),
		"    cnrm.cloud.google.com/auto-create-network: \"false\" "+bpAutoCreateSetter+"\n")
	wantContainsOnce(t, "dest/setters.yaml", readFile(t, r.dest("setters.yaml")), "  "+bpSettersComment+"\n  folder-namespace: hierarchy\n")
	r.checkSetterFields(t)
	wantValue(t, "dest/project.yaml", project, "cnrm/landing-zone:project/v0.4.4,kpt-pkg", "metadata", "annotations", "cnrm.cloud.google.com/blueprint")

	// The pipeline: upstream's new mutator after apply-setters and the local one; each
	// comment on the element it was on in dest, none on the new one.
	root := r.doc(t, "Kptfile", "Kptfile", "")
	wantMutators(t, "dest/Kptfile", root, "mutators", []string{bpApplySetters, bpSetLabels, bpEnableServices},
		[][]string{{bpApplySettersLine}, {bpSetLabelsHead}, nil})
	wantValue(t, "dest/Kptfile", root, "true", "metadata", "annotations", "config.kubernetes.io/local-config")
	wantValue(t, "dest/Kptfile", root, "dest", "metadata", "name")

	checkComments(t, r.destBefore, snapshot(t, filepath.Join(r.pkg, "dest")),
		map[string]map[string]int{"project.yaml": {bpAutoCreateSetter: 1}}, nil)
	r.checkHeaders(t)
	checkOnlyDestAndSourcesChanged(t, r.pkg, isYAMLOrKptfile)
	if problems, _, _ := diffProblems("dest", r.original, r.updated, under(r.reference, "dest"), snapshot(t, filepath.Join(r.pkg, "dest"))); len(problems) > 0 {
		t.Errorf("the merge changed dest/ beyond what upstream changed:\n  %s", strings.Join(problems, "\n  "))
	}
	r.checkRerun(t)
}

// TestBlueprintsOriginalEqualsUpdated runs the merge with updated/ the older tag too:
// every dest/ file must be byte for byte what kpt writes back when the function changes
// nothing (headers included; kpt drops the blank line after the setters.yaml headers).
func TestBlueprintsOriginalEqualsUpdated(t *testing.T) {
	requireKpt(t)
	data := requireData(t)
	t.Parallel()
	r := runBlueprints(t, data, bpOld, bpOld)
	if sum, want := summaryOf(t, r.run), (summary{Merged: 12}); sum != want {
		t.Errorf("summary %+v, want %+v; results:\n%s", sum, want, resultsText(r.run.Results))
	}
	if len(r.run.Results) != 1 {
		t.Errorf("want only the summary, got:\n%s", resultsText(r.run.Results))
	}
	wantSameAsReference(t, "dest", snapshot(t, filepath.Join(r.pkg, "dest")), under(r.reference, "dest"))
	r.checkHeaders(t)
	checkOnlyDestAndSourcesChanged(t, r.pkg, isYAMLOrKptfile)
}

// bpKptfileHeader is a header as the addlicense tool writes it, blank line included.
const bpKptfileHeader = "# Copyright 2024 Acme Corp. All rights reserved.\n# Our fork of the project blueprint; README.md lists the local changes.\n\n"

// TestBlueprintsKptfileHeaderSurvivesPipelineInsert is the pipeline insert of
// TestBlueprintsNewSetterAndPipelineInsert with a license header on dest/Kptfile, blank
// line after it, as the addlicense tool writes one. kpt keeps such a header out of the
// item it sends to the function and restores it only onto an output item with the
// input's id: the function keeps that id, and places the new mutator so that kpt's
// restoration, which pairs list elements by position, leaves the pipeline's comments on
// their elements.
func TestBlueprintsKptfileHeaderSurvivesPipelineInsert(t *testing.T) {
	requireKpt(t)
	data := requireData(t)
	t.Parallel()
	r := runBlueprints(t, data, bpNew, bpSynthetic, func(t *testing.T, dest string) {
		path := filepath.Join(dest, "Kptfile")
		writeFile(t, path, []byte(bpKptfileHeader+readFile(t, path)))
	})
	root := r.doc(t, "Kptfile", "Kptfile", "")
	wantMutators(t, "dest/Kptfile", root, "mutators", []string{bpApplySetters, bpSetLabels, bpEnableServices},
		[][]string{{bpApplySettersLine}, {bpSetLabelsHead}, nil})
	got, want := readFile(t, r.dest("Kptfile")), r.reference["dest/Kptfile"]
	if !strings.HasPrefix(want, strings.TrimSuffix(bpKptfileHeader, "\n")) {
		t.Fatalf("the reference run lost the header itself:\n%s", want)
	}
	if h := leadingComments(got); h != leadingComments(want) {
		t.Errorf("dest/Kptfile lost its header (upstream inserted a mutator; the function warned %q):\nwant the file to start with\n%s\ngot\n%s",
			warningsText(r.run), leadingComments(want), strings.Join(strings.SplitAfter(got, "\n")[:3], ""))
	}
}

// TestBlueprintsPipelineInsertBeforeLocalFunctionsKeepsHeaderAndNamesCopies: upstream
// inserts a mutator first, before apply-setters, so dest's functions must move down one
// position. kpt restores comments by position as well as by key, so it copies the
// comments of dest's functions onto the elements now at their positions. The function
// keeps kpt's id (the header survives) and names each comment kpt copies, so nothing is
// lost and nothing moves silently.
func TestBlueprintsPipelineInsertBeforeLocalFunctionsKeepsHeaderAndNamesCopies(t *testing.T) {
	requireKpt(t)
	data := requireData(t)
	t.Parallel()
	r := runBlueprints(t, data, bpNew, bpSyntheticFirst, func(t *testing.T, dest string) {
		path := filepath.Join(dest, "Kptfile")
		writeFile(t, path, []byte(bpKptfileHeader+readFile(t, path)))
	})
	root := r.doc(t, "Kptfile", "Kptfile", "")
	var images []string
	for _, el := range mustLookup(t, root, "pipeline", "mutators").Content() {
		images = append(images, yaml.NewRNode(el).Field("image").Value.YNode().Value)
	}
	if want := []string{bpEnableServices, bpApplySetters, bpSetLabels}; strings.Join(images, ",") != strings.Join(want, ",") {
		t.Errorf("dest/Kptfile mutators %v, want %v", images, want)
	}
	got, want := readFile(t, r.dest("Kptfile")), r.reference["dest/Kptfile"]
	if h := leadingComments(got); h != leadingComments(want) {
		t.Errorf("dest/Kptfile lost its header:\nwant the file to start with\n%s\ngot\n%s", leadingComments(want), strings.Join(strings.SplitAfter(got, "\n")[:3], ""))
	}
	// Each comment kpt puts on the element now at dest's position is named, with its
	// path, in a warning on dest/Kptfile; the elements' own comments are all still there.
	var named []string
	for _, res := range r.run.Results {
		if res.Severity == "warning" && res.FilePath == "dest/Kptfile" && strings.Contains(res.Message, "kpt will copy dest's comment") {
			named = append(named, res.FieldPath)
		}
	}
	if len(named) == 0 {
		t.Errorf("no warning names the comments kpt copies by position; results:\n%s", resultsText(r.run.Results))
	}
	for _, p := range named {
		if !strings.HasPrefix(p, "pipeline.mutators[") {
			t.Errorf("a copy is named at %q, outside the pipeline", p)
		}
	}
	t.Logf("warnings:\n%s", warningsText(r.run))
	text := readFile(t, r.dest("Kptfile"))
	for _, c := range []string{bpApplySettersLine, bpSetLabelsHead} {
		if !strings.Contains(text, strings.TrimSpace(strings.TrimPrefix(c, "#"))) {
			t.Errorf("dest/Kptfile lost the comment %q", c)
		}
	}
}

// warningsText is the messages of the run's warnings, for failure messages.
func warningsText(run kptRun) string {
	var out []string
	for _, res := range run.Results {
		if res.Severity == "warning" {
			out = append(out, res.FieldPath+": "+res.Message)
		}
	}
	return strings.Join(out, "; ")
}
