package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// demoScenario copies examples/storefront/package (upstream-v1, upstream-v2, local) into
// a package under git, as hack/fn-eval-example.sh does; fn-config.yaml stays outside the package.
func demoScenario(t *testing.T) *scenario {
	t.Helper()
	s := newScenario(t)
	s.names = map[string]string{"original": "upstream-v1", "updated": "upstream-v2", "dest": "local"}
	for _, role := range []string{"original", "updated", "dest"} {
		copyTree(t, filepath.Join(repoRoot, "examples", "storefront", "package", s.name(role)), s.dir(role))
	}
	for _, d := range []string{"original", "updated", "dest"} { // newScenario made these
		os.Remove(filepath.Join(s.pkg, d))
	}
	s.original = snapshot(t, s.dir("original"))
	s.updated = snapshot(t, s.dir("updated"))
	s.dest = snapshot(t, s.dir("dest"))
	gitInitCommit(t, s.pkg)
	return s
}

// The storefront example merges as its README says. Needs kpt, not the real data.
func TestDemoStorefront(t *testing.T) {
	requireKpt(t)
	t.Parallel()
	s := demoScenario(t)
	cfg := filepath.Join(repoRoot, "examples", "storefront", "fn-config.yaml")
	run := mustRunKpt(t, s.pkg, cfg)

	if sum, want := summaryOf(t, run), (summary{Merged: 4, Added: 1, Deleted: 1, Kept: 1, Conflicts: 1}); sum != want {
		t.Errorf("summary %+v, want %+v; results:\n%s", sum, want, resultsText(run.Results))
	}
	wantConflict(t, run, "apps/v1", "Deployment", "", "storefront", "spec.template.spec.containers[name=web].image", "updated")

	got := readResources(t, s.dir("dest"))
	dep := got[resID{"apps", "Deployment", "", "storefront"}]
	if dep.Node == nil {
		t.Fatal("local/ lost the Deployment")
	}
	web := []string{"spec", "template", "spec", "containers", "[name=web]"}
	at := func(fields ...string) []string { return append(append([]string{}, web...), fields...) }
	// conflict on the tag: upstream won it; the local registry merged (valueMerge)
	wantScalar(t, dep, "registry.internal.example.com/storefront:1.5.0", at("image")...)
	wantScalar(t, dep, "1.5.0", "metadata", "labels", "app.kubernetes.io/version")
	wantScalar(t, dep, "checkout", "metadata", "labels", "team")
	wantScalar(t, dep, "3", "spec", "replicas")
	wantScalar(t, dep, "500m", at("resources", "requests", "cpu")...)
	wantScalar(t, dep, "1Gi", at("resources", "limits", "memory")...)
	wantScalar(t, dep, "/readyz", at("readinessProbe", "httpGet", "path")...)
	wantScalar(t, dep, "5", at("readinessProbe", "periodSeconds")...)
	wantScalar(t, dep, "quay.io/prometheus/statsd-exporter:v0.28.0",
		"spec", "template", "spec", "containers", "[name=metrics]", "image")
	// Under kpt a new element goes as late as updated's order allows: FEATURE_FLAGS_URL
	// has no successor in updated, so it goes after the local REGION.
	if env := strings.Join(keyedNames(t, dep.Node, at("env")...), ","); env != "LOG_LEVEL,CATALOG_URL,REGION,FEATURE_FLAGS_URL" {
		t.Errorf("web env = %s, want upstream's FEATURE_FLAGS_URL after the local REGION", env)
	}
	if ports := strings.Join(keyedNames(t, dep.Node, at("ports")...), ","); ports != "http,admin" {
		t.Errorf("web ports = %s, want http,admin", ports)
	}
	wantScalar(t, got[resID{"", "ConfigMap", "", "storefront-config"}], "60s", "data", "CACHE_TTL")
	wantScalar(t, got[resID{"", "ConfigMap", "", "storefront-config"}], "30s", "data", "CHECKOUT_TIMEOUT")
	if ports := strings.Join(keyedNames(t, got[resID{"", "Service", "", "storefront"}].Node, "spec", "ports"), ","); ports != "http,metrics" {
		t.Errorf("Service ports = %s, want http,metrics", ports)
	}
	if r, ok := got[resID{"", "Service", "", "storefront-metrics"}]; ok {
		t.Errorf("the Service removed in v2 is still in local/%s", r.File)
	}
	if r := got[resID{"policy", "PodDisruptionBudget", "", "storefront"}]; r.File != "pdb.yaml" {
		t.Errorf("the PodDisruptionBudget added in v2 should be in local/pdb.yaml, is in %q", r.File)
	}
	if readFile(t, filepath.Join(s.dir("dest"), "networkpolicy.yaml")) != s.dest["networkpolicy.yaml"] {
		t.Error("local/networkpolicy.yaml (local-only) changed")
	}
	s.checkSourcesRemoved(t)

	// Every "# LOCAL" comment is still there, once, on its own line.
	before, after := countComments(s.dest), countComments(snapshot(t, s.dir("dest")))
	for c, n := range before {
		if after[c] != n {
			t.Errorf("local comment %q: %d time(s) before the merge, %d after", c, n, after[c])
		}
	}
	for c, n := range after {
		if _, ok := before[c]; !ok {
			t.Errorf("comment line %q appeared %d time(s) with the merge", c, n)
		}
	}
	s.checkDiffFollowsUpstream(t)
	s.rerunIsIdempotent(t, cfg)
}

// countComments counts the lines that carry a "# LOCAL" comment, by line.
func countComments(snap map[string]string) map[string]int {
	out := map[string]int{}
	for rel, content := range snap {
		for _, l := range strings.Split(content, "\n") {
			if strings.Contains(l, "# LOCAL") {
				out[rel+": "+strings.TrimSpace(l)]++
			}
		}
	}
	return out
}

// TestDemoBlueprint runs hack/fn-eval-example.sh on the bundled real blueprint
// (examples/blueprint) with the binary under test, and checks what its README says the
// run shows: the summary, the six conflicts, upstream's changes and ours in the diff, and
// the files left. Needs kpt, not the shared real data (the example bundles its own copy).
func TestDemoBlueprint(t *testing.T) {
	requireKpt(t)
	t.Parallel()
	cmd := exec.Command("bash", filepath.Join("hack", "fn-eval-example.sh"), filepath.Join("examples", "blueprint"))
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "KRM_MERGE="+fnBinary)
	outBytes, err := cmd.CombinedOutput()
	out := string(outBytes)
	if err != nil {
		t.Fatalf("hack/fn-eval-example.sh examples/blueprint: %v\n%s", err, out)
	}
	for _, want := range []string{
		"summary: 3way merge: 12 merged, 1 added, 0 deleted, 0 kept, 6 conflicts",
		"field: metadata.annotations.cnrm.cloud.google.com/project-id\n          conflict: deleted upstream, changed locally",
		"+    config.kubernetes.io/local-config: \"true\"",          // upstream: both Kptfiles
		"+  validators:\n+    - image: gcr.io/kpt-fn/starlark:v0.3", // upstream: kcc-namespace's validator
		"+++ after/project/kcc-namespace/validation.yaml",           // upstream: a new file
		"+    cnrm.cloud.google.com/ignore-clusterless: \"true\"",
		"  project/setters.yaml\n  upstream-v0.4.0/CHANGELOG.md", // sources consumed, Markdown left
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the demo's output lacks %q; output:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "field: metadata.annotations.cnrm.cloud.google.com/blueprint"); n != 5 {
		t.Errorf("%d blueprint-annotation conflicts, want 5; output:\n%s", n, out)
	}
	// Ours survive: no removed line carries a setter value, a kpt-set comment, the local
	// mutator or the changed role, except the annotation upstream removed (a conflict).
	const removedUpstream = "-    cnrm.cloud.google.com/project-id: acme-mgmt # kpt-set: ${management-project-id}"
	if n := strings.Count(out, removedUpstream+"\n"); n != 1 {
		t.Errorf("the annotation upstream removed went %d times, want once (kcc.yaml's binding)", n)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---") && l != removedUpstream &&
			(strings.Contains(l, "acme") || strings.Contains(l, "kpt-set") || strings.Contains(l, "set-labels") || strings.Contains(l, "roles/editor")) {
			t.Errorf("the merge removed a local line: %q", l)
		}
	}
}

// TestApplyExample runs examples/apply as README's apply section shows it: the
// ingress-nginx controller's live Deployment, the v1.13.0 config, and the summary and
// field results of the preview.
func TestApplyExample(t *testing.T) {
	requireKpt(t)
	t.Parallel()
	pkg := newPackageDir(t)
	copyTree(t, filepath.Join(repoRoot, "examples", "apply", "package"), pkg)
	run := mustRunKpt(t, pkg, filepath.Join(repoRoot, "examples", "apply", "fn-config.yaml"))
	text := resultsText(run.Results)
	for _, want := range []string{
		"apply: 1 applied (1 would change), 0 created, 0 kept; fields: 4 changed, 1 added, 1 deleted, 0 reordered; 1 overwrite a change made on the live object since the last apply",
		"spec.template.spec.containers[name=controller].resources.requests.cpu",
		"spec.template.spec.automountServiceAccountToken",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("results lack %q:\n%s", want, text)
		}
	}
	live := readFile(t, filepath.Join(pkg, "live", "deployment.yaml"))
	for _, want := range []string{"app.kubernetes.io/version: 1.13.0", "cpu: 100m # raised by hand during the incident", "value: http2debug=1"} {
		if !strings.Contains(live, want) {
			t.Errorf("live/deployment.yaml lacks %q after the apply:\n%s", want, live)
		}
	}
}

// TestDemoIngressNginx runs `make demo`'s script (hack/demo.sh) with the binary under
// test and checks what examples/ingress-nginx/README.md says it shows: the three images
// merged inside (the mirror kept, upstream's tags and digests taken); the one conflict
// stopping the update under the default policy (exit 2, no "Error:" line, the file and
// both ways on named), its hunk printed; the person's edit shown as a diff that keeps
// the local side; --continue recording the new release; and, in the last step, each
// change under the Job it belongs to (ours kept in admission-create, upstream's new
// ttlSecondsAfterFinished in admission-patch). The marker sides' text is not checked
// (only which side the edit keeps). Needs kpt, not the shared real data (the example
// bundles both releases).
func TestDemoIngressNginx(t *testing.T) {
	requireKpt(t)
	t.Parallel()
	cmd := exec.Command("bash", filepath.Join("hack", "demo.sh"))
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "KRM_MERGE="+fnBinary)
	outBytes, err := cmd.CombinedOutput()
	out := string(outBytes)
	if err != nil {
		t.Fatalf("hack/demo.sh: %v\n%s", err, out)
	}
	step := demoSteps(t, out)
	for _, tc := range []struct{ step, want string }{
		{"2", "  Job ingress-nginx-admission-create:\n"},
		{"3", "resources: 20 merged, 0 added, 0 deleted, 0 kept; conflicts: 1"},
		{"3", "spec.template.spec.containers[name=controller].image: merged inside the image reference: from updated the tag and digest"},
		{"3", "from dest the repository (registry.k8s.io/ingress-nginx/controller -> registry.example.com/mirror/ingress-nginx/controller)"},
		{"3", "batch/v1 Job ingress-nginx/ingress-nginx-admission-create: spec.ttlSecondsAfterFinished: changed on both sides (original <absent>, updated 0, dest 300); marked in the file"},
		{"3", "Stopped at the conflicts above, marked in deploy.yaml;"},
		{"3", "  krm-merge pkg update ingress-nginx --continue\n"},
		{"3", "  krm-merge pkg update ingress-nginx --abort\n"},
		{"3", "(exit status 2: "},
		{"4", "-      serviceAccountName: ingress-nginx-admission\n"},
		{"4", ":<<<<<<< local\n"},
		{"4", ":>>>>>>> controller-v1.13.0\n"},
		{"5", "--- ingress-nginx/deploy.yaml (as marked)\n"},
		{"5", "+++ ingress-nginx/deploy.yaml (as resolved)\n"},
		{"5", "  -<<<<<<< local\n"},
		{"5", "\n     ttlSecondsAfterFinished: 300"}, // the local side, kept: a context line
		{"5", "  ->>>>>>> controller-v1.13.0\n"},
		{"5", "Update of ingress-nginx concluded: the new release is recorded."},
		{"6", "+        image: registry.example.com/mirror/ingress-nginx/controller:v1.13.0@sha256:dc75a7baec7a3b827a5d7ab0acd10ab507904c7dad692365b3e3b596eca1afd2"},
		{"6", "+        image: registry.example.com/mirror/ingress-nginx/kube-webhook-certgen:v1.6.0@sha256:c9f76a75fd00e975416ea1b73300efd413116de0de8570346ed90766c5b5cefb"},
		{"6", "+      automountServiceAccountToken: true"},
		{"6", "+    ref: controller-v1.13.0\n  +    commit: "},
	} {
		if !strings.Contains(step[tc.step], tc.want) {
			t.Errorf("step %s of the demo lacks %q; output:\n%s", tc.step, tc.want, out)
		}
	}
	if strings.Contains(out, "Error:") {
		t.Errorf("the demo printed an Error: line (a marked update is no error):\n%s", out)
	}
	if strings.Contains(out, "+        image: registry.k8s.io/") {
		t.Errorf("an image left the mirror:\n%s", out)
	}
	// In the resolution's diff, every removed line is a marker or another side's: the
	// local side stays whole.
	for _, l := range strings.Split(step["5"], "\n") {
		if strings.HasPrefix(l, "  +") && !strings.HasPrefix(l, "  +++") {
			t.Errorf("the resolution added a line, want only the markers and the other sides removed: %q", l)
		}
	}
	// The last step says which Job each ttlSecondsAfterFinished line is in: ours
	// (300) in admission-create, unchanged by the update; upstream's 0 in admission-patch.
	if got := ownerOf(step["6"], "+  ttlSecondsAfterFinished: 0"); got != "Job ingress-nginx-admission-patch" {
		t.Errorf("upstream's added ttlSecondsAfterFinished: 0 shown under %q, want the admission-patch Job:\n%s", got, step["6"])
	}
	if !keptOurs.MatchString(step["6"]) {
		t.Errorf("the last step does not show our ttlSecondsAfterFinished: 300 kept in admission-create:\n%s", step["6"])
	}
}

// keptOurs finds the last step's line of our ttlSecondsAfterFinished (grep -n) under
// the admission-create Job.
var keptOurs = regexp.MustCompile(`\n  Job ingress-nginx-admission-create:\n    \d+:  ttlSecondsAfterFinished: 300\b`)

// demoSteps splits the demo's output at its "==> N. " headings: step number to text.
func demoSteps(t *testing.T, out string) map[string]string {
	t.Helper()
	steps := map[string]string{}
	parts := strings.Split(out, "\n==> ")
	for _, p := range parts[1:] {
		n, _, ok := strings.Cut(p, ".")
		if !ok {
			t.Fatalf("a step without a number: %.80q", p)
		}
		steps[n] = p
	}
	for _, n := range []string{"1", "2", "3", "4", "5", "6"} {
		if steps[n] == "" {
			t.Fatalf("the demo has no step %s:\n%s", n, out)
		}
	}
	return steps
}

// ownerOf returns the heading ("  Kind name:" at two spaces) of the last section before
// the first line of text that contains line; "" when there is none.
func ownerOf(text, line string) string {
	i := strings.Index(text, line)
	if i < 0 {
		return ""
	}
	owner := ""
	for _, l := range strings.Split(text[:i], "\n") {
		if strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") && strings.HasSuffix(l, ":") {
			owner = strings.TrimSuffix(strings.TrimPrefix(l, "  "), ":")
		}
	}
	return owner
}
