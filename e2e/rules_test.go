package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// casePackage copies the roles of a case package under e2e/cases (directories named
// there by original, updated and dest) into a fresh package with the original/,
// updated/ and dest/ layout the fn-config-examples use, plus the case's other
// directories (e.g. crds/) as they are.
func casePackage(t *testing.T, name string, dirs map[string]string, extra ...string) string {
	t.Helper()
	src := filepath.Join(repoRoot, "e2e", "cases", name)
	pkg := t.TempDir()
	for role, dir := range dirs {
		copyTree(t, filepath.Join(src, dir), filepath.Join(pkg, role))
	}
	for _, dir := range extra {
		copyTree(t, filepath.Join(src, dir), filepath.Join(pkg, dir))
	}
	return pkg
}

// TestMergeKeysExample runs fn-config-examples/3way-mergekeys.yaml through kpt on the
// kube-prometheus package of the eval-3way-mergekeys case, with the ServiceMonitor CRD
// as a pass-through item: the local alert, the local `for`, the kubelet's local scrape
// interval and the local scrape protocol survive, upstream's changes arrive, no
// conflict. Then without mergeKeys (and without the CRD), and with valueMerge false: the
// lists are atomic, the local changes are lost and each list is a conflict. (With
// valueMerge, the default, the rules list would merge by runs of elements and the other
// two conflict on the runs both sides changed.)
func TestMergeKeysExample(t *testing.T) {
	requireKpt(t)
	dirs := map[string]string{"original": "upstream-v0.16.0", "updated": "upstream-v0.17.0", "dest": "local"}
	example := filepath.Join(repoRoot, "fn-config-examples", "3way-mergekeys.yaml")

	pkg := casePackage(t, "eval-3way-mergekeys", dirs, "crds")
	run := mustRunKpt(t, pkg, example)
	if s := summaryOf(t, run); s.Merged != 3 || s.Conflicts != 0 {
		t.Errorf("summary %+v, want 3 merged and no conflict:\n%s", s, resultsText(run.Results))
	}
	dest := readResources(t, filepath.Join(pkg, "dest"))
	rules := dest[resID{"monitoring.coreos.com", "PrometheusRule", "monitoring", "prometheus-k8s-prometheus-rules"}]
	text := rules.Node.MustString()
	for _, want := range []string{"alert: PrometheusBadConfigLocal", "for: 30m", "prometheus_remote_storage_queue_highest_timestamp_seconds"} {
		if !strings.Contains(text, want) {
			t.Errorf("merged PrometheusRule lacks %q", want)
		}
	}
	kubelet := dest[resID{"monitoring.coreos.com", "ServiceMonitor", "monitoring", "kubelet"}]
	if !strings.Contains(kubelet.Node.MustString(), "interval: 15s") || !strings.Contains(kubelet.Node.MustString(), "storage_objects") {
		t.Errorf("kubelet ServiceMonitor lost the local interval or missed upstream's change:\n%s", kubelet.Node.MustString())
	}
	am := dest[resID{"monitoring.coreos.com", "ServiceMonitor", "monitoring", "alertmanager-main"}]
	if got := strings.Join(stringList(t, am.Node, "spec", "scrapeProtocols"), ","); got != "PrometheusText0.0.4,PrometheusText1.0.0,OpenMetricsText1.0.0" {
		t.Errorf("scrapeProtocols %s: want both additions (the CRD's list-type set)", got)
	}

	t.Run("without mergeKeys and the CRD", func(t *testing.T) {
		pkg := casePackage(t, "eval-3way-mergekeys", dirs)
		run := mustRunKpt(t, pkg, "", "originalPath=original", "updatedPath=updated", "destPath=dest", "valueMerge=false")
		wantConflict(t, run, "monitoring.coreos.com/v1", "PrometheusRule", "monitoring", "prometheus-k8s-prometheus-rules", "spec.groups[name=prometheus].rules", "updated wins")
		wantConflict(t, run, "monitoring.coreos.com/v1", "ServiceMonitor", "monitoring", "kubelet", "spec.endpoints", "updated wins")
		wantConflict(t, run, "monitoring.coreos.com/v1", "ServiceMonitor", "monitoring", "alertmanager-main", "spec.scrapeProtocols", "updated wins")
		dest := readResources(t, filepath.Join(pkg, "dest"))
		if strings.Contains(dest[resID{"monitoring.coreos.com", "PrometheusRule", "monitoring", "prometheus-k8s-prometheus-rules"}].Node.MustString(), "PrometheusBadConfigLocal") {
			t.Error("the local alert survived without mergeKeys: the example no longer shows anything")
		}
	})
}

// TestFieldRulesExample runs fn-config-examples/3way-fieldrules.yaml through kpt on the
// ingress-nginx package of the eval-3way-fieldrules case, whose local Deployment also
// carries the field-rules annotation (image=ignore): the local resources bump is
// reverted (takeUpdated), the mirrored image stays without a conflict (the
// annotation), the local replicas and status stay, and keepDest/takeUpdated say what
// they did in info results.
func TestFieldRulesExample(t *testing.T) {
	requireKpt(t)
	dirs := map[string]string{"original": "upstream-v1.12.0", "updated": "upstream-v1.13.0", "dest": "local"}
	pkg := casePackage(t, "eval-3way-fieldrules", dirs)
	run := mustRunKpt(t, pkg, filepath.Join(repoRoot, "fn-config-examples", "3way-fieldrules.yaml"))
	if s := summaryOf(t, run); s.Merged != 1 || s.Conflicts != 0 {
		t.Errorf("summary %+v, want 1 merged and no conflict:\n%s", s, resultsText(run.Results))
	}
	dest := readResources(t, filepath.Join(pkg, "dest"))
	d := dest[resID{"apps", "Deployment", "ingress-nginx", "ingress-nginx-controller"}]
	if d.Node == nil {
		t.Fatalf("no Deployment in dest/")
	}
	wantScalar(t, d, "3", "spec", "replicas")
	wantScalar(t, d, "3", "status", "readyReplicas")
	wantScalar(t, d, "true", "spec", "template", "spec", "automountServiceAccountToken") // upstream's addition: no rule
	c := mustLookup(t, d.Node, "spec", "template", "spec", "containers", "[name=controller]")
	wantScalar(t, resource{Node: c}, "100m", "resources", "requests", "cpu")
	if img := scalar(t, c, "image"); !strings.HasPrefix(img, "registry.example.com/mirror/") {
		t.Errorf("image %s: the annotation's ignore rule should keep the mirror", img)
	}
	var info []string
	for _, r := range run.Results {
		if r.Severity == "info" && strings.HasPrefix(r.Message, "field rule ") {
			info = append(info, r.FieldPath+": "+r.Message)
		}
	}
	if len(info) != 1 || !strings.Contains(info[0], "spec.template.spec.containers[name=controller].resources: field rule takeUpdated (fieldRules[1])") {
		t.Errorf("want one info result for the takeUpdated rule; got:\n%s", strings.Join(info, "\n"))
	}
}
