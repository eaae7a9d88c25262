package e2e

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

const (
	kpOld = "v0.16.0"
	kpNew = "v0.17.0"
	kpNS  = "monitoring"

	mirroredPrometheusImage = "registry.example.com/prometheus/prometheus:v3.5.0"
)

// expandLists rewrites every file under dir that holds a single `kind: ...List` (e.g.
// kube-prometheus' ConfigMapList of Grafana dashboards, RoleList, RoleBindingList) as a
// multi-document file of its items. kpt refuses List kinds ("resource must have
// metadata.name"), so a kpt user has to do the same before managing the package.
func expandLists(t *testing.T, dir string) {
	t.Helper()
	for _, rel := range yamlFilesUnder(t, dir) {
		f := loadYAMLFile(t, filepath.Join(dir, rel))
		if len(f.docs) != 1 || !strings.HasSuffix(f.docs[0].GetKind(), "List") {
			continue
		}
		items := lookup(t, f.docs[0], "items")
		if items == nil {
			continue
		}
		els, err := items.Elements()
		if err != nil {
			t.Fatal(err)
		}
		f.docs = els
		f.save(t)
	}
}

// kubePrometheusScenario builds the kube-prometheus package: original/ and updated/
// hold `manifests/` (with its setup/ CRDs) of the two tags, dest/ a customised copy of
// the older one.
//
// The two tags hold the same 95 files and the same 130 resources (after expanding the
// Lists), so to exercise added and removed resources updated/ also gets a synthetic
// upstream change: grafana-podDisruptionBudget.yaml added and
// prometheusAdapter-podDisruptionBudget.yaml removed. The test finds the delta by
// diffing the trees, so it would cover a real one just the same.
//
// With noUpstreamChange, updated/ is the older tag too (and gets no synthetic change).
func kubePrometheusScenario(t *testing.T, data string, noUpstreamChange bool) *scenario {
	t.Helper()
	s := newScenario(t)
	src := filepath.Join(data, "kube-prometheus")
	newTag := kpNew
	if noUpstreamChange {
		newTag = kpOld
	}
	copyTree(t, filepath.Join(src, kpOld, "manifests"), s.dir("original"))
	copyTree(t, filepath.Join(src, newTag, "manifests"), s.dir("updated"))
	copyTree(t, filepath.Join(src, kpOld, "manifests"), s.dir("dest"))
	for _, role := range []string{"original", "updated", "dest"} {
		expandLists(t, s.dir(role))
	}

	if !noUpstreamChange {
		copyFile(t, filepath.Join(repoRoot, "e2e", "testdata", "kube-prometheus", "grafana-podDisruptionBudget.yaml"),
			filepath.Join(s.dir("updated"), "grafana-podDisruptionBudget.yaml"))
		if err := os.Remove(filepath.Join(s.dir("updated"), "prometheusAdapter-podDisruptionBudget.yaml")); err != nil {
			t.Fatal(err)
		}
	}

	s.edit("Prometheus: 3 replicas, 30d retention, more memory, extra scrape configs", "Prometheus", kpNS, "k8s", false,
		func(t *testing.T, n *yaml.RNode) {
			setField(t, n, "3", "spec", "replicas")
			commentField(t, n, "# HA: one per zone", true, "spec", "replicas")
			setField(t, n, "30d", "spec", "retention")
			commentField(t, n, "# compliance asks for 30 days", false, "spec", "retention")
			setField(t, n, "2Gi", "spec", "resources", "requests", "memory")
			setField(t, n, "{name: additional-scrape-configs, key: prometheus-additional.yaml}", "spec", "additionalScrapeConfigs")
		})
	s.edit("Prometheus image from a mirror", "Prometheus", kpNS, "k8s", true, func(t *testing.T, n *yaml.RNode) {
		setField(t, n, mirroredPrometheusImage, "spec", "image")
	})
	s.edit("Alertmanager retention", "Alertmanager", kpNS, "main", false, func(t *testing.T, n *yaml.RNode) {
		setField(t, n, "240h", "spec", "retention")
	})
	s.edit("kube-state-metrics memory", "Deployment", kpNS, "kube-state-metrics", false, func(t *testing.T, n *yaml.RNode) {
		ksm := []string{"spec", "template", "spec", "containers", "[name=kube-state-metrics]", "resources"}
		setField(t, n, "1Gi", append(ksm, "limits", "memory")...)
		setField(t, n, "512Mi", append(ksm, "requests", "memory")...)
	})
	// args is an atomic list of strings and upstream changes it: a conflict.
	s.edit("prometheus-operator debug logging", "Deployment", kpNS, "prometheus-operator", true, func(t *testing.T, n *yaml.RNode) {
		appendElement(t, n, "--log-level=debug", "spec", "template", "spec", "containers", "[name=prometheus-operator]", "args")
	})
	s.edit("team label on the Grafana Service", "Service", kpNS, "grafana", false, func(t *testing.T, n *yaml.RNode) {
		setField(t, n, "observability", "metadata", "labels", "team")
	})
	// Managed control planes do not expose the scheduler's metrics.
	s.deleteLocally("ServiceMonitor", kpNS, "kube-scheduler")
	s.localOnly["prometheus-additionalScrapeConfigs.yaml"] = readFile(t,
		filepath.Join(repoRoot, "e2e", "testdata", "kube-prometheus", "prometheus-additionalScrapeConfigs.yaml"))
	s.customise(t)
	return s
}

func TestKubePrometheusUpgrade(t *testing.T) {
	requireKpt(t)
	data := requireData(t)
	t.Parallel()
	s := kubePrometheusScenario(t, data, false)

	// What upstream adds and removes, found by diffing the two trees' resources.
	orig, upd := resourcesOf(t, s.original), resourcesOf(t, s.updated)
	var added, removed []resID
	for id := range upd {
		if _, ok := orig[id]; !ok {
			added = append(added, id)
		}
	}
	for id := range orig {
		if _, ok := upd[id]; !ok {
			removed = append(removed, id)
		}
	}
	sort.Slice(added, func(i, j int) bool { return added[i].String() < added[j].String() })
	sort.Slice(removed, func(i, j int) bool { return removed[i].String() < removed[j].String() })
	t.Logf("%d resources in original/, %d in updated/; upstream adds %v and removes %v", len(orig), len(upd), added, removed)
	if len(added) == 0 || len(removed) == 0 {
		t.Fatal("the scenario should add and remove resources upstream")
	}

	// valueMerge false: this scenario's model (s.expected) and checkDiffFollowsUpstream
	// take a value changed on both sides whole from updated; with valueMerge the mirrored
	// Prometheus image would merge (no conflict) and the operator's args conflict would
	// narrow to the run next to the local flag.
	cfg := fnConfig(t, "", "valueMerge: false")
	run := mustRunKpt(t, s.pkg, cfg)

	sum := summaryOf(t, run)
	inBoth := 0
	for id := range upd {
		if _, ok := orig[id]; ok {
			inBoth++
		}
	}
	want := summary{
		Merged:    inBoth - len(s.deleted), // in updated and dest
		Added:     len(added),
		Deleted:   len(removed),
		Kept:      1, // the local-only Secret
		Conflicts: 2,
	}
	if sum != want {
		t.Errorf("summary %+v, want %+v; results:\n%s", sum, want, resultsText(run.Results))
	}
	wantConflict(t, run, "monitoring.coreos.com/v1", "Prometheus", kpNS, "k8s", "spec.image", "updated")
	wantConflict(t, run, "apps/v1", "Deployment", kpNS, "prometheus-operator",
		"spec.template.spec.containers[name=prometheus-operator].args", "updated")
	if n := len(conflictResults(run)); n != 2 {
		t.Errorf("%d conflict warnings, want 2:\n%s", n, resultsText(run.Results))
	}

	// Every resource, field by field: the CRDs, dashboards, rules and all.
	got := s.checkResources(t, s.expected(t, false))

	for _, id := range added {
		if r, ok := got[id]; !ok || r.File != upd[id].File {
			t.Errorf("%s, added upstream in updated/%s, should be in dest/%s; got %q", id, upd[id].File, upd[id].File, r.File)
		}
	}
	for _, id := range removed {
		if r, ok := got[id]; ok {
			t.Errorf("%s, removed upstream, is still in dest/%s", id, r.File)
		}
		if _, err := os.Stat(filepath.Join(s.dir("dest"), orig[id].File)); err == nil {
			t.Errorf("dest/%s, whose only resource upstream removed, still exists", orig[id].File)
		}
	}

	prom := got[resID{"monitoring.coreos.com", "Prometheus", kpNS, "k8s"}]
	if prom.Node == nil {
		t.Fatal("the Prometheus resource is missing from dest/")
	}
	wantScalar(t, prom, "3", "spec", "replicas")
	wantScalar(t, prom, "30d", "spec", "retention")
	wantScalar(t, prom, "2Gi", "spec", "resources", "requests", "memory")
	wantScalar(t, prom, "additional-scrape-configs", "spec", "additionalScrapeConfigs", "name")
	wantScalar(t, prom, "quay.io/prometheus/prometheus:v3.10.0", "spec", "image") // conflict: upstream won
	wantScalar(t, prom, "3.10.0", "spec", "version")
	wantScalar(t, prom, "EndpointSlice", "spec", "serviceDiscoveryRole") // new upstream
	wantScalar(t, prom, "3.10.0", "metadata", "labels", "app.kubernetes.io/version")

	ksm := got[resID{"apps", "Deployment", kpNS, "kube-state-metrics"}]
	ksmC := []string{"spec", "template", "spec", "containers", "[name=kube-state-metrics]"}
	wantScalar(t, ksm, "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.18.0", append(ksmC, "image")...)
	wantScalar(t, ksm, "1Gi", append(ksmC, "resources", "limits", "memory")...)
	wantScalar(t, ksm, "512Mi", append(ksmC, "resources", "requests", "memory")...)
	wantScalar(t, ksm, "100m", append(ksmC, "resources", "limits", "cpu")...)
	wantScalar(t, ksm, "quay.io/brancz/kube-rbac-proxy:v0.21.0",
		"spec", "template", "spec", "containers", "[name=kube-rbac-proxy-main]", "image")

	op := got[resID{"apps", "Deployment", kpNS, "prometheus-operator"}]
	args := stringList(t, op.Node, "spec", "template", "spec", "containers", "[name=prometheus-operator]", "args")
	if strings.Contains(strings.Join(args, " "), "--log-level=debug") || !strings.Contains(strings.Join(args, " "), "--kubelet-endpointslice=true") {
		t.Errorf("prometheus-operator args should be upstream's (the conflict went to updated): %v", args)
	}

	svc := got[resID{"", "Service", kpNS, "grafana"}]
	wantScalar(t, svc, "observability", "metadata", "labels", "team")
	wantScalar(t, svc, "12.4.1", "metadata", "labels", "app.kubernetes.io/version")
	wantScalar(t, got[resID{"monitoring.coreos.com", "Alertmanager", kpNS, "main"}], "240h", "spec", "retention")

	if r, ok := got[resID{"monitoring.coreos.com", "ServiceMonitor", kpNS, "kube-scheduler"}]; ok {
		t.Errorf("the ServiceMonitor deleted locally is back in dest/%s", r.File)
	}
	if r := got[resID{"", "Secret", kpNS, "additional-scrape-configs"}]; r.Node == nil {
		t.Error("the local-only Secret is gone")
	}

	// Comments, and the CRDs line for line (dest had them as original had them).
	text := readFile(t, filepath.Join(s.dir("dest"), "prometheus-prometheus.yaml"))
	for _, c := range []string{"\n  replicas: 3 # HA: one per zone\n", "\n  # compliance asks for 30 days\n  retention: 30d\n"} {
		if !strings.Contains(text, c) {
			t.Errorf("dest/prometheus-prometheus.yaml lost the local comment %q:\n%s", strings.TrimSpace(c), text)
		}
	}
	// A CRD dest did not customise must come out as updated has it: the same lines.
	// Not necessarily in the same order: kpt itself re-sorts each output item's map keys
	// to the order of the input item it came from (kyaml order.SyncOrder, matched by
	// config.k8s.io/id), so fields new upstream end up last in their map, whatever order
	// the function wrote.
	identical := 0
	for rel, content := range s.updated {
		if !strings.HasPrefix(rel, "setup/") {
			continue
		}
		got := readFile(t, filepath.Join(s.dir("dest"), rel))
		if got == content {
			identical++
			continue
		}
		if removed, added := lineDelta(content, got); len(removed)+len(added) > 0 {
			t.Errorf("dest/%s does not have the lines of updated/%s (dest had not customised it): %d lines missing, %d extra, e.g. %s",
				rel, rel, len(removed), len(added), firstLineDiff(content, got))
		}
	}
	t.Logf("setup/ CRDs: %d of 11 byte-identical to updated/, the others reordered only", identical)

	s.checkSourcesRemoved(t)
	s.checkDiffFollowsUpstream(t)
	s.rerunIsIdempotent(t, cfg)
}
