package function_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The two shapes every conflict had on six real upgrades: an image mirrored locally
// while upstream bumps the tag (argocd), and a flag appended locally while upstream
// changes another (metrics-server).
const (
	vmOriginal = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: metrics-server
spec:
  template:
    spec:
      containers:
      - name: metrics-server
        image: quay.io/argoproj/argocd:v3.4.0
        args:
        - --secure-port=4443
        - --metric-resolution=15s
`
	vmDest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: metrics-server
spec:
  template:
    spec:
      containers:
      - name: metrics-server
        image: registry.example.com/mirror/argoproj/argocd:v3.4.0
        args:
        - --secure-port=4443
        - --metric-resolution=15s
        - --kubelet-insecure-tls
`
)

// vmUpdated is upstream's new release: the tag and the port bumped.
var vmUpdated = strings.NewReplacer("argocd:v3.4.0", "argocd:v3.5.0", "--secure-port=4443", "--secure-port=10250").Replace(vmOriginal)

// vmInput is the ResourceList of the three copies, with functionConfig fc, and dest's
// image tag replaced by destTag.
func vmInput(t *testing.T, fc, destTag string) string {
	d := strings.Replace(vmDest, "argocd:v3.4.0", "argocd:"+destTag, 1)
	return resourceList(t, fc, withRole(t, yaml.MustParse(vmOriginal), "original"),
		withRole(t, yaml.MustParse(vmUpdated), "updated"), withRole(t, yaml.MustParse(d), "dest"))
}

const containerPath = "spec.template.spec.containers[name=metrics-server]"

// TestValueMergeByDefault: the function merges inside both values (valueMerge is on by
// default): the mirror and the new tag, the local flag and upstream's port; no
// conflict, one info result per value naming the field and what came from each side.
func TestValueMergeByDefault(t *testing.T) {
	got, res := mergedItem(t, vmInput(t, "", "v3.4.0"), "Deployment")
	text := got.MustString()
	for _, want := range []string{"image: registry.example.com/mirror/argoproj/argocd:v3.5.0",
		"- --secure-port=10250\n        - --metric-resolution=15s\n        - --kubelet-insecure-tls\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("merged Deployment lacks %q:\n%s", want, text)
		}
	}
	for _, want := range []string{"0 conflicts",
		"merged inside the image reference: from updated the tag (v3.4.0 -> v3.5.0); from dest the repository (quay.io/argoproj/argocd -> registry.example.com/mirror/argoproj/argocd)",
		"path: " + containerPath + ".image",
		"merged inside the list: from updated element [0] ([--secure-port=4443] -> [--secure-port=10250]); from dest an insertion at [2] ([] -> [--kubelet-insecure-tls])",
		"path: " + containerPath + ".args"} {
		if !strings.Contains(res, want) {
			t.Errorf("results lack %q:\n%s", want, res)
		}
	}
}

// TestValueMergeOff: valueMerge false, in both functionConfig forms, gives the rule
// without it: each value is one conflict, updated wins, the mirror and the local flag
// are lost.
func TestValueMergeOff(t *testing.T) {
	for name, fc := range map[string]string{
		"ConfigMap": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: merge}\ndata: {valueMerge: \"false\"}\n",
		"typed":     "apiVersion: fn.krm-merge.dev/v1alpha1\nkind: ResourceMerge\nmetadata: {name: merge}\nspec: {valueMerge: false}\n",
	} {
		t.Run(name, func(t *testing.T) {
			got, res := mergedItem(t, vmInput(t, fc, "v3.4.0"), "Deployment")
			text := got.MustString()
			if strings.Contains(text, "registry.example.com") || strings.Contains(text, "--kubelet-insecure-tls") {
				t.Errorf("valueMerge false kept dest's changes:\n%s", text)
			}
			if !strings.Contains(res, "2 conflicts") || strings.Contains(res, "merged inside") {
				t.Errorf("want two whole conflicts:\n%s", res)
			}
		})
	}
}

// TestValueMergeConflictingPart: both sides change the tag; the tag alone is a
// conflict (dest's registry still kept), and onConflict error fails only on it.
func TestValueMergeConflictingPart(t *testing.T) {
	got, res := mergedItem(t, vmInput(t, "", "v3.4.1"), "Deployment")
	if !strings.Contains(got.MustString(), "image: registry.example.com/mirror/argoproj/argocd:v3.5.0") {
		t.Errorf("want dest's registry with updated's tag:\n%s", got.MustString())
	}
	for _, want := range []string{"1 conflicts",
		"conflict: changed on both sides: the tag (original v3.4.0, updated v3.5.0, dest v3.4.1); updated wins",
		"proposedValue: registry.example.com/mirror/argoproj/argocd:v3.5.0",
		"merged inside the image reference: from dest the repository"} {
		if !strings.Contains(res, want) {
			t.Errorf("results lack %q:\n%s", want, res)
		}
	}

	fcError := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: merge}\ndata: {onConflict: error}\n"
	rl, err := run(t, vmInput(t, fcError, "v3.4.1"))
	if err == nil || len(items(t, rl)) != 0 || !strings.Contains(resultsOf(rl), "found 1 conflicts") {
		t.Errorf("onConflict error: want a failure on the tag alone, no items; got %v\n%s", err, resultsOf(rl))
	}
	// Without a conflicting part, onConflict error passes: the merged values are no conflicts.
	rl, err = run(t, vmInput(t, fcError, "v3.4.0"))
	if err != nil || len(items(t, rl)) != 1 {
		t.Errorf("onConflict error without conflicting parts: %v\n%s", err, resultsOf(rl))
	}
}

// TestValueMergePlan: a plan lists the merged fields as changes, and the info results.
func TestValueMergePlan(t *testing.T) {
	rl, err := run(t, vmInput(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: merge}\ndata: {plan: \"true\"}\n", "v3.4.0"))
	if err != nil {
		t.Fatal(err)
	}
	res := resultsOf(rl)
	for _, want := range []string{"3way plan: would change this field: registry.example.com/mirror/argoproj/argocd:v3.4.0 -> registry.example.com/mirror/argoproj/argocd:v3.5.0",
		"path: " + containerPath + ".args", "merged inside the list"} {
		if !strings.Contains(res, want) {
			t.Errorf("plan lacks %q:\n%s", want, res)
		}
	}
}

// TestValueMergeUnderFieldRule: a field rule decides its path; no value merged inside is
// reported there.
func TestValueMergeUnderFieldRule(t *testing.T) {
	fc := `apiVersion: fn.krm-merge.dev/v1alpha1
kind: ResourceMerge
metadata: {name: merge}
spec:
  fieldRules:
  - paths: ["` + containerPath + `.image"]
    policy: keepDest
`
	got, res := mergedItem(t, vmInput(t, fc, "v3.4.0"), "Deployment")
	if !strings.Contains(got.MustString(), "image: registry.example.com/mirror/argoproj/argocd:v3.4.0") {
		t.Errorf("keepDest: want dest's image:\n%s", got.MustString())
	}
	if strings.Contains(res, "merged inside the image reference") || !strings.Contains(res, "merged inside the list") {
		t.Errorf("want only the args merge reported:\n%s", res)
	}
}

// TestValueMergeNotIn2Way: valueMerge belongs to 3way mode; given in 2way it is an
// error naming the key.
func TestValueMergeNotIn2Way(t *testing.T) {
	rl, err := run(t, resourceList(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: merge}\ndata: {mode: 2way, valueMerge: \"true\"}\n"))
	if err == nil || !strings.Contains(resultsOf(rl), "valueMerge does not apply in 2way mode") {
		t.Errorf("want an error naming valueMerge: %v\n%s", err, resultsOf(rl))
	}
}
