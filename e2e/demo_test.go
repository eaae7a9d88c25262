package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// demoScenario copies examples/demo (upstream-v1, upstream-v2, local) into a package
// under git, as hack/demo.sh does; fn-config.yaml stays outside the package.
func demoScenario(t *testing.T) *scenario {
	t.Helper()
	s := newScenario(t)
	s.names = map[string]string{"original": "upstream-v1", "updated": "upstream-v2", "dest": "local"}
	for _, role := range []string{"original", "updated", "dest"} {
		copyTree(t, filepath.Join(repoRoot, "examples", "demo", s.name(role)), s.dir(role))
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

// The bundled demo merges as its README says. Needs kpt, not the real data.
func TestDemoExample(t *testing.T) {
	requireKpt(t)
	t.Parallel()
	s := demoScenario(t)
	cfg := filepath.Join(repoRoot, "examples", "demo", "fn-config.yaml")
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
	wantScalar(t, dep, "ghcr.io/example/storefront:1.5.0", at("image")...) // conflict: upstream won
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
