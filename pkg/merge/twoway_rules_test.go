package merge_test

// One named test per rule of docs/merge-semantics.md for the 2-way merge (src S into
// dest D): every row of the 2-way table, the strategic-merge directives kustomize patches
// use, that directives never reach the output, the errors an unknown directive gives, and
// kustomize's merge2 documentation's worked example. Keyed list order is compared exactly (it follows
// kyaml merge2: dest's order, src's new elements appended).

import (
	"errors"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

type rule2 struct {
	name string
	s, d string
	// want is the expected output; "" means absent.
	want string
	text bool
	// err, when set, is the expected error text (and want is ignored).
	err string
}

func (c rule2) run(t *testing.T) {
	t.Helper()
	s, d := parse(t, c.s), parse(t, c.d)
	in := [2]string{str(s), str(d)}
	res2, err := merge.TwoWay(s, d, kubeOpts(vocab.UpdatedWins))
	got := res2.Value
	if after := [2]string{str(s), str(d)}; after != in {
		t.Fatalf("TwoWay changed its inputs")
	}
	if c.err != "" {
		var de *merge.DirectiveError
		if err == nil || err.Error() != c.err || !errors.As(err, &de) {
			t.Fatalf("error %v, want DirectiveError %q", err, c.err)
		}
		if !got.IsNil() {
			t.Fatalf("an error returns no half-merged output, got:\n%s", str(got))
		}
		return
	}
	if err != nil {
		t.Fatalf("TwoWay: %v", err)
	}
	checkOutput(t, got, c.want, c.text)
	if strings.Contains(str(got), "$") {
		t.Fatalf("a directive reached the output:\n%s", str(got))
	}
}

func TestTwoWayScalarsAndAtomicLists(t *testing.T) {
	for _, c := range []rule2{
		{name: "scalar only in D: kept", s: "b: 1\n", d: "a: 1\nb: 0\n", want: "a: 1\nb: 1\n", text: true},
		{name: "scalar in S, non-null: S's value", s: "a: 5\n", d: "a: 3\n", want: "a: 5\n", text: true},
		{name: "scalar in S, null: cleared", s: "a: null\n", d: "a: 3\nb: 1\n", want: "b: 1\n", text: true},
		{name: "scalar null in S and absent from D: stays absent", s: "a: ~\n", d: "b: 1\n", want: "b: 1\n", text: true},
		{name: "scalar only in S: added", s: "a: 5\n", d: "b: 1\n", want: "a: 5\nb: 1\n", text: true},
		{name: "atomic list: S replaces D's (seed: [1, 2, 3] over [a, b, c])", s: "l: [1, 2, 3]\n", d: "l: [a, b, c]\n", want: "l: [1, 2, 3]\n", text: true},
		{name: "atomic list null in S: cleared", s: "l: null\n", d: "l: [a]\nb: 1\n", want: "b: 1\n", text: true},
		{name: "atomic list only in D: kept", s: "b: 2\n", d: "l: [a]\nb: 1\n", want: "l: [a]\nb: 2\n", text: true},
		{
			name: "atomic list is S's value verbatim, its nulls included",
			s:    widgetHead + "steps:\n- {run: a, retries: null}\n", d: widgetHead + "steps:\n- {run: b}\n",
			want: widgetHead + "steps:\n- {run: a, retries: null}\n", text: true,
		},
		{
			name: "null elements of a list of primitives are no value, in S and in D",
			s:    widgetHead + "args: [a, null]\n", d: widgetHead + "args: [x]\nkeep: [null, y]\n",
			want: widgetHead + "args: [a]\nkeep: [y]\n", text: true,
		},
	} {
		t.Run(c.name, c.run)
	}
}

func TestTwoWayMaps(t *testing.T) {
	for _, c := range []rule2{
		{
			name: "seed: {key1, key2} into {key2, key3}",
			s:    "m: {key1: value1, key2: value2}\n", d: "m: {key2: value0, key3: value3}\n",
			want: "m: {key1: value1, key2: value2, key3: value3}\n",
		},
		{name: "map only in D: kept", s: "a: 1\n", d: "a: 0\nm: {x: 1}\n", want: "a: 1\nm: {x: 1}\n", text: true},
		{name: "map only in S: added", s: "m: {x: 1}\n", d: "a: 0\n", want: "m: {x: 1}\na: 0\n", text: true},
		{name: "map only in S: its null fields are not added", s: "m: {x: 1, y: null}\n", d: "a: 0\n", want: "m: {x: 1}\na: 0\n", text: true},
		{name: "map null in S: removed", s: "m: null\n", d: "a: 0\nm: {x: 1}\n", want: "a: 0\n", text: true},
		{name: "map in both: recursed", s: "m:\n  x: 2\n  y: null\n", d: "m:\n  x: 1\n  y: 1\n  z: 1\n", want: "m:\n  x: 2\n  z: 1\n", text: true},
		{name: "S map over a D null: S's map", s: "m: {x: 1}\n", d: "m: null\n", want: "m: {x: 1}\n", text: true},
	} {
		t.Run(c.name, c.run)
	}
}

func TestTwoWayKeyedLists(t *testing.T) {
	const pod = deployHead + "spec:\n  template:\n    spec:\n      containers:\n"
	for _, c := range []rule2{
		{
			name: "paired by key; only in D kept; only in S appended; both recursed",
			s:    pod + "      - name: b\n        image: b:2\n      - name: n\n        image: n:1\n",
			d:    pod + "      - name: a\n        image: a:1\n      - name: b\n        image: b:1\n        args: [x]\n",
			want: pod + "      - name: a\n        image: a:1\n      - name: b\n        image: b:2\n        args: [x]\n      - name: n\n        image: n:1\n",
			text: true,
		},
		{
			name: "order: D's, then S's new elements in S's order, at the end (kyaml merge2)",
			s:    widgetHead + "items:\n- name: z\n- name: b\n- name: y\n",
			d:    widgetHead + "items:\n- name: b\n- name: a\n",
			want: widgetHead + "items:\n- name: b\n- name: a\n- name: z\n- name: y\n",
			text: true,
		},
		{
			name: "primitive set (finalizers): D's elements, S's new ones appended",
			s:    deployHead + "  finalizers: [c, a]\n", d: deployHead + "  finalizers: [a, b]\n",
			want: deployHead + "  finalizers: [a, b, c]\n", text: true,
		},
		{
			name: "custom kind: metadata.finalizers is a set",
			s:    widgetHead + "  finalizers: [c]\n", d: widgetHead + "  finalizers: [a]\n",
			want: widgetHead + "  finalizers: [a, c]\n", text: true,
		},
		{
			name: "custom kind: metadata.ownerReferences keyed by uid",
			s:    widgetHead + "  ownerReferences:\n  - {name: p, uid: u2, kind: B}\n",
			d:    widgetHead + "  ownerReferences:\n  - {name: p, uid: u1, kind: A}\n  - {name: p, uid: u2, kind: A}\n",
			want: widgetHead + "  ownerReferences:\n  - {name: p, uid: u1, kind: A}\n  - {name: p, uid: u2, kind: B}\n", text: true,
		},
		{
			name: "heuristic uniqueness: columns keyed by name when type repeats",
			s:    widgetHead + "columns:\n- {name: Age, type: date, jsonPath: .new}\n",
			d:    widgetHead + "columns:\n- {name: Ready, type: string, jsonPath: .a}\n- {name: Age, type: date, jsonPath: .b}\n- {name: Status, type: string, jsonPath: .c}\n",
			want: widgetHead + "columns:\n- {name: Ready, type: string, jsonPath: .a}\n- {name: Age, type: date, jsonPath: .new}\n- {name: Status, type: string, jsonPath: .c}\n", text: true,
		},
		{
			name: "wildcard secondary key: a port without protocol pairs with protocol TCP",
			s:    pod + "      - name: app\n        ports:\n        - {containerPort: 80, name: web}\n",
			d:    pod + "      - name: app\n        ports:\n        - {containerPort: 80, protocol: TCP, name: http}\n        - {containerPort: 81, protocol: TCP}\n",
			want: pod + "      - name: app\n        ports:\n        - {containerPort: 80, protocol: TCP, name: web}\n        - {containerPort: 81, protocol: TCP}\n", text: true,
		},
		{
			name: "no key qualifies: atomic, never an error",
			s:    widgetHead + "items:\n- {name: a, v: 2}\n- {v: keyless}\n", d: widgetHead + "items:\n- {name: a, v: 1}\n- {name: b}\n",
			want: widgetHead + "items:\n- {name: a, v: 2}\n- {v: keyless}\n", text: true,
		},
		{
			name: "duplicate merge keys: atomic",
			s:    pod + "      - name: app\n        env:\n        - {name: A, value: \"1\"}\n        - {name: A, value: \"2\"}\n",
			d:    pod + "      - name: app\n        env:\n        - {name: A, value: \"0\"}\n        - {name: B, value: \"0\"}\n",
			want: pod + "      - name: app\n        env:\n        - {name: A, value: \"1\"}\n        - {name: A, value: \"2\"}\n", text: true,
		},
	} {
		t.Run(c.name, c.run)
	}
}

func TestTwoWayPatchDirectives(t *testing.T) {
	const pod = deployHead + "spec:\n  template:\n    spec:\n      containers:\n"
	for _, c := range []rule2{
		{
			name: "$patch: delete on a map removes it",
			s:    deployHead + "spec:\n  strategy:\n    $patch: delete\n",
			d:    deployHead + "spec:\n  replicas: 1\n  strategy:\n    type: Recreate\n",
			want: deployHead + "spec:\n  replicas: 1\n", text: true,
		},
		{
			name: "$patch: delete on a map dest lacks adds nothing",
			s:    deployHead + "spec:\n  strategy:\n    $patch: delete\n", d: deployHead + "spec:\n  replicas: 1\n",
			want: deployHead + "spec:\n  replicas: 1\n", text: true,
		},
		{
			name: "$patch: replace on a map replaces it whole",
			s:    deployHead + "spec:\n  strategy:\n    $patch: replace\n    type: Recreate\n",
			d:    deployHead + "spec:\n  strategy:\n    type: RollingUpdate\n    rollingUpdate: {maxSurge: 1}\n",
			want: deployHead + "spec:\n  strategy:\n    type: Recreate\n", text: true,
		},
		{
			name: "$patch: merge on a map is the default merge",
			s:    deployHead + "spec:\n  strategy:\n    $patch: merge\n    type: Recreate\n",
			d:    deployHead + "spec:\n  strategy:\n    type: RollingUpdate\n    rollingUpdate: {maxSurge: 1}\n",
			want: deployHead + "spec:\n  strategy:\n    type: Recreate\n    rollingUpdate: {maxSurge: 1}\n", text: true,
		},
		{
			name: "$patch: delete on a keyed element removes it",
			s:    pod + "      - name: b\n        $patch: delete\n",
			d:    pod + "      - name: a\n      - name: b\n        image: b:1\n      - name: c\n",
			want: pod + "      - name: a\n      - name: c\n", text: true,
		},
		{
			name: "$patch: delete on every element leaves an empty list",
			s:    widgetHead + "items:\n- {name: a, $patch: delete}\n", d: widgetHead + "items:\n- {name: a}\n",
			want: widgetHead + "items: []\n", text: true,
		},
		{
			name: "$patch: delete on an element dest lacks adds nothing",
			s:    pod + "      - name: z\n        $patch: delete\n", d: pod + "      - name: a\n",
			want: pod + "      - name: a\n", text: true,
		},
		{
			name: "$patch: replace on a keyed element replaces it whole",
			s:    pod + "      - name: b\n        $patch: replace\n        image: b:2\n",
			d:    pod + "      - name: a\n      - name: b\n        image: b:1\n        args: [x]\n",
			want: pod + "      - name: a\n      - name: b\n        image: b:2\n", text: true,
		},
		{
			name: "sequence-level {$patch: replace}: the list is src's elements only",
			s:    pod + "      - $patch: replace\n      - name: n\n        image: n:1\n",
			d:    pod + "      - name: a\n      - name: b\n",
			want: pod + "      - name: n\n        image: n:1\n", text: true,
		},
		{
			name: "sequence-level {$patch: merge}: only removed",
			s:    pod + "      - $patch: merge\n      - name: b\n        image: b:2\n",
			d:    pod + "      - name: a\n      - name: b\n",
			want: pod + "      - name: a\n      - name: b\n        image: b:2\n", text: true,
		},
		{
			name: "sequence-level {$patch: delete}: the list is removed",
			s:    deployHead + "spec:\n  template:\n    spec:\n      volumes:\n      - $patch: delete\n",
			d:    deployHead + "spec:\n  template:\n    spec:\n      volumes:\n      - name: v\n      hostNetwork: true\n",
			want: deployHead + "spec:\n  template:\n    spec:\n      hostNetwork: true\n", text: true,
		},
		{
			name: "$retainKeys: fields not listed are cleared (kyaml ignores it, kustomize #3981)",
			s:    deployHead + "spec:\n  strategy:\n    $retainKeys: [type]\n    type: Recreate\n",
			d:    deployHead + "spec:\n  strategy:\n    type: RollingUpdate\n    rollingUpdate: {maxSurge: 1}\n",
			want: deployHead + "spec:\n  strategy:\n    type: Recreate\n", text: true,
		},
		{
			name: "$setElementOrder/<list>: the merged list takes that order (kyaml ignores it, kustomize #2037)",
			s:    pod + "      - name: n\n      $setElementOrder/containers:\n      - name: n\n      - name: b\n      - name: a\n",
			d:    pod + "      - name: a\n      - name: b\n",
			want: pod + "      - name: n\n      - name: b\n      - name: a\n", text: true,
		},
		{
			name: "$setElementOrder/<list> on a primitive list",
			s:    deployHead + "  $setElementOrder/finalizers: [c, b, a]\n  finalizers: [c]\n", d: deployHead + "  finalizers: [a, b]\n",
			want: deployHead + "  finalizers: [c, b, a]\n", text: true,
		},
		{
			name: "$deleteFromPrimitiveList/<list> removes values (kyaml ignores it, kustomize #2954)",
			s:    deployHead + "  $deleteFromPrimitiveList/finalizers: [b]\n", d: deployHead + "  finalizers: [a, b, c]\n",
			want: deployHead + "  finalizers: [a, c]\n", text: true,
		},
		{
			name: "directives in a subtree dest lacks are applied and removed",
			s:    deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - {name: a, $patch: delete}\n      - name: b\n        resources:\n          $patch: replace\n          limits: {cpu: \"1\"}\n",
			d:    deployHead,
			want: deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: b\n        resources:\n          limits: {cpu: \"1\"}\n", text: true,
		},
		{
			name: "unknown $patch value on a map: error with its path",
			s:    deployHead + "spec:\n  strategy:\n    $patch: remove\n", d: deployHead + "spec:\n  strategy: {type: Recreate}\n",
			err: `spec.strategy: unknown patch strategy "remove"; valid: merge, replace, delete`,
		},
		{
			name: "unknown $patch value on a keyed element: error with its path",
			s:    pod + "      - name: app\n        $patch: drop\n", d: pod + "      - name: app\n",
			err: `spec.template.spec.containers[name=app]: unknown patch strategy "drop"; valid: merge, replace, delete`,
		},
		{
			name: "unknown sequence-level $patch value: error with the list's path",
			s:    pod + "      - $patch: nope\n      - name: app\n", d: pod + "      - name: app\n",
			err: `spec.template.spec.containers: unknown patch strategy "nope"; valid: merge, replace, delete`,
		},
		{
			name: "unknown $patch value where dest has nothing: still an error",
			s:    deployHead + "spec:\n  strategy:\n    $patch: remove\n", d: deployHead,
			err: `spec.strategy: unknown patch strategy "remove"; valid: merge, replace, delete`,
		},
		{
			name: "malformed $retainKeys: error with its path",
			s:    deployHead + "spec:\n  strategy:\n    $retainKeys: type\n", d: deployHead + "spec:\n  strategy: {type: Recreate}\n",
			err: `spec.strategy.$retainKeys: must be a list of field names`,
		},
	} {
		t.Run(c.name, c.run)
	}
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
		res2, err := merge.TwoWay(parse(t, src), parse(t, dest), merge.Options{Lists: lists})
		got := res2.Value
		if err != nil {
			t.Fatal(err)
		}
		checkOutput(t, got, want, true)
	}
}

func TestTwoWayNilInputs(t *testing.T) {
	d := parse(t, "a: 1\n")
	res2, err := merge.TwoWay(nil, d, merge.Options{})
	got := res2.Value
	if err != nil || got.MustString() != "a: 1\n" {
		t.Fatalf("nil src: %v %s", err, str(got))
	}
	res2, err = merge.TwoWay(parse(t, "a: 2\nb: null\n"), nil, merge.Options{})
	got = res2.Value
	if err != nil || got.MustString() != "a: 2\n" {
		t.Fatalf("nil dest: %v %s", err, str(got))
	}
}
