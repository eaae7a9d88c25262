package apply

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/plan"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// Worked example (docs/merge-semantics.md, "Worked examples", apply): last-applied containers
// nginx, nginx-helper-a, nginx-helper-b; config nginx, nginx-helper-b, nginx-helper-c;
// live nginx, nginx-helper-a, nginx-helper-b (with args: [run]), nginx-helper-d.
// Result: nginx, nginx-helper-b (keeps args: [run]), nginx-helper-c, nginx-helper-d.
//
// The example lists the result's members; their order is strategicpatch's, which is what
// the API server stores: with nginx-helper-a deleted in the same patch, the live-only
// nginx-helper-d stays before the new nginx-helper-c (mergeSortedSlice compares only
// elements both orders know). The order is checked against strategicpatch itself.
func TestWorkedExampleContainers(t *testing.T) {
	live := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web"},"spec":{"template":{"spec":{"containers":[{"image":"nginx","name":"nginx"},{"image":"helper-a","name":"nginx-helper-a"},{"image":"helper-b","name":"nginx-helper-b"}]}}}}
spec:
  template:
    spec:
      containers:
      - name: nginx
        image: nginx
      - name: nginx-helper-a
        image: helper-a
      - name: nginx-helper-b # runs the helper
        image: helper-b
        args: [run]
      - name: nginx-helper-d
        image: helper-d
`
	config := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: nginx
        image: nginx
      - name: nginx-helper-b
        image: helper-b
      - name: nginx-helper-c
        image: helper-c
`
	res := mustApply(t, live, config)
	out := jsonOf(t, res.Object)
	got := names(t, out, "spec", "template", "spec", "containers")
	members := append([]string(nil), got...)
	want := []string{"nginx", "nginx-helper-b", "nginx-helper-c", "nginx-helper-d"}
	if !sameSet(members, want) {
		t.Fatalf("containers %v, want the members %v", got, want)
	}
	wantValue(t, out, []string{"run"}, "spec", "template", "spec", "containers", "name=nginx-helper-b", "args")
	wantAbsent(t, out, "spec", "template", "spec", "containers", "name=nginx-helper-a")
	ref := referenceApply(t, yaml.MustParse(live), yaml.MustParse(config))
	if order := names(t, ref, "spec", "template", "spec", "containers"); !reflect.DeepEqual(order, got) {
		t.Errorf("order %v, strategicpatch gives %v", got, order)
	}
	if !reflect.DeepEqual(got, []string{"nginx", "nginx-helper-b", "nginx-helper-d", "nginx-helper-c"}) {
		t.Errorf("order %v changed from strategicpatch v0.37.2's nginx, nginx-helper-b, nginx-helper-d, nginx-helper-c", got)
	}
	if !strings.Contains(res.Object.MustString(), "- name: nginx-helper-b # runs the helper") {
		t.Errorf("the live element's comment is lost:\n%s", res.Object.MustString())
	}
	lines := planLines(res.Plan)
	for _, w := range []string{"delete spec.template.spec.containers[name=nginx-helper-a]", "add spec.template.spec.containers[name=nginx-helper-c]"} {
		if !contains(lines, w) {
			t.Errorf("plan %v lacks %q", lines, w)
		}
	}
}

// Worked example, primitive merge list: last-applied [a, b], config [a, c], live
// [a, b, d] gives [a, c, d]. The field is metadata.finalizers, the built-in list with
// patch strategy merge and no merge key (an ordered set).
func TestWorkedExamplePrimitiveMergeList(t *testing.T) {
	live := `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"annotations":{},"finalizers":["a","b"],"name":"settings"}}'
  finalizers: [a, b, d]
`
	config := `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  finalizers: [a, c]
`
	res := mustApply(t, live, config)
	wantValue(t, jsonOf(t, res.Object), []string{"a", "c", "d"}, "metadata", "finalizers")
	lines := planLines(res.Plan)
	if !reflect.DeepEqual(lines, []string{"delete metadata.finalizers[=b]", "add metadata.finalizers[=c]"}) {
		t.Errorf("plan %v", lines)
	}
}

// The same three lists on a field without patch strategy (a container's args) are
// atomic: the config's list replaces the live one.
func TestAtomicListReplaced(t *testing.T) {
	live := `apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{},"name":"p"},"spec":{"containers":[{"args":["a","b"],"image":"x","name":"app"}]}}'
spec:
  containers:
  - name: app
    image: x
    args: [a, b, d]
`
	config := `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: app
    image: x
    args: [a, c]
`
	res := mustApply(t, live, config)
	wantValue(t, jsonOf(t, res.Object), []string{"a", "c"}, "spec", "containers", "name=app", "args")
	if lines := planLines(res.Plan); !reflect.DeepEqual(lines, []string{"change spec.containers[name=app].args"}) {
		t.Errorf("plan %v", lines)
	}
}

// retainKeys (Deployment spec.strategy): switching to Recreate clears rollingUpdate,
// even though the API server defaulted it and no config ever set it.
func TestRetainKeysDeploymentStrategy(t *testing.T) {
	live := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web"},"spec":{"replicas":2}}'
spec:
  replicas: 2
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 25%
`
	config := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  strategy:
    type: Recreate
`
	res := mustApply(t, live, config)
	out := jsonOf(t, res.Object)
	wantValue(t, out, map[string]interface{}{"type": "Recreate"}, "spec", "strategy")
	lines := planLines(res.Plan)
	if !reflect.DeepEqual(lines, []string{"delete spec.strategy.rollingUpdate", "change spec.strategy.type"}) {
		t.Errorf("plan %v", lines)
	}
	if !strings.Contains(results.ApplyChange(results.At{}, res.Plan[0]).Message, "retainKeys") {
		t.Errorf("the deletion does not say why: %s", results.ApplyChange(results.At{}, res.Plan[0]).Message)
	}
}

// retainKeys on a volume (its source is inline with patch strategy retainKeys): a
// volume that changes from emptyDir to configMap loses emptyDir; without retainKeys a
// strategic merge would keep both sources.
func TestRetainKeysVolumeSource(t *testing.T) {
	live := `apiVersion: v1
kind: Pod
metadata:
  name: p
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{},"name":"p"},"spec":{"containers":[{"image":"x","name":"app"}],"volumes":[{"emptyDir":{},"name":"data"}]}}'
spec:
  containers:
  - name: app
    image: x
  volumes:
  - name: data # scratch space
    emptyDir: {}
  - name: kube-api-access
    projected: {sources: []}
`
	config := `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: app
    image: x
  volumes:
  - name: data
    configMap:
      name: settings
`
	res := mustApply(t, live, config)
	out := jsonOf(t, res.Object)
	wantValue(t, out, map[string]interface{}{"name": "data", "configMap": map[string]interface{}{"name": "settings"}}, "spec", "volumes", "name=data")
	mustGet(t, out, "spec", "volumes", "name=kube-api-access") // server-added volume kept
	if !strings.Contains(res.Object.MustString(), "- name: data # scratch space") {
		t.Errorf("comment lost:\n%s", res.Object.MustString())
	}
}

// patchStrategy replace (policy/v1 PodDisruptionBudget spec.selector): the config's
// selector replaces the live one whole, live-only keys included.
func TestReplaceStrategy(t *testing.T) {
	live := `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"annotations":{},"name":"web"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"web"}}}}'
spec:
  minAvailable: 1
  selector:
    matchLabels: {app: web, added: by-hand}
    matchExpressions:
    - {key: tier, operator: Exists}
`
	config := `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  minAvailable: 1
  selector:
    matchLabels: {app: web2}
`
	res := mustApply(t, live, config)
	wantValue(t, jsonOf(t, res.Object), map[string]interface{}{"matchLabels": map[string]interface{}{"app": "web2"}}, "spec", "selector")
	// the same edit on a merge map (labels) keeps the live-only key
	live2 := strings.Replace(live, "  name: web\n", "  name: web\n  labels: {app: web, added: by-hand}\n", 1)
	live2 = strings.Replace(live2, `"name":"web"}`, `"labels":{"app":"web"},"name":"web"}`, 1)
	config2 := strings.Replace(config, "  name: web\n", "  name: web\n  labels: {app: web2}\n", 1)
	res2 := mustApply(t, live2, config2)
	wantValue(t, jsonOf(t, res2.Object), map[string]interface{}{"app": "web2", "added": "by-hand"}, "metadata", "labels")
}

// Without the annotation there is no original: nothing is deleted, every field the
// config sets wins, and the annotation is added.
func TestAbsentAnnotationDeletesNothing(t *testing.T) {
	live := `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  labels: {team: a}
data:
  old: "1"
  shared: "1"
`
	config := `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  shared: "2"
  new: "3"
`
	res := mustApply(t, live, config)
	out := jsonOf(t, res.Object)
	wantValue(t, out, map[string]interface{}{"old": "1", "shared": "2", "new": "3"}, "data")
	wantValue(t, out, map[string]interface{}{"team": "a"}, "metadata", "labels")
	wantValue(t, out, res.LastApplied, "metadata", "annotations", LastAppliedAnnotation)
	for _, c := range res.Plan {
		if c.Op == plan.Deleted {
			t.Errorf("deleted %s without a last-applied configuration", c.Path)
		}
	}
}

// A last-applied annotation that is not JSON is an error naming resource and field,
// through Run also the file.
func TestInvalidLastAppliedJSON(t *testing.T) {
	for name, value := range map[string]string{"truncated": `'{"apiVersion":"v1",'`, "not an object": `'["a"]'`, "number": `'12'`} {
		t.Run(name, func(t *testing.T) {
			live := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: prod\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: " + value + "\n"
			config := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: prod\n"
			_, err := Apply(yaml.MustParse(live), yaml.MustParse(config), Options{})
			var ie *vocab.ItemError
			if !errors.As(err, &ie) {
				t.Fatalf("want an ItemError, got %v", err)
			}
			if ie.Field != "metadata.annotations.kubectl.kubernetes.io/last-applied-configuration" || ie.Resource == nil || ie.Resource.Name != "settings" || ie.Resource.Namespace != "prod" {
				t.Errorf("error does not locate the annotation: %+v", ie)
			}
			if !strings.Contains(ie.Msg, "not a JSON object") {
				t.Errorf("message: %s", ie.Msg)
			}
		})
	}
}

// Custom resources use a JSON merge patch as kubectl does: lists are replaced whole,
// live-only elements and set members included, and maps still merge.
func TestCustomResourceListsReplaced(t *testing.T) {
	live := `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
  finalizers: [a, b, d]
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"annotations":{},"finalizers":["a","b"],"name":"w"},"spec":{"items":[{"name":"x","size":1}],"settings":{"a":"1"}}}'
spec:
  items:
  - name: x # first
    size: 1
  - name: added-by-controller
    size: 9
  settings: {a: "1", b: "2"}
status: {ready: true}
`
	config := `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
  finalizers: [a, c]
spec:
  items:
  - name: x
    size: 2
  settings: {a: "1"}
`
	res := mustApply(t, live, config)
	if res.PatchType.Strategy != JSONMerge {
		t.Fatalf("strategy %s", res.PatchType.Strategy)
	}
	out := jsonOf(t, res.Object)
	wantValue(t, out, []interface{}{map[string]interface{}{"name": "x", "size": 2}}, "spec", "items")
	wantValue(t, out, []string{"a", "c"}, "metadata", "finalizers")
	wantValue(t, out, map[string]interface{}{"a": "1", "b": "2"}, "spec", "settings")
	wantValue(t, out, true, "status", "ready")
	if !strings.Contains(res.Object.MustString(), "- name: x # first") {
		t.Errorf("comment of the element lost:\n%s", res.Object.MustString())
	}
	// a custom resource whose apiVersion changed fails kubectl's precondition
	_, err := Apply(yaml.MustParse(live), yaml.MustParse(strings.Replace(config, "example.com/v1", "example.com/v2", 1)), Options{})
	if err == nil || !strings.Contains(err.Error(), "At least one of apiVersion, kind and name was changed") {
		t.Errorf("version change: %v", err)
	}
}

// The live object's comments, field order and styles survive; new fields go after
// their predecessor in the config; removed fields leave with their comments.
func TestCommentsAndOrderKept(t *testing.T) {
	live := `# the app
kind: Deployment
apiVersion: apps/v1
metadata:
  name: web # web tier
  namespace: prod
  uid: 1234
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web","namespace":"prod"},"spec":{"paused":false,"replicas":2,"template":{"spec":{"containers":[{"image":"app:1","name":"app"}]}}}}
spec:
  # scaled by the HPA
  replicas: 7
  paused: false # to be removed
  template:
    spec:
      containers:
      - image: app:1 # pinned
        name: app
        terminationMessagePath: /dev/termination-log
status:
  observedGeneration: 3
`
	config := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: prod
  labels:
    app: web # new label
spec:
  replicas: 3
  minReadySeconds: 5 # new
  template:
    spec:
      containers:
      - name: app
        image: app:2
`
	res := mustApply(t, live, config)
	got := res.Object.MustString()
	for _, want := range []string{
		"# the app\nkind: Deployment\napiVersion: apps/v1\n",
		"  name: web # web tier\n  namespace: prod\n  labels:\n    app: web # new label\n  uid: 1234\n",
		"  # scaled by the HPA\n  replicas: 3\n  minReadySeconds: 5 # new\n  template:",
		"      - image: app:2 # pinned\n        name: app\n        terminationMessagePath: /dev/termination-log\n",
		"status:\n  observedGeneration: 3\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "paused") || strings.Contains(got, "to be removed") {
		t.Errorf("removed field kept:\n%s", got)
	}
	var over []string
	for _, c := range res.Plan.Overwrites() {
		over = append(over, c.Path.String())
	}
	if !reflect.DeepEqual(over, []string{"spec.replicas"}) {
		t.Errorf("overwrites %v, want spec.replicas (HPA changed it since the last apply)", over)
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return true
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
