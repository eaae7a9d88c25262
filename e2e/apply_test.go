package e2e

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Apply mode through the real kpt on the real ingress-nginx release: the cluster runs
// the controller Deployment as applied from controller-v1.12.0 (with the last-applied
// annotation kubectl wrote, server defaults, status, an HPA's replicas, an env var added
// with kubectl set env and a CPU request raised by hand, each with a comment); the local
// config is the whole controller-v1.13.0 deploy.yaml. Checked: the Deployment is what
// strategicpatch computes, with the live comments; the other 18 resources are created
// with their annotation in live/; a live-only object is kept; the results name each
// field the apply changes.

const lastAppliedKey = "kubectl.kubernetes.io/last-applied-configuration"

// kubectlLastApplied is the annotation kubectl writes for a config: its JSON with
// metadata.annotations present (here: {}), sorted keys, and a newline.
func kubectlLastApplied(t *testing.T, config *yaml.RNode) string {
	t.Helper()
	v := jsonValue(t, config).(map[string]any)
	meta := v["metadata"].(map[string]any)
	annots, _ := meta["annotations"].(map[string]any)
	if annots == nil {
		annots = map[string]any{}
	}
	delete(annots, lastAppliedKey)
	meta["annotations"] = annots
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// applyPackage writes pkg/live (the running controller Deployment plus a live-only
// ConfigMap) and pkg/config (the v1.13.0 release) and returns the live Deployment.
func applyPackage(t *testing.T, pkg string) *yaml.RNode {
	t.Helper()
	data := filepath.Join(requireData(t), "ingress-nginx")
	old := loadYAMLFile(t, filepath.Join(data, "controller-v1.12.0", "deploy.yaml")).find(t, "Deployment", "ingress-nginx-controller")
	live := old.Copy()
	if err := live.PipeE(yaml.SetAnnotation(lastAppliedKey, kubectlLastApplied(t, old))); err != nil {
		t.Fatal(err)
	}
	for _, f := range [][2]string{
		{"metadata.uid", "6f1c2b0e-8d3a-4c55-9a0e-2f4b7c9d1e3a"},
		{"metadata.resourceVersion", `"182736"`},
		{"metadata.generation", "5"},
		{"spec.progressDeadlineSeconds", "600"},
		{"spec.replicas", "3"},
		{"spec.strategy.rollingUpdate.maxSurge", "25%"},
		{"spec.template.spec.restartPolicy", "Always"},
		{"spec.template.spec.schedulerName", "default-scheduler"},
		{"spec.template.spec.securityContext", "{}"},
		{"spec.template.spec.volumes.[name=webhook-cert].secret.defaultMode", "420"},
		{"spec.template.spec.containers.[name=controller].terminationMessagePath", "/dev/termination-log"},
		{"spec.template.spec.containers.[name=controller].resources.requests.cpu", "200m"},
		{"status", "{availableReplicas: 3, observedGeneration: 5, readyReplicas: 3, replicas: 3}"},
	} {
		setField(t, live, f[1], strings.Split(f[0], ".")...)
	}
	appendElement(t, live, "{name: GODEBUG, value: http2debug=1}", "spec", "template", "spec", "containers", "[name=controller]", "env")
	commentField(t, live, "scaled by the HorizontalPodAutoscaler", true, "spec", "replicas")
	commentField(t, live, "raised by hand during the incident", true, "spec", "template", "spec", "containers", "[name=controller]", "resources", "requests", "cpu")
	commentField(t, live, "the cluster's defaults", false, "spec", "template", "spec", "schedulerName")
	writeFile(t, filepath.Join(pkg, "live", "deployment.yaml"), []byte(live.MustString()))
	writeFile(t, filepath.Join(pkg, "live", "unmanaged.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: unmanaged # created by hand\n  namespace: ingress-nginx\ndata:\n  a: \"1\"\n"))
	copyFile(t, filepath.Join(data, "controller-v1.13.0", "deploy.yaml"), filepath.Join(pkg, "config", "deploy.yaml"))
	return live
}

func TestApplyIngressNginxThroughKpt(t *testing.T) {
	requireKpt(t)
	pkg := t.TempDir()
	live := applyPackage(t, pkg)
	liveBefore := readFile(t, filepath.Join(pkg, "live", "deployment.yaml"))
	run := mustRunKpt(t, pkg, filepath.Join(repoRoot, "fn-config-examples", "apply-paths.yaml"))

	config := loadYAMLFile(t, filepath.Join(pkg, "config", "deploy.yaml")) // keepSources: true
	newDep := config.find(t, "Deployment", "ingress-nginx-controller")
	got := loadYAMLFile(t, filepath.Join(pkg, "live", "deployment.yaml")).find(t, "Deployment", "ingress-nginx-controller")

	// the object: what kubectl's strategicpatch computes from the same three inputs
	want := strategicApply(t, live, newDep)
	if g := jsonValue(t, got); !reflect.DeepEqual(g, want) {
		t.Errorf("applied Deployment differs from strategicpatch's: %s", firstDifference("", g, want))
	}
	if la := got.GetAnnotations()[lastAppliedKey]; la != kubectlLastApplied(t, newDep) {
		t.Errorf("annotation is not kubectl's bytes:\n got %q\nwant %q", la, kubectlLastApplied(t, newDep))
	}
	// the live file: the comments survive, and only the changed lines differ
	text := got.MustString()
	for _, want := range []string{
		"replicas: 3 # scaled by the HorizontalPodAutoscaler",
		"cpu: 100m # raised by hand during the incident",
		"# the cluster's defaults\n      schedulerName: default-scheduler",
		"- name: GODEBUG\n          value: http2debug=1",
		"controller:v1.13.0@sha256:",
		"automountServiceAccountToken: true",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("applied Deployment lacks %q:\n%s", want, text)
		}
	}
	if changed := changedLines(liveBefore, readFile(t, filepath.Join(pkg, "live", "deployment.yaml"))); changed > 8 {
		t.Errorf("%d lines of the live file changed; the apply changes 6 fields and the annotation", changed)
	}

	// created: every other v1.13.0 resource, into live/ with the annotation; kept: the ConfigMap
	res := readResources(t, filepath.Join(pkg, "live"))
	created := 0
	for _, d := range config.docs {
		if d.GetKind() == "Deployment" {
			continue
		}
		r, ok := res[idOf(d)]
		if !ok {
			t.Errorf("%s was not created in live/", idOf(d))
			continue
		}
		created++
		if r.File != "deploy.yaml" {
			t.Errorf("%s created in live/%s, want live/deploy.yaml", idOf(d), r.File)
		}
		if la := r.Node.GetAnnotations()[lastAppliedKey]; la != kubectlLastApplied(t, d) {
			t.Errorf("%s: created without kubectl's annotation: %q", idOf(d), la)
		}
	}
	if _, ok := res[resID{Kind: "ConfigMap", Namespace: "ingress-nginx", Name: "unmanaged"}]; !ok {
		t.Error("the live-only ConfigMap was not kept")
	}

	// results: the summary and one info result per changed field
	var fields []string
	summary := ""
	for _, r := range run.Results {
		if strings.HasPrefix(r.Message, "apply: ") {
			summary = r.Message
		}
		if r.Ref.Kind == "Deployment" && r.FieldPath != "" {
			fields = append(fields, r.FieldPath)
			if r.Severity != "info" {
				t.Errorf("plan result with severity %s: %s", r.Severity, r)
			}
		}
	}
	wantSummary := "apply: 1 applied (1 would change), " + itoa(created) + " created, 1 kept; fields: 4 changed, 1 added, 0 deleted, 0 reordered; 1 overwrite a change made on the live object since the last apply"
	if summary != wantSummary {
		t.Errorf("summary %q\nwant    %q\n%s", summary, wantSummary, resultsText(run.Results))
	}
	wantFields := []string{
		"metadata.labels.app.kubernetes.io/version",
		"spec.template.metadata.labels.app.kubernetes.io/version",
		"spec.template.spec.automountServiceAccountToken",
		"spec.template.spec.containers[name=controller].image",
		"spec.template.spec.containers[name=controller].resources.requests.cpu",
	}
	if !reflect.DeepEqual(fields, wantFields) {
		t.Errorf("plan fields\n got %v\nwant %v", fields, wantFields)
	}
}

// A live object whose annotation is not JSON: kpt fails, nothing is written, and the
// result names the resource, the file and the annotation.
func TestApplyInvalidAnnotationThroughKpt(t *testing.T) {
	requireKpt(t)
	pkg := t.TempDir()
	applyPackage(t, pkg)
	path := filepath.Join(pkg, "live", "deployment.yaml")
	f := loadYAMLFile(t, path)
	if err := f.docs[0].PipeE(yaml.SetAnnotation(lastAppliedKey, `{"apiVersion": "apps/v1", truncated`)); err != nil {
		t.Fatal(err)
	}
	f.save(t)
	before := snapshot(t, pkg)
	run := runKpt(t, pkg, filepath.Join(repoRoot, "fn-config-examples", "apply-paths.yaml"))
	if run.ExitCode == 0 {
		t.Fatalf("kpt succeeded:\n%s", run.Output)
	}
	if after := snapshot(t, pkg); !reflect.DeepEqual(before, after) {
		t.Error("the package changed although the function failed")
	}
	found := false
	for _, r := range run.Results {
		if r.Severity == "error" && r.Ref.Name == "ingress-nginx-controller" && r.FilePath == "live/deployment.yaml" &&
			r.FieldPath == "metadata.annotations."+lastAppliedKey && strings.Contains(r.Message, "not a JSON object") {
			found = true
		}
	}
	if !found {
		t.Errorf("no error result naming resource, file and field:\n%s\n%s", resultsText(run.Results), run.Output)
	}
}

// strategicApply is kubectl apply's computation on the JSON of the test's inputs.
func strategicApply(t *testing.T, live, config *yaml.RNode) any {
	t.Helper()
	current, _ := json.Marshal(jsonValue(t, live))
	original := []byte(live.GetAnnotations()[lastAppliedKey])
	la := kubectlLastApplied(t, config)
	withLA := config.Copy()
	if err := withLA.PipeE(yaml.SetAnnotation(lastAppliedKey, la)); err != nil {
		t.Fatal(err)
	}
	modified, _ := json.Marshal(jsonValue(t, withLA))
	meta, err := strategicpatch.NewPatchMetaFromStruct(&appsv1.Deployment{})
	if err != nil {
		t.Fatal(err)
	}
	patch, err := strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, true)
	if err != nil {
		t.Fatal(err)
	}
	out, err := strategicpatch.StrategicMergePatch(current, patch, &appsv1.Deployment{})
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// changedLines counts the lines of b that a does not have (a crude line diff).
func changedLines(a, b string) int {
	have := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		have[l]++
	}
	n := 0
	for _, l := range strings.Split(b, "\n") {
		if have[l] > 0 {
			have[l]--
			continue
		}
		n++
	}
	return n
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
