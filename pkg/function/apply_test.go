package function_test

import (
	"strings"
	"testing"
)

// apply mode through the processor: roles by annotation; a config with a live object
// is applied, a config alone is created, a live object alone is kept, an item without
// a role passes through.
const applyInput = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata: {name: fn}
  data: {mode: apply}
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    namespace: prod
    annotations:
      config.kubernetes.io/merge-source: dest
      config.kubernetes.io/path: live/web.yaml
      kubectl.kubernetes.io/last-applied-configuration: |
        {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web","namespace":"prod"},"spec":{"replicas":2,"template":{"spec":{"containers":[{"image":"web:1","name":"web"},{"image":"old:1","name":"old"}]}}}}
    uid: 0a1b
  spec:
    replicas: 6 # scaled by the HPA
    template:
      spec:
        containers:
        - name: web # main container
          image: web:1
          imagePullPolicy: IfNotPresent
        - name: old
          image: old:1
  status: {readyReplicas: 6}
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    namespace: prod
    annotations:
      config.kubernetes.io/merge-source: updated
      config.kubernetes.io/path: config/web.yaml
  spec:
    replicas: 3
    template:
      spec:
        containers:
        - name: web
          image: web:2
- apiVersion: v1
  kind: Service
  metadata:
    name: web
    namespace: prod
    annotations:
      config.kubernetes.io/merge-source: updated
      config.kubernetes.io/path: config/svc.yaml
  spec:
    ports: [{port: 80}]
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: live-only
    annotations: {config.kubernetes.io/merge-source: dest}
  data: {a: "1"}
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: bystander
  data: {b: "2"}
`

func TestApplyModeThroughProcessor(t *testing.T) {
	rl, err := run(t, applyInput)
	if err != nil {
		t.Fatalf("apply failed: %v\n%s", err, resultsOf(rl))
	}
	its := items(t, rl)
	if len(its) != 4 {
		t.Fatalf("want 4 items (applied, kept, bystander, created), got %d:\n%s", len(its), rl.MustString())
	}
	web := its[0]
	text := web.MustString()
	for _, want := range []string{"replicas: 3 # scaled by the HPA", "- name: web # main container", "image: web:2", "imagePullPolicy: IfNotPresent", "uid: 0a1b", "readyReplicas: 6", "config.kubernetes.io/path: live/web.yaml"} {
		if !strings.Contains(text, want) {
			t.Errorf("applied object lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "old:1") {
		t.Errorf("container removed from the config survived:\n%s", text)
	}
	la := web.GetAnnotations()["kubectl.kubernetes.io/last-applied-configuration"]
	if la != `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web","namespace":"prod"},"spec":{"replicas":3,"template":{"spec":{"containers":[{"image":"web:2","name":"web"}]}}}}`+"\n" {
		t.Errorf("annotation %q", la)
	}
	if its[1].GetName() != "live-only" || its[2].GetName() != "bystander" {
		t.Errorf("kept and pass-through items out of place: %s, %s", its[1].GetName(), its[2].GetName())
	}
	svc := its[3]
	if svc.GetKind() != "Service" || svc.GetAnnotations()["config.kubernetes.io/merge-source"] != "" {
		t.Errorf("created item: %s", svc.MustString())
	}
	if got := svc.GetAnnotations()["kubectl.kubernetes.io/last-applied-configuration"]; got != `{"apiVersion":"v1","kind":"Service","metadata":{"annotations":{},"name":"web","namespace":"prod"},"spec":{"ports":[{"port":80}]}}`+"\n" {
		t.Errorf("created item's annotation %q", got)
	}
	res := resultsOf(rl)
	for _, want := range []string{
		"apply: 1 applied (1 would change), 1 created, 1 kept; fields: 2 changed, 0 added, 1 deleted, 0 reordered; 1 overwrite a change made on the live object since the last apply",
		"path: spec.replicas", "currentValue: 6", "proposedValue: 3",
		"path: spec.template.spec.containers[name=old]",
		"path: spec.template.spec.containers[name=web].image",
		"apply would create this resource",
	} {
		if !strings.Contains(res, want) {
			t.Errorf("results lack %q:\n%s", want, res)
		}
	}
}

// TestApplyModeOwnRoleNames: the role annotation values config and live select apply
// mode's roles as updated and dest do; the output is the same, byte for byte, but for
// the role annotations it keeps as written.
func TestApplyModeOwnRoleNames(t *testing.T) {
	want, err := run(t, applyInput)
	if err != nil {
		t.Fatal(err)
	}
	input := strings.ReplaceAll(applyInput, "merge-source: updated", "merge-source: config")
	input = strings.ReplaceAll(input, "merge-source: dest", "merge-source: live")
	if input == applyInput || strings.Contains(input, "merge-source: dest") || strings.Contains(input, "merge-source: updated") {
		t.Fatal("the input's role annotations were not all renamed")
	}
	got, err := run(t, input)
	if err != nil {
		t.Fatalf("apply with config and live failed: %v\n%s", err, resultsOf(got))
	}
	if g, w := items(t, got), items(t, want); len(g) != len(w) {
		t.Fatalf("%d items, want %d", len(g), len(w))
	} else {
		for i := range w {
			want := strings.NewReplacer("merge-source: dest", "merge-source: live", "merge-source: updated", "merge-source: config").Replace(w[i].MustString())
			if g[i].MustString() != want {
				t.Errorf("item %d:\n%s\nwant:\n%s", i, g[i].MustString(), want)
			}
		}
	}
	if resultsOf(got) != resultsOf(want) {
		t.Errorf("results differ:\n%s\nwant:\n%s", resultsOf(got), resultsOf(want))
	}
}

// An invalid last-applied annotation fails the run: no items, an error naming the
// resource, the file and the field.
func TestApplyModeInvalidAnnotation(t *testing.T) {
	input := strings.Replace(applyInput, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web"`, `{"apiVersion":"apps/v1",,`, 1)
	rl, err := run(t, input)
	if err == nil {
		t.Fatal("want an error")
	}
	if n := len(items(t, rl)); n != 0 {
		t.Errorf("%d items written on error", n)
	}
	res := resultsOf(rl)
	for _, want := range []string{"severity: error", "name: web", "path: live/web.yaml", "path: metadata.annotations.kubectl.kubernetes.io/last-applied-configuration", "not a JSON object"} {
		if !strings.Contains(res, want) {
			t.Errorf("results lack %q:\n%s", want, res)
		}
	}
}

// onConflict: error refuses an apply that overwrites a live change (the HPA's replicas);
// onConflict: dest has no kubectl meaning and is rejected.
func TestApplyModeOnConflict(t *testing.T) {
	rl, err := run(t, strings.Replace(applyInput, "data: {mode: apply}", "data: {mode: apply, onConflict: error}", 1))
	if err == nil {
		t.Fatal("want an error")
	}
	res := resultsOf(rl)
	if len(items(t, rl)) != 0 || !strings.Contains(res, "path: spec.replicas") || !strings.Contains(res, "kubectl apply --overwrite=false") {
		t.Errorf("conflict not reported:\n%s", res)
	}
	rl, err = run(t, strings.Replace(applyInput, "data: {mode: apply}", "data: {mode: apply, onConflict: dest}", 1))
	if err == nil || !strings.Contains(resultsOf(rl), "path: data.onConflict") {
		t.Errorf("onConflict dest: %v\n%s", err, resultsOf(rl))
	}
}

// Path roles: the config under config/ is consumed, the created Service lands in live/.
func TestApplyModePathRoles(t *testing.T) {
	input := strings.Replace(applyInput, "data: {mode: apply}", "data: {mode: apply, updatedPath: config, destPath: live}", 1)
	for _, role := range []string{"dest", "updated"} {
		input = strings.ReplaceAll(input, "\n      config.kubernetes.io/merge-source: "+role, "")
	}
	input = strings.Replace(input, "annotations: {config.kubernetes.io/merge-source: dest}", "annotations: {config.kubernetes.io/path: live/cm.yaml}", 1)
	rl, err := run(t, input)
	if err != nil {
		t.Fatalf("%v\n%s", err, resultsOf(rl))
	}
	var paths []string
	for _, it := range items(t, rl) {
		paths = append(paths, it.GetAnnotations()["config.kubernetes.io/path"])
	}
	if strings.Join(paths, ",") != "live/web.yaml,live/cm.yaml,,live/svc.yaml" {
		t.Errorf("paths %v", paths)
	}
}

// onConflict: error lists the fields kubectl apply --overwrite=false refuses, a field
// the live object removed and the config keeps among them; a refusal no field accounts
// for (the config and the live object both dropped a finalizer of the last apply, on
// which kubectl's check fails) is one error result for the resource, without a field.
func TestApplyModeOnConflictReAddAndResourceLevel(t *testing.T) {
	input := strings.Replace(applyInput, "data: {mode: apply}", "data: {mode: apply, onConflict: error}", 1)
	// the live object dropped the container "old" that the last apply set; the config keeps it
	input = strings.Replace(input, "        - name: old\n          image: old:1\n", "", 1)
	input = strings.Replace(input, "        - name: web\n          image: web:2\n", "        - name: web\n          image: web:2\n        - name: old\n          image: old:1\n", 1)
	input = strings.Replace(input, "    replicas: 6 # scaled by the HPA\n", "    replicas: 2\n", 1)
	input = strings.Replace(input, "    replicas: 3\n", "    replicas: 2\n", 1)
	rl, err := run(t, input)
	if err == nil {
		t.Fatal("want an error")
	}
	res := resultsOf(rl)
	for _, want := range []string{"path: spec.template.spec.containers[name=old]", "add this field again, which was removed from the live object"} {
		if !strings.Contains(res, want) {
			t.Errorf("results lack %q:\n%s", want, res)
		}
	}
	if strings.Contains(res, "path: spec.replicas") {
		t.Errorf("replicas are unchanged on both sides, yet reported:\n%s", res)
	}

	input = strings.Replace(applyInput, "data: {mode: apply}", "data: {mode: apply, onConflict: error}", 1)
	input = strings.Replace(input, `"metadata":{"annotations":{},"name":"web","namespace":"prod"},"spec":{"replicas":2,`,
		`"metadata":{"annotations":{},"finalizers":["a.io/x","b.io/y"],"name":"web","namespace":"prod"},"spec":{"replicas":6,`, 1)
	input = strings.Replace(input, "    uid: 0a1b\n", "    uid: 0a1b\n    finalizers: [b.io/y]\n", 1)
	input = strings.Replace(input, "      config.kubernetes.io/path: config/web.yaml\n", "      config.kubernetes.io/path: config/web.yaml\n    finalizers: [b.io/y]\n", 1)
	input = strings.Replace(input, "    replicas: 3\n", "    replicas: 6\n", 1)
	input = strings.Replace(input, "          image: web:2\n", "          image: web:1\n        - name: old\n          image: old:1\n", 1)
	rl, err = run(t, input)
	if err == nil {
		t.Fatalf("want an error\n%s", resultsOf(rl))
	}
	res = resultsOf(rl)
	if !strings.Contains(res, "kubectl apply --overwrite=false would refuse this object: metadata.finalizers") || strings.Contains(res, "field:") {
		t.Errorf("want one resource-level conflict result naming metadata.finalizers, without a field:\n%s", res)
	}
}
