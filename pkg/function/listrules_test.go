package function_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// kubePrometheus is kube-prometheus (two tags) in the real upstream releases committed at
// testdata/upstream in the repository root.
const kubePrometheus = "../../testdata/upstream/kube-prometheus"

// kpFile reads one manifest of a kube-prometheus tag, e.g. ("v0.17.0",
// "setup/0servicemonitorCustomResourceDefinition.yaml"), failing the test without the data.
func kpFile(t *testing.T, tag, rel string) *yaml.RNode {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(kubePrometheus, tag, "manifests", rel))
	if err != nil {
		t.Fatal(err)
	}
	n, err := yaml.Parse(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// withRole returns n with the merge-source annotation set to role ("" leaves it as a
// pass-through item).
func withRole(t *testing.T, n *yaml.RNode, role string) *yaml.RNode {
	t.Helper()
	c := n.Copy()
	if role != "" {
		if err := c.PipeE(yaml.SetAnnotation("config.kubernetes.io/merge-source", role)); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// resourceList renders a ResourceList of items with functionConfig fc ("" for none).
func resourceList(t *testing.T, fc string, items ...*yaml.RNode) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n")
	for _, it := range items {
		s, err := it.String()
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(indentItem(s))
	}
	if fc != "" {
		b.WriteString("functionConfig:\n" + indent(fc, "  "))
	}
	return b.String()
}

func indentItem(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = "- " + lines[i]
		} else {
			lines[i] = "  " + lines[i]
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = prefix + lines[i]
	}
	return strings.Join(lines, "\n") + "\n"
}

// mergedItem runs input and returns the output item of kind, and the results.
func mergedItem(t *testing.T, input, kind string) (*yaml.RNode, string) {
	t.Helper()
	rl, err := run(t, input)
	if err != nil {
		t.Fatalf("run failed: %v\n%s", err, resultsOf(rl))
	}
	for _, it := range items(t, rl) {
		if it.GetKind() == kind {
			return it, resultsOf(rl)
		}
	}
	t.Fatalf("no %s in the output", kind)
	return nil, ""
}

// prometheusRules is the 3-way upgrade of kube-prometheus's prometheus-k8s rules from
// v0.16.0 to v0.17.0 (upstream changed the expr of PrometheusRemoteStorageFailures),
// onto a copy that added an alert to the group and lengthened PrometheusBadConfig's
// `for`. The rules list has no list type in the CRD and no associative key (alert), so only
// mergeKeys makes it keyed.
func prometheusRules(t *testing.T) (o, u, d *yaml.RNode) {
	const file = "prometheus-prometheusRule.yaml"
	o, u = kpFile(t, "v0.16.0", file), kpFile(t, "v0.17.0", file)
	s, err := o.String()
	if err != nil {
		t.Fatal(err)
	}
	local := strings.Replace(s, "    - alert: PrometheusBadConfig\n", `    - alert: PrometheusBadConfigLocal
      expr: prometheus_config_last_reload_successful{job="prometheus-k8s"} == 0
      for: 1m
      labels:
        severity: critical
    - alert: PrometheusBadConfig
`, 1)
	i := strings.Index(local, "alert: PrometheusBadConfig\n")
	j := strings.Index(local[i:], "for: 10m")
	if i < 0 || j < 0 {
		t.Fatal("kube-prometheus v0.16.0 rules changed shape")
	}
	local = local[:i+j] + "for: 30m" + local[i+j+len("for: 10m"):]
	return o, u, yaml.MustParse(local)
}

const mergeKeysTyped = `apiVersion: fn.krm-merge.dev/v1alpha1
kind: ResourceMerge
metadata: {name: upgrade}
spec:
  mergeKeys:
  - {group: monitoring.coreos.com, kind: PrometheusRule, path: spec.groups.rules, listType: map, keys: [alert]}
`

// TestMergeKeysOnKubePrometheus: with mergeKeys, a PrometheusRule's rules merge by alert
// name: the local alert and the local `for` survive the upgrade, upstream's new expr
// arrives, and nothing conflicts. Without it (and with valueMerge false) the rules list
// is atomic: one conflict, updated wins, the local alert is lost. Without it and with
// valueMerge (the default) the atomic list merges by runs of elements: the three changes
// are rules apart, so they merge too, reported as one value merged inside.
func TestMergeKeysOnKubePrometheus(t *testing.T) {
	o, u, d := prometheusRules(t)
	in := func(fc string) string {
		return resourceList(t, fc, withRole(t, o, "original"), withRole(t, u, "updated"), withRole(t, d, "dest"))
	}
	check := func(t *testing.T, fc string) {
		got, res := mergedItem(t, in(fc), "PrometheusRule")
		text := got.MustString()
		for _, want := range []string{"alert: PrometheusBadConfigLocal", "for: 30m", "prometheus_remote_storage_queue_highest_timestamp_seconds"} {
			if !strings.Contains(text, want) {
				t.Errorf("merged rules lack %q", want)
			}
		}
		if !strings.Contains(res, "0 conflicts") {
			t.Errorf("want no conflict:\n%s", res)
		}
	}
	t.Run("typed", func(t *testing.T) { check(t, mergeKeysTyped) })
	t.Run("ConfigMap with a JSON string", func(t *testing.T) {
		check(t, `apiVersion: v1
kind: ConfigMap
metadata: {name: upgrade}
data:
  mergeKeys: '[{"group": "monitoring.coreos.com", "kind": "PrometheusRule", "path": "spec.groups.rules", "listType": "map", "keys": ["alert"]}]'
`)
	})
	t.Run("another group's PrometheusRule is not matched", func(t *testing.T) {
		fc := strings.Replace(mergeKeysTyped, "group: monitoring.coreos.com", "group: example.com", 1) + "  valueMerge: false\n"
		got, res := mergedItem(t, in(fc), "PrometheusRule")
		if strings.Contains(got.MustString(), "PrometheusBadConfigLocal") || !strings.Contains(res, "spec.groups[name=prometheus].rules") {
			t.Errorf("an entry for another group applied:\n%s", res)
		}
	})
	t.Run("without mergeKeys the list merges by runs of elements", func(t *testing.T) {
		got, res := mergedItem(t, in(""), "PrometheusRule")
		text := got.MustString()
		for _, want := range []string{"alert: PrometheusBadConfigLocal", "for: 30m", "prometheus_remote_storage_queue_highest_timestamp_seconds"} {
			if !strings.Contains(text, want) {
				t.Errorf("merged rules lack %q", want)
			}
		}
		if !strings.Contains(res, "0 conflicts") || !strings.Contains(res, "merged inside the list: from updated element [") {
			t.Errorf("want no conflict and the list merged inside:\n%s", res)
		}
	})
	t.Run("without mergeKeys and valueMerge the list is replaced", func(t *testing.T) {
		got, res := mergedItem(t, in("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: upgrade}\ndata: {valueMerge: \"false\"}\n"), "PrometheusRule")
		if strings.Contains(got.MustString(), "PrometheusBadConfigLocal") {
			t.Error("the local alert survived without mergeKeys: the test no longer shows the feature")
		}
		if !strings.Contains(res, "spec.groups[name=prometheus].rules") || !strings.Contains(res, "1 conflicts") {
			t.Errorf("want one conflict on the rules list:\n%s", res)
		}
	})
}

// serviceMonitors is alertmanager-main's ServiceMonitor (v0.16.0 to v0.17.0) where
// upstream adds a scrape protocol and the local copy another one.
func serviceMonitors(t *testing.T) (o, u, d *yaml.RNode) {
	const file = "alertmanager-serviceMonitor.yaml"
	set := func(n *yaml.RNode, protocols ...string) *yaml.RNode {
		c := n.Copy()
		list := yaml.NewListRNode(protocols...)
		if err := c.PipeE(yaml.LookupCreate(yaml.MappingNode, "spec"), yaml.SetField("scrapeProtocols", list)); err != nil {
			t.Fatal(err)
		}
		return c
	}
	o, u = kpFile(t, "v0.16.0", file), kpFile(t, "v0.17.0", file)
	return set(o, "PrometheusText0.0.4"), set(u, "PrometheusText0.0.4", "OpenMetricsText1.0.0"), set(o, "PrometheusText0.0.4", "PrometheusText1.0.0")
}

// TestCRDInTheInputTeachesListTypes: the ServiceMonitor CRD of kube-prometheus declares
// spec.scrapeProtocols `x-kubernetes-list-type: set`. With the CRD in the input (here a
// pass-through item, with no role) both added protocols survive; without it the list of
// strings is atomic (no associative key applies): one conflict, updated wins.
func TestCRDInTheInputTeachesListTypes(t *testing.T) {
	o, u, d := serviceMonitors(t)
	crd := kpFile(t, "v0.17.0", "setup/0servicemonitorCustomResourceDefinition.yaml")
	roles := []*yaml.RNode{withRole(t, o, "original"), withRole(t, u, "updated"), withRole(t, d, "dest")}

	got, res := mergedItem(t, resourceList(t, "", append(roles, crd)...), "ServiceMonitor")
	protocols, err := got.Pipe(yaml.Lookup("spec", "scrapeProtocols"))
	if err != nil || protocols == nil {
		t.Fatalf("no scrapeProtocols: %v", err)
	}
	if s := protocols.MustString(); !strings.Contains(s, "PrometheusText1.0.0") || !strings.Contains(s, "OpenMetricsText1.0.0") {
		t.Errorf("scrapeProtocols %s: want the local and the upstream addition", protocols.MustString())
	}
	if !strings.Contains(res, "0 conflicts") {
		t.Errorf("want no conflict:\n%s", res)
	}

	got, res = mergedItem(t, resourceList(t, "", roles...), "ServiceMonitor")
	if strings.Contains(got.MustString(), "PrometheusText1.0.0") || !strings.Contains(res, "spec.scrapeProtocols") {
		t.Errorf("without the CRD the set merged anyway (the test no longer shows the feature):\n%s", res)
	}

	t.Run("several CRDs for the kind: updated's wins", func(t *testing.T) {
		text, err := crd.String()
		if err != nil {
			t.Fatal(err)
		}
		atomic := yaml.MustParse(strings.ReplaceAll(text, "x-kubernetes-list-type: set", "x-kubernetes-list-type: atomic"))
		in := resourceList(t, "", withRole(t, atomic, "original"), withRole(t, atomic, ""), withRole(t, atomic, "dest"),
			withRole(t, o, "original"), withRole(t, u, "updated"), withRole(t, d, "dest"), withRole(t, crd, "updated"))
		if _, res := mergedItem(t, in, "ServiceMonitor"); strings.Contains(res, "spec.scrapeProtocols") {
			t.Errorf("another role's CRD decided over updated's:\n%s", res)
		}
		in = resourceList(t, "", withRole(t, crd, "original"), withRole(t, o, "original"), withRole(t, u, "updated"),
			withRole(t, d, "dest"), withRole(t, atomic, "updated"))
		if _, res := mergedItem(t, in, "ServiceMonitor"); !strings.Contains(res, "spec.scrapeProtocols") {
			t.Errorf("original's CRD decided over updated's:\n%s", res)
		}
	})
	t.Run("schema none leaves the CRD unused", func(t *testing.T) {
		_, res := mergedItem(t, resourceList(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {schema: none}\n", append(roles, crd)...), "ServiceMonitor")
		if !strings.Contains(res, "spec.scrapeProtocols") {
			t.Errorf("schema none used the CRD:\n%s", res)
		}
	})
	t.Run("mergeKeys wins over the CRD", func(t *testing.T) {
		fc := "apiVersion: fn.krm-merge.dev/v1alpha1\nkind: ResourceMerge\nmetadata: {name: x}\nspec:\n  mergeKeys:\n  - {kind: ServiceMonitor, path: spec.scrapeProtocols, listType: atomic}\n"
		_, res := mergedItem(t, resourceList(t, fc, append(roles, crd)...), "ServiceMonitor")
		if !strings.Contains(res, "spec.scrapeProtocols") {
			t.Errorf("listType atomic from mergeKeys did not win over the CRD's set:\n%s", res)
		}
	})
}

// TestTablesRejectedInApplyMode: apply mode computes kubectl's patch and has no merge
// key or field rule tables; the field-rules annotation on an item is an error too.
func TestTablesRejectedInApplyMode(t *testing.T) {
	fc := "apiVersion: fn.krm-merge.dev/v1alpha1\nkind: ResourceMerge\nmetadata: {name: x}\nspec:\n  mode: apply\n  fieldRules:\n  - {paths: [spec.replicas], policy: keepDest}\n"
	rl, err := run(t, resourceList(t, fc))
	if err == nil || !strings.Contains(resultsOf(rl), "spec.fieldRules") || !strings.Contains(resultsOf(rl), "does not apply in apply mode") {
		t.Errorf("fieldRules accepted in apply mode:\n%s", resultsOf(rl))
	}
	live := yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    fn.krm-merge.dev/field-rules: data.a=keepDest\ndata: {a: b}\n")
	rl, err = run(t, resourceList(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {mode: apply}\n", withRole(t, live, "dest")))
	if err == nil || !strings.Contains(resultsOf(rl), "metadata.annotations.fn.krm-merge.dev/field-rules") {
		t.Errorf("field-rules annotation accepted in apply mode:\n%s", resultsOf(rl))
	}
}
