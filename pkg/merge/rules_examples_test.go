package merge_test

// The rule tests that do not fit the one-case format of testdata/rules (TestRules): how
// a conflict is written, dest kept byte for byte, inputs never changed, kustomize's
// merge3 and merge2 documentation's worked examples, a CustomResourceDefinition among the
// inputs, and nil inputs.

import (
	"strings"
	"testing"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

func TestThreeWayConflictString(t *testing.T) {
	o := `spec:
  replicas: 1
`
	u := `spec:
  replicas: 2
`
	d := `spec:
  replicas: 3
`
	_, cs, _ := threeWay(parse(t, o), parse(t, u), parse(t, d), kubeOpts(vocab.Updated))
	if len(cs) != 1 {
		t.Fatalf("conflicts: %v", cs)
	}
	want := "spec.replicas: changed on both sides (original 1, updated 2, dest 3); updated wins"
	if got := cs[0].String(); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if cs[0].Original.YNode().Value != "1" || cs[0].Updated.YNode().Value != "2" || cs[0].Dest.YNode().Value != "3" {
		t.Fatalf("conflict values: %v", cs[0])
	}
}

// TestThreeWayConflictDescribeShowsTheDifference: long values that begin alike (an
// atomic list of rules, a long image reference) are shown from shortly before the first
// place they differ, so the message says what differs; short values stay whole.
func TestThreeWayConflictDescribeShowsTheDifference(t *testing.T) {
	rules := func(path string) string {
		return strings.ReplaceAll(`rules:
- host: docs.example.com
  http:
    paths:
    - path: /PATH
      pathType: Prefix
`, "PATH", path)
	}
	_, cs, _ := threeWay(parse(t, rules("a")), parse(t, rules("b")), parse(t, rules("c")), kubeOpts(vocab.Updated))
	if len(cs) != 1 {
		t.Fatalf("conflicts: %v", cs)
	}
	got := cs[0].Describe()
	for _, want := range []string{"original ...", "path: /a pathType: Prefix", "path: /b pathType: Prefix", "path: /c pathType: Prefix"} {
		if !strings.Contains(got, want) {
			t.Errorf("Describe() = %q lacks %q", got, want)
		}
	}
	_, cs, _ = threeWay(parse(t, "x: é\n"), parse(t, "x: "+strings.Repeat("é", 40)+"\n"), parse(t, "x: b\n"), kubeOpts(vocab.Updated))
	if got := cs[0].Describe(); !utf8.ValidString(got) || !strings.Contains(got, "original é,") || !strings.Contains(got, "...") {
		t.Errorf("Describe() = %q: want short values whole and long ones cut on a character boundary", got)
	}
}

func TestThreeWayUnchangedUpstreamIsByteIdentical(t *testing.T) {
	d := `# a dest with every kind of formatting
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # line
  annotations: {a: 'x', "b": "y"}
spec:
  replicas: 0x10
  paused: ~
  template:
    spec:
      containers:
      - name: app
        args: [--a, "--b"]
        env:
        - {name: A, value: "1"}
      - image: keyless
  extra: |
    literal
    text
`
	o := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: app
        image: a:1
`
	for _, u := range []string{o, strings.Replace(o, "replicas: 1", "replicas:   !!int 1", 1)} {
		got, cs, err := threeWay(parse(t, o), parse(t, u), parse(t, d), kubeOpts(vocab.Updated))
		if err != nil || len(cs) > 0 {
			t.Fatalf("err %v conflicts %v", err, cs)
		}
		if got.MustString() != parse(t, d).MustString() {
			t.Fatalf("got:\n%s\nwant dest:\n%s", got.MustString(), parse(t, d).MustString())
		}
	}
}

func TestThreeWayDoesNotMutateInputs(t *testing.T) {
	o := parse(t, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: a
        image: x
      - name: b
`)
	u := parse(t, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: n
      - name: a
        image: y
`)
	d := parse(t, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: b
      - name: a
        image: z
`)
	before := [3]string{o.MustString(), u.MustString(), d.MustString()}
	out, _, err := threeWay(o, u, d, kubeOpts(vocab.Updated))
	if err != nil {
		t.Fatal(err)
	}
	if after := [3]string{o.MustString(), u.MustString(), d.MustString()}; after != before {
		t.Fatalf("inputs changed:\n%v\n%v", before, after)
	}
	// and the output shares no node with them: changing it leaves them alone
	out.YNode().Content = nil
	if after := [3]string{o.MustString(), u.MustString(), d.MustString()}; after != before {
		t.Fatalf("output aliases an input")
	}
}

// TestThreeWayMerge3FieldRules walks kustomize's merge3 documentation's field rules on one Deployment.
func TestThreeWayMerge3FieldRules(t *testing.T) {
	o := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  minReadySeconds: 5
  paused: false
  template:
    spec:
      containers:
      - name: nginx
        image: nginx:1.6
        command: [old_run.sh]
      - name: gone
        image: gone:1
      volumes:
      - name: v
        emptyDir: {}
`
	u := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  minReadySeconds: 10
  progressDeadlineSeconds: 60
  template:
    spec:
      containers:
      - name: nginx
        image: nginx:1.7
        command: [new_run.sh]
      - name: sidecar
        image: sidecar:v1
      volumes:
      - name: v
        emptyDir: {}
`
	d := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  minReadySeconds: 5
  paused: null
  revisionHistoryLimit: 2
  template:
    spec:
      containers:
      - name: nginx
        image: nginx:1.6
        command: [old_run.sh]
      - name: gone
        image: gone:1
      - name: local
        image: local:1
`
	want := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  minReadySeconds: 10
  progressDeadlineSeconds: 60
  revisionHistoryLimit: 2
  template:
    spec:
      containers:
      - name: nginx
        image: nginx:1.7
        command: [new_run.sh]
      - name: sidecar
        image: sidecar:v1
      - name: local
        image: local:1
`
	// replicas: unchanged upstream, dest's kept; minReadySeconds: changed upstream, taken;
	// paused: deleted upstream and null in dest, cleared; progressDeadlineSeconds: added,
	// after its predecessor in updated;
	// revisionHistoryLimit: only in dest, kept; containers: nginx merged, gone deleted
	// upstream, sidecar added after its predecessor, local kept; volumes: deleted locally
	// and unchanged upstream, stays deleted.
	got, cs, err := threeWay(parse(t, o), parse(t, u), parse(t, d), kubeOpts(vocab.Updated))
	if err != nil || len(cs) > 0 {
		t.Fatalf("err %v conflicts %v", err, cs)
	}
	checkOutput(t, got, want, true)
}

// TestThreeWayCRDInTheInput: with the CRD of a custom kind among the inputs
// (schema.Resolver.WithCRDs), its schema decides the kind's lists: here `ports` keyed by
// two list-map-keys (no associative key at all), `stages` atomic (x-kubernetes-list-type:
// atomic) although its elements carry `name`, and `steps`, which the CRD declares with
// no list type, keyed by the associative-key inference (name), as without the CRD.
func TestThreeWayCRDInTheInput(t *testing.T) {
	crd := parse(t, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget}
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [number, proto]
                items: {type: object}
              steps:
                type: array
                items: {type: object}
              stages:
                type: array
                x-kubernetes-list-type: atomic
                items: {type: object}
`)
	o := `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec:
  ports:
  - {number: 1, proto: a, v: 1}
  - {number: 1, proto: b, v: 1}
  steps:
  - {name: s, run: x}
  stages:
  - {name: s, run: x}
`
	u := `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec:
  ports:
  - {number: 1, proto: a, v: 1}
  - {number: 1, proto: b, v: 2}
  steps:
  - {name: s, run: y}
  stages:
  - {name: s, run: y}
`
	d := `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec:
  ports:
  - {number: 1, proto: a, v: 9}
  - {number: 1, proto: b, v: 1}
  steps:
  - {name: s, run: x}
  - {name: mine, run: z}
  stages:
  - {name: s, run: x}
  - {name: mine, run: z}
`
	want := `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
spec:
  ports:
  - {number: 1, proto: a, v: 9}
  - {number: 1, proto: b, v: 2}
  steps:
  - {name: s, run: y}
  - {name: mine, run: z}
  stages:
  - {name: s, run: y}
`
	lists := schema.New(schema.Options{OpenAPI: true}).WithCRDs([]*yaml.RNode{crd})
	got, cs, err := threeWay(parse(t, o), parse(t, u), parse(t, d), merge.Options{Lists: lists})
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, got, want, true)
	checkConflicts(t, cs, []conflictWant{{"spec.stages", merge.BothChanged, "updated"}})
}

// TestTwoWayMerge2WorkedExample is merge2.md's worked example: replicas 3, nginx updated in place,
// sidecar1 kept, sidecar2 appended.
func TestTwoWayMerge2WorkedExample(t *testing.T) {
	src := `apiVersion: apps/v1
kind: Deployment
spec:
  replicas: 3 # scalar
  template:
    spec:
      containers: # associative list -- (name)
      - name: nginx
        image: nginx:1.7
        command: ['new_run.sh', 'arg1'] # non-associative list
      - name: sidecar2
        image: sidecar2:v1
`
	dest := `apiVersion: apps/v1
kind: Deployment
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: nginx
        image: nginx:1.6
        command: ['old_run.sh', 'arg0']
      - name: sidecar1
        image: sidecar1:v1
`
	want := `apiVersion: apps/v1
kind: Deployment
spec:
  replicas: 3 # scalar
  template:
    spec:
      containers:
      - name: nginx
        image: nginx:1.7
        command: ['new_run.sh', 'arg1'] # non-associative list
      - name: sidecar1
        image: sidecar1:v1
      - name: sidecar2
        image: sidecar2:v1
`
	for _, lists := range []*schema.Resolver{schema.New(schema.Options{OpenAPI: true}), schema.New(schema.Options{})} {
		got, err := twoWay(parse(t, src), parse(t, dest), merge.Options{Lists: lists})
		if err != nil {
			t.Fatal(err)
		}
		checkOutput(t, got, want, true)
	}
}

func TestTwoWayNilInputs(t *testing.T) {
	d := parse(t, "a: 1\n")
	got, err := twoWay(nil, d, merge.Options{})
	if err != nil || got.MustString() != "a: 1\n" {
		t.Fatalf("nil src: %v %s", err, str(got))
	}
	got, err = twoWay(parse(t, "a: 2\nb: null\n"), nil, merge.Options{})
	if err != nil || got.MustString() != "a: 2\n" {
		t.Fatalf("nil dest: %v %s", err, str(got))
	}
}
