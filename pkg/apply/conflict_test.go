package apply

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/jsonvalue"
	"github.com/krm-merge/krm-merge/pkg/plan"
)

// conflictPaths applies config to live with NoOverwrite and returns the paths of the
// conflicting fields, nil when the apply is accepted; any other error fails the test.
func conflictPaths(t *testing.T, live, config string) ([]string, *ConflictError) {
	t.Helper()
	_, err := Apply(yaml.MustParse(live), yaml.MustParse(config), Options{NoOverwrite: true})
	if err == nil {
		return nil, nil
	}
	var ce *ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("want a *ConflictError or nothing, got %v", err)
	}
	paths := []string{}
	for _, c := range ce.Fields {
		paths = append(paths, c.Path.String())
	}
	return paths, ce
}

// deployment is a Deployment named web with the given last-applied annotation (none
// when "") and the rest of the object (metadata fields after the annotation, then
// spec), indented as under metadata.
func deployment(lastApplied, rest string) string {
	s := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
	if lastApplied != "" {
		s += "  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '" + lastApplied + "'\n"
	}
	return s + rest
}

// Re-adding what the live object removed: the last apply set the tier label and a
// sidecar container, someone removed both from the live object, and the config still
// has them. kubectl's check refuses (its patch adds them, the live changes delete them).
func TestNoOverwriteReAddsLiveRemoval(t *testing.T) {
	la := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"labels":{"app":"web","tier":"api"},"name":"web"},` +
		`"spec":{"template":{"spec":{"containers":[{"image":"app:1","name":"app"},{"image":"side:1","name":"sidecar"}]}}}}`
	live := deployment(la, `  labels:
    app: web
spec:
  template:
    spec:
      containers:
      - name: app
        image: app:1
`)
	config := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web, tier: api}
spec:
  template:
    spec:
      containers:
      - {name: app, image: app:2}
      - {name: sidecar, image: side:1}
`
	paths, ce := conflictPaths(t, live, config)
	want := []string{"metadata.labels.tier", "spec.template.spec.containers[name=sidecar]"}
	if !reflect.DeepEqual(paths, want) {
		t.Fatalf("conflicts %v, want %v", paths, want)
	}
	for _, c := range ce.Fields {
		if c.Op != plan.Added || !c.InBase || c.Current != nil || c.Proposed == nil {
			t.Errorf("%s: %+v, want a re-add of a last-applied field the live object lacks", c.Path, c)
		}
	}
	// the live object keeping both: only the image changes, which nobody changed live
	live = deployment(la, `  labels: {app: web, tier: api}
spec:
  template:
    spec:
      containers:
      - {name: app, image: app:1}
      - {name: sidecar, image: side:1}
`)
	if paths, _ := conflictPaths(t, live, config); paths != nil {
		t.Errorf("no conflict expected, got %v", paths)
	}
}

// Setting a field only the live object has: the last apply did not set replicas (an
// HPA owns it), the config now sets it to another value. kubectl's check refuses; the
// same value as live, or a config that leaves replicas alone, is no conflict. Without a
// last-applied annotation every live field is live-only.
func TestNoOverwriteSetsLiveOnlyField(t *testing.T) {
	la := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web"},"spec":{"minReadySeconds":1}}`
	live := deployment(la, "spec:\n  replicas: 5\n  minReadySeconds: 1\n")
	config := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n  minReadySeconds: 1\n"
	paths, ce := conflictPaths(t, live, config)
	if !reflect.DeepEqual(paths, []string{"spec.replicas"}) {
		t.Fatalf("conflicts %v, want [spec.replicas]", paths)
	}
	if c := ce.Fields[0]; c.Op != plan.Changed || c.InBase || !jsonvalue.Equal(c.Current, 5) || !jsonvalue.Equal(c.Proposed, 3) {
		t.Errorf("conflict %+v, want a change of the live-only 5 to 3", c)
	}
	for _, cfg := range []string{
		strings.Replace(config, "replicas: 3", "replicas: 5", 1),
		strings.Replace(config, "  replicas: 3\n", "", 1),
	} {
		if paths, _ := conflictPaths(t, live, cfg); paths != nil {
			t.Errorf("config\n%s\nno conflict expected, got %v", cfg, paths)
		}
	}
	live = deployment("", "spec:\n  replicas: 5\n  minReadySeconds: 1\n")
	if paths, _ := conflictPaths(t, live, config); !reflect.DeepEqual(paths, []string{"spec.replicas"}) {
		t.Errorf("no annotation: conflicts %v, want [spec.replicas]", paths)
	}
}

// retainKeys clearing a live-only value: the live Deployment has the server's default
// strategy (RollingUpdate with rollingUpdate), which the last apply did not set; the
// config sets type Recreate, so the apply clears rollingUpdate. kubectl's check refuses,
// and what it compares is the union's type (the patch sets it, the live object set it
// to something else); the cleared rollingUpdate is not compared (the patch carries it
// only in $retainKeys), so it is not listed.
func TestNoOverwriteRetainKeysClearsLiveOnlyValue(t *testing.T) {
	la := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web"},"spec":{"replicas":2}}`
	live := deployment(la, `spec:
  replicas: 2
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}
`)
	config := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  strategy:\n    type: Recreate\n"
	paths, ce := conflictPaths(t, live, config)
	if !reflect.DeepEqual(paths, []string{"spec.strategy.type"}) {
		t.Fatalf("conflicts %v, want [spec.strategy.type]", paths)
	}
	if c := ce.Fields[0]; c.Op != plan.Changed || c.InBase || c.Current != "RollingUpdate" || c.Proposed != "Recreate" {
		t.Errorf("conflict %+v", c)
	}
	res := mustApply(t, live, config) // with overwrite, the switch clears rollingUpdate
	wantAbsent(t, jsonOf(t, res.Object), "spec", "strategy", "rollingUpdate")

	// when the last apply set the type, the switch is the config's own change: clearing
	// the server's rollingUpdate is no conflict for kubectl
	la = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web"},"spec":{"replicas":2,"strategy":{"type":"RollingUpdate"}}}`
	live = deployment(la, `spec:
  replicas: 2
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}
`)
	if paths, _ := conflictPaths(t, live, config); paths != nil {
		t.Errorf("last-applied type: no conflict expected, got %v", paths)
	}
}

// Custom resources: kubectl's JSON merge patch path never reads --overwrite, so
// NoOverwrite refuses nothing, even an overwrite of a live change.
func TestNoOverwriteCustomResource(t *testing.T) {
	live := `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"annotations":{},"name":"w"},"spec":{"size":2}}'
spec:
  size: 7
`
	config := "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n"
	res, err := Apply(yaml.MustParse(live), yaml.MustParse(config), Options{NoOverwrite: true})
	if err != nil {
		t.Fatalf("kubectl applies custom resources whatever --overwrite says: %v", err)
	}
	wantValue(t, jsonOf(t, res.Object), int64(3), "spec", "size")
}

// A refusal no field accounts for is reported for the object, with kubectl's reason:
// the config and the live object both dropped a finalizer the last apply set, and
// kubectl's check fails looking up its deletion list as a field.
func TestNoOverwriteRefusalWithoutField(t *testing.T) {
	la := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"finalizers":["a.io/x","b.io/y"],"name":"web"},"spec":{"replicas":2}}`
	live := deployment(la, "  finalizers: [b.io/y]\nspec:\n  replicas: 2\n")
	config := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  finalizers: [b.io/y]\nspec:\n  replicas: 2\n"
	paths, ce := conflictPaths(t, live, config)
	if ce == nil || len(paths) != 0 {
		t.Fatalf("want a refusal without fields, got %v", paths)
	}
	if !strings.Contains(ce.Reason, "metadata.finalizers") || !strings.Contains(ce.Reason, "$deleteFromPrimitiveList/finalizers") {
		t.Errorf("reason %q does not name the field and kubectl's error", ce.Reason)
	}
}

// onConflict: error is kubectl apply --overwrite=false: refused when the config changes
// a field changed live since the last apply; accepted when the live changes are elsewhere.
func TestNoOverwrite(t *testing.T) {
	live := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web"},"spec":{"minReadySeconds":1,"replicas":2}}'
spec:
  replicas: 7
  minReadySeconds: 1
`
	config := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n  minReadySeconds: 1\n"
	_, err := Apply(yaml.MustParse(live), yaml.MustParse(config), Options{NoOverwrite: true})
	var ce *ConflictError
	if !errors.As(err, &ce) || len(ce.Fields) != 1 || ce.Fields[0].Path.String() != "spec.replicas" {
		t.Fatalf("want a conflict on spec.replicas, got %v", err)
	}
	// the config keeping replicas at the last-applied 2 still reverts the live 7: a conflict
	config = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  minReadySeconds: 1\n"
	if _, err := Apply(yaml.MustParse(live), yaml.MustParse(config), Options{NoOverwrite: true}); !errors.As(err, &ce) {
		t.Errorf("reverting the live replicas: want a conflict, got %v", err)
	}
	// live changes to fields the config does not touch are no conflict
	live = strings.Replace(live, "  replicas: 7\n", "  replicas: 2\n  paused: true\n", 1)
	config = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  minReadySeconds: 4\n"
	if _, err := Apply(yaml.MustParse(live), yaml.MustParse(config), Options{NoOverwrite: true}); err != nil {
		t.Errorf("no conflict expected: %v", err)
	}
}
