package merge_test

// One named test per rule of docs/merge-semantics.md for the 3-way merge (node kinds,
// every row of the 3-way table, nulls, conflicts under both policies and their paths, no
// stubs, deletions, element order, comments, ObjectMeta for custom kinds, the list
// decisions as the merge sees them) and kustomize's merge3 documentation's rules. Each case is built
// so that it fails if its rule were removed: the expected output differs from what the
// neighbouring rule (or kyaml) would give. Outputs are compared as YAML text where
// formatting is the point (comments, byte identity, order), semantically elsewhere.

import (
	"strings"
	"testing"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// parse parses YAML; "" is an absent input (nil).
func parse(t *testing.T, s string) *yaml.RNode {
	t.Helper()
	if s == "" {
		return nil
	}
	r, err := yaml.Parse(s)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return r
}

func kubeOpts(p vocab.ConflictPolicy) merge.Options {
	return merge.Options{Policy: p, Lists: schema.New(schema.Options{OpenAPI: true})}
}

// conflictWant is the expected shape of one conflict.
type conflictWant struct {
	path   string
	kind   vocab.ConflictKind
	winner string
}

// rule3 is one 3-way rule case.
type rule3 struct {
	name    string
	o, u, d string
	policy  vocab.ConflictPolicy
	// want is the expected output; "" means absent (nil).
	want string
	// text compares want as YAML text, byte for byte; else semantically (map field
	// order ignored, list order kept).
	text      bool
	conflicts []conflictWant
}

func (c rule3) run(t *testing.T) {
	t.Helper()
	o, u, d := parse(t, c.o), parse(t, c.u), parse(t, c.d)
	in := [3]string{str(o), str(u), str(d)}
	res3, err := merge.ThreeWay(o, u, d, kubeOpts(c.policy))
	got, conflicts := res3.Value, res3.Conflicts
	if err != nil {
		t.Fatalf("ThreeWay: %v", err)
	}
	if after := [3]string{str(o), str(u), str(d)}; after != in {
		t.Fatalf("ThreeWay changed its inputs")
	}
	checkOutput(t, got, c.want, c.text)
	checkConflicts(t, conflicts, c.conflicts)
}

func checkOutput(t *testing.T, got *yaml.RNode, want string, text bool) {
	t.Helper()
	if want == "" {
		if !got.IsNil() {
			t.Fatalf("want absent, got:\n%s", str(got))
		}
		return
	}
	if got.IsNil() {
		t.Fatalf("got absent, want:\n%s", want)
	}
	if text {
		if s := got.MustString(); s != want {
			t.Fatalf("got:\n%s\nwant:\n%s", s, want)
		}
		return
	}
	w := yaml.MustParse(want)
	var diffs []difference
	comparer{ordered: true}.compare(yn(got), yn(w), schema.New(schema.Options{OpenAPI: true}).ForResource(w), nil, &diffs)
	if len(diffs) > 0 {
		t.Fatalf("at %q: got %s, want %s\ngot:\n%s\nwant:\n%s", diffs[0].path.String(), strN(diffs[0].ours), strN(diffs[0].other), str(got), want)
	}
}

func checkConflicts(t *testing.T, got []vocab.Conflict, want []conflictWant) {
	t.Helper()
	var g, w []string
	for _, c := range got {
		g = append(g, c.Path.String()+" | "+string(c.Kind)+" | "+string(c.Winner))
	}
	for _, c := range want {
		w = append(w, c.path+" | "+string(c.kind)+" | "+c.winner)
	}
	if strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Fatalf("conflicts:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
}

const deployHead = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
const widgetHead = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"

func TestThreeWayNodeKinds(t *testing.T) {
	for _, c := range []rule3{
		{
			name: "scalar compared by tag: 1 to \"1\" is a change",
			o:    "a: 1\n", u: "a: \"1\"\n", d: "a: 1\nb: x\n",
			want: "a: \"1\"\nb: x\n", text: true,
		},
		{
			name: "scalar: a quoting-only or comment-only change upstream is no change",
			o:    "a: x # one\nb: 1\n", u: "a: 'x' # two\nb: 1\n", d: "a: y\nb: 1\n",
			want: "a: y\nb: 1\n", text: true,
		},
		{
			name: "map paired by field name, not position",
			o:    "m:\n  a: 1\n  b: 2\n", u: "m:\n  b: 3\n  a: 1\n", d: "m:\n  a: 5\n  b: 2\n",
			want: "m:\n  a: 5\n  b: 3\n",
		},
		{
			name: "associative list paired by merge key, not position",
			o:    widgetHead + "spec:\n  items:\n  - name: a\n    v: 1\n  - name: b\n    v: 1\n",
			u:    widgetHead + "spec:\n  items:\n  - name: a\n    v: 2\n  - name: b\n    v: 1\n",
			d:    widgetHead + "spec:\n  items:\n  - name: b\n    v: 1\n  - name: a\n    v: 1\n",
			want: widgetHead + "spec:\n  items:\n  - name: b\n    v: 1\n  - name: a\n    v: 2\n",
		},
		{
			name: "primitive set list paired by value",
			o:    deployHead + "  finalizers: [a, b]\n",
			u:    deployHead + "  finalizers: [a, c]\n",
			d:    deployHead + "  finalizers: [d, b, a]\n",
			want: deployHead + "  finalizers: [d, a, c]\n",
		},
		{
			name: "non-associative list is atomic: replaced whole",
			o:    deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        args: [a, b]\n",
			u:    deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        args: [a, b, c]\n",
			d:    deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        args: [a, b]\n",
			want: deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        args: [a, b, c]\n",
		},
	} {
		t.Run(c.name, c.run)
	}
}

func TestThreeWayNulls(t *testing.T) {
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ingress-nginx-controller\n"
	for _, c := range []rule3{
		{
			name: "D null: cleared when upstream changed the field",
			o:    "a: 1\nb: x\n", u: "a: 2\nb: x\n", d: "a: null\nb: x\n",
			want: "b: x\n", text: true,
		},
		{
			name: "D null: kept verbatim when O==U",
			o:    "a: 1\nb: x\n", u: "a: 1\nb: y\n", d: "a: ~\nb: x\n",
			want: "a: ~\nb: y\n", text: true,
		},
		{
			name: "D null on a map: cleared when upstream changed inside it (no conflict)",
			o:    "m:\n  a: 1\n", u: "m:\n  a: 2\n", d: "m: null\nb: x\n",
			want: "b: x\n", text: true,
		},
		{
			name: "D null on a keyed list: cleared when upstream changed it (kyaml re-creates it)",
			o:    widgetHead + "items:\n- name: a\n  v: 1\n",
			u:    widgetHead + "items:\n- name: a\n  v: 2\n",
			d:    widgetHead + "items: null\n",
			want: widgetHead, text: true,
		},
		{
			name: "U null, O set: cleared although D changed it, and no conflict",
			o:    "a: 1\nb: x\n", u: "a: null\nb: x\n", d: "a: 3\nb: x\n",
			want: "b: x\n", text: true,
		},
		{
			name: "U null, O absent: cleared (upstream clears a value O never had)",
			o:    "b: x\n", u: "a: null\nb: x\n", d: "a: 3\nb: x\n",
			want: "b: x\n", text: true,
		},
		{
			name: "O and U null: D kept (ingress-nginx ConfigMap data: null)",
			o:    cm + "data: null\n",
			u:    cm + "data: null\n",
			d:    cm + "data:\n  use-forwarded-headers: \"true\"\n",
			want: cm + "data:\n  use-forwarded-headers: \"true\"\n", text: true,
		},
		{
			name: "O null, U absent: unchanged upstream, D kept",
			o:    cm + "data: null\n",
			u:    cm,
			d:    cm + "data:\n  k: v\n",
			want: cm + "data:\n  k: v\n", text: true,
		},
		{
			name: "null fields of a map new upstream are dropped",
			o:    "b: x\n", u: "b: x\nm:\n  a: 1\n  c: null\n", d: "b: x\n",
			want: "b: x\nm:\n  a: 1\n", text: true,
		},
		{
			name: "U equals D but holds a null: the null still clears",
			o:    "m:\n  a: 1\n  b: 2\n", u: "m:\n  a: 2\n  b: null\n", d: "m:\n  a: 2\n  b: null\n",
			want: "m:\n  a: 2\n", text: true,
		},
		{
			name: "D's null equal to O's is no local change: upstream's value arrives (kpt's TestKeepTaggedNull)",
			o:    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata: null\n",
			u:    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: \"1\"\n  gone: null\n",
			d:    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels: {mine: x}\ndata: null\n",
			want: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels: {mine: x}\ndata:\n  a: \"1\"\n", text: true,
		},
		{
			name: "D's null equal to O's, a scalar set upstream",
			o:    "a: ~\nb: 1\n", u: "a: 5\nb: 1\n", d: "a: null\nb: 2\n",
			want: "a: 5\nb: 2\n", text: true,
		},
		{
			name: "null elements of a list of primitives are no value: dropped from every source and the output",
			o:    widgetHead + "args: [a, null, b]\nkeep: [x, null]\n", u: widgetHead + "args: [a, b, null, c]\nkeep: [x]\n", d: widgetHead + "args: [a, b]\nkeep: [x, null, y]\n",
			want: widgetHead + "args: [a, b, c]\nkeep: [x, y]\n", text: true,
		},
		{
			name: "a null element is never a conflict",
			o:    deployHead + "  finalizers: [a]\n", u: deployHead + "  finalizers: [a, null]\n", d: deployHead + "  finalizers: [null, a]\n",
			want: deployHead + "  finalizers: [a]\n", text: true,
		},
		{
			name: "nulls inside an atomic list are data",
			o:    widgetHead + "steps:\n- run: a\n", u: widgetHead + "steps:\n- run: b\n  retries: null\n", d: widgetHead + "steps:\n- run: a\n",
			want: widgetHead + "steps:\n- run: b\n  retries: null\n", text: true,
		},
	} {
		t.Run(c.name, c.run)
	}
}

func TestThreeWayScalarsAndAtomicLists(t *testing.T) {
	for _, c := range []rule3{
		{name: "unchanged upstream: keep D", o: "a: 1\n", u: "a: 1\n", d: "a: 2\n", want: "a: 2\n"},
		{name: "changed upstream, D unchanged: take U", o: "a: 1\n", u: "a: 2\n", d: "a: 1\n", want: "a: 2\n"},
		{name: "added upstream: take U", o: "b: 0\n", u: "a: 2\nb: 0\n", d: "b: 0\n", want: "b: 0\na: 2\n"},
		{name: "deleted upstream, D unchanged: deleted", o: "a: 1\nb: 0\n", u: "b: 0\n", d: "a: 1\nb: 0\n", want: "b: 0\n"},
		{name: "only in D: kept", o: "b: 0\n", u: "b: 1\n", d: "a: 1\nb: 0\n", want: "a: 1\nb: 1\n"},
		{name: "same change on both sides: no conflict", o: "a: 1\n", u: "a: 2\n", d: "a: 2\n", want: "a: 2\n"},
		{name: "atomic list unchanged upstream: keep D", o: "l: [1, 2]\n", u: "l: [1, 2]\n", d: "l: [3]\n", want: "l: [3]\n"},
		{name: "atomic list reordered upstream is a change", o: "l: [1, 2]\n", u: "l: [2, 1]\n", d: "l: [1, 2]\n", want: "l: [2, 1]\n"},
		{
			name: "atomic list of maps without any associative key is never an error",
			o:    widgetHead + "steps:\n- run: a\n- run: b\n", u: widgetHead + "steps:\n- run: a\n- run: c\n", d: widgetHead + "steps:\n- run: a\n- run: b\n- run: local\n",
			want:      widgetHead + "steps:\n- run: a\n- run: c\n",
			conflicts: []conflictWant{{"steps", vocab.BothChanged, "updated"}},
		},
	} {
		t.Run(c.name, c.run)
	}
}

func TestThreeWayConflicts(t *testing.T) {
	for _, c := range []rule3{
		{
			name: "changed on both sides, updated wins",
			o:    deployHead + "spec:\n  replicas: 1\n", u: deployHead + "spec:\n  replicas: 2\n", d: deployHead + "spec:\n  replicas: 3\n",
			want:      deployHead + "spec:\n  replicas: 2\n",
			conflicts: []conflictWant{{"spec.replicas", vocab.BothChanged, "updated"}},
		},
		{
			name: "changed on both sides, dest wins", policy: vocab.DestWins,
			o: deployHead + "spec:\n  replicas: 1\n", u: deployHead + "spec:\n  replicas: 2\n", d: deployHead + "spec:\n  replicas: 3\n",
			want:      deployHead + "spec:\n  replicas: 3\n",
			conflicts: []conflictWant{{"spec.replicas", vocab.BothChanged, "dest"}},
		},
		{
			name: "added on both sides with different values",
			o:    "a: 0\n", u: "a: 0\nb: 1\n", d: "a: 0\nb: 2\n",
			want:      "a: 0\nb: 1\n",
			conflicts: []conflictWant{{"b", vocab.BothChanged, "updated"}},
		},
		{
			name: "atomic list changed on both sides, dest wins", policy: vocab.DestWins,
			o:         deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        args: [a]\n",
			u:         deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        args: [b]\n",
			d:         deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        args: [c]\n",
			want:      deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        args: [c]\n",
			conflicts: []conflictWant{{"spec.template.spec.containers[name=app].args", vocab.BothChanged, "dest"}},
		},
		{
			name: "scalar deleted locally, changed upstream: updated wins",
			o:    "a: 1\nb: 0\n", u: "a: 2\nb: 0\n", d: "b: 0\n",
			want:      "b: 0\na: 2\n",
			conflicts: []conflictWant{{"a", vocab.DeletedLocally, "updated"}},
		},
		{
			name: "scalar deleted locally, changed upstream: dest wins", policy: vocab.DestWins,
			o: "a: 1\nb: 0\n", u: "a: 2\nb: 0\n", d: "b: 0\n",
			want:      "b: 0\n",
			conflicts: []conflictWant{{"a", vocab.DeletedLocally, "dest"}},
		},
		{
			name: "scalar deleted upstream, changed locally: updated wins",
			o:    "a: 1\nb: 0\n", u: "b: 0\n", d: "a: 2\nb: 0\n",
			want:      "b: 0\n",
			conflicts: []conflictWant{{"a", vocab.DeletedUpstream, "updated"}},
		},
		{
			name: "scalar deleted upstream, changed locally: dest wins", policy: vocab.DestWins,
			o: "a: 1\nb: 0\n", u: "b: 0\n", d: "a: 2\nb: 0\n",
			want:      "a: 2\nb: 0\n",
			conflicts: []conflictWant{{"a", vocab.DeletedUpstream, "dest"}},
		},
		{
			name:      "keyed element deleted upstream, changed in D: removed whole, never a key-only stub",
			o:         deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: a:1\n      - name: old\n        image: o:1\n",
			u:         deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: a:1\n",
			d:         deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: a:1\n      - name: old\n        image: o:2\n        env:\n        - name: X\n          value: \"1\"\n",
			want:      deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: a:1\n",
			conflicts: []conflictWant{{"spec.template.spec.containers[name=old]", vocab.DeletedUpstream, "updated"}},
		},
		{
			name: "keyed element deleted upstream, changed in D: dest keeps it whole", policy: vocab.DestWins,
			o:         deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: a:1\n      - name: old\n        image: o:1\n",
			u:         deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: a:1\n",
			d:         deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: a:1\n      - name: old\n        image: o:2\n",
			want:      deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: a:1\n      - name: old\n        image: o:2\n",
			conflicts: []conflictWant{{"spec.template.spec.containers[name=old]", vocab.DeletedUpstream, "dest"}},
		},
		{
			name: "keyed element deleted upstream, unchanged in D: removed, no conflict",
			o:    widgetHead + "items:\n- name: a\n- name: b\n  v: 1\n", u: widgetHead + "items:\n- name: a\n", d: widgetHead + "items:\n- name: a\n- name: b\n  v: 1\n",
			want: widgetHead + "items:\n- name: a\n", text: true,
		},
		{
			name: "map deleted upstream, changed in D: removed whole + conflict",
			o:    "m:\n  a: 1\n  b: 2\nx: 0\n", u: "x: 0\n", d: "m:\n  a: 1\n  b: 3\n  c: 4\nx: 0\n",
			want:      "x: 0\n",
			conflicts: []conflictWant{{"m", vocab.DeletedUpstream, "updated"}},
		},
		{
			name: "whole keyed list deleted upstream, changed in D: removed + conflict",
			o:    widgetHead + "items:\n- name: a\n", u: widgetHead, d: widgetHead + "items:\n- name: a\n- name: local\n",
			want:      widgetHead,
			conflicts: []conflictWant{{"items", vocab.DeletedUpstream, "updated"}},
		},
		{
			name: "set deleted locally, values added upstream: updated's whole set comes back + conflict",
			o:    deployHead + "  labels: {a: b}\n  finalizers: [a, b]\n", u: deployHead + "  labels: {a: b}\n  finalizers: [a, c]\n", d: deployHead + "  labels: {a: b}\n",
			want:      deployHead + "  labels: {a: b}\n  finalizers: [a, c]\n",
			conflicts: []conflictWant{{"metadata.finalizers", vocab.DeletedLocally, "updated"}},
		},
		{
			name: "set deleted locally, values added upstream: dest keeps it deleted", policy: vocab.DestWins,
			o: deployHead + "  labels: {a: b}\n  finalizers: [a]\n", u: deployHead + "  labels: {a: b}\n  finalizers: [a, c]\n", d: deployHead + "  labels: {a: b}\n",
			want:      deployHead + "  labels: {a: b}\n",
			conflicts: []conflictWant{{"metadata.finalizers", vocab.DeletedLocally, "dest"}},
		},
		{
			name: "no stub: set deleted locally, upstream only removed a value",
			o:    deployHead + "  labels: {a: b}\n  finalizers: [a, b]\n", u: deployHead + "  labels: {a: b}\n  finalizers: [a]\n", d: deployHead + "  labels: {a: b}\n",
			want: deployHead + "  labels: {a: b}\n",
		},
		{
			name:      "multi-key element path names both keys",
			o:         deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        ports:\n        - containerPort: 80\n          protocol: UDP\n          name: a\n",
			u:         deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        ports:\n        - containerPort: 80\n          protocol: UDP\n          name: b\n",
			d:         deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        ports:\n        - containerPort: 80\n          protocol: UDP\n          name: c\n",
			want:      deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n        ports:\n        - containerPort: 80\n          protocol: UDP\n          name: b\n",
			conflicts: []conflictWant{{"spec.template.spec.containers[name=app].ports[containerPort=80,protocol=UDP].name", vocab.BothChanged, "updated"}},
		},
		{
			name: "explicit nulls are never conflicts",
			o:    "a: 1\nb: 1\n", u: "a: null\nb: 2\n", d: "a: 5\nb: null\n",
			want: "{}\n",
		},
		{
			name: "added on both sides (no original): differing fields are conflicts",
			o:    "", u: "a: 1\nb: 2\n", d: "a: 1\nb: 3\nc: 4\n",
			want:      "a: 1\nb: 2\nc: 4\n",
			conflicts: []conflictWant{{"b", vocab.BothChanged, "updated"}},
		},
	} {
		t.Run(c.name, c.run)
	}
}

func TestThreeWayConflictString(t *testing.T) {
	res3, _ := merge.ThreeWay(parse(t, "spec:\n  replicas: 1\n"), parse(t, "spec:\n  replicas: 2\n"), parse(t, "spec:\n  replicas: 3\n"), kubeOpts(vocab.UpdatedWins))
	cs := res3.Conflicts
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
		return "rules:\n- host: docs.example.com\n  http:\n    paths:\n    - path: /" + path + "\n      pathType: Prefix\n"
	}
	res3, _ := merge.ThreeWay(parse(t, rules("a")), parse(t, rules("b")), parse(t, rules("c")), kubeOpts(vocab.UpdatedWins))
	cs := res3.Conflicts
	if len(cs) != 1 {
		t.Fatalf("conflicts: %v", cs)
	}
	got := cs[0].Describe()
	for _, want := range []string{"original ...", "path: /a pathType: Prefix", "path: /b pathType: Prefix", "path: /c pathType: Prefix"} {
		if !strings.Contains(got, want) {
			t.Errorf("Describe() = %q lacks %q", got, want)
		}
	}
	res3, _ = merge.ThreeWay(parse(t, "x: é\n"), parse(t, "x: "+strings.Repeat("é", 40)+"\n"), parse(t, "x: b\n"), kubeOpts(vocab.UpdatedWins))
	cs = res3.Conflicts
	if got := cs[0].Describe(); !utf8.ValidString(got) || !strings.Contains(got, "original é,") || !strings.Contains(got, "...") {
		t.Errorf("Describe() = %q: want short values whole and long ones cut on a character boundary", got)
	}
}

func TestThreeWayMaps(t *testing.T) {
	for _, c := range []rule3{
		{
			name: "map only in D: kept",
			o:    "a: 0\n", u: "a: 1\n", d: "a: 0\nm:\n  x: 1\n",
			want: "a: 1\nm:\n  x: 1\n", text: true,
		},
		{
			name: "map absent from D and O (new upstream): added",
			o:    "a: 0\n", u: "a: 0\nm:\n  x: 1\n", d: "a: 0\n",
			want: "a: 0\nm:\n  x: 1\n", text: true,
		},
		{
			name: "empty map new upstream is a value: added",
			o:    "a: 0\n", u: "a: 0\nm: {}\n", d: "a: 0\n",
			want: "a: 0\nm: {}\n", text: true,
		},
		{
			name: "map in all three: recursed field by field",
			o:    "m:\n  x: 1\n  y: 1\n  z: 1\n", u: "m:\n  x: 2\n  y: 1\n", d: "m:\n  x: 1\n  y: 3\n  z: 1\n  w: 4\n",
			want: "m:\n  x: 2\n  y: 3\n  w: 4\n", text: true,
		},
		{
			name: "no stub: map deleted in D, unchanged upstream, stays absent",
			o:    "a: 0\nm:\n  x: 1\n", u: "a: 1\nm:\n  x: 1\n", d: "a: 0\n",
			want: "a: 1\n", text: true,
		},
		{
			name: "no stub: map deleted in D, upstream only deleted inside, stays absent",
			o:    "a: 0\nm:\n  x: 1\n  y: 2\n", u: "a: 0\nm:\n  x: 1\n", d: "a: 0\n",
			want: "a: 0\n", text: true,
		},
		{
			name: "map deleted in D, upstream changed inside: updated's whole map comes back, never the delta alone + conflict",
			o:    "a: 0\nm:\n  x: 1\n  y: 2\n  z: 3\n", u: "a: 0\nm:\n  x: 1\n  y: 5\n  n: 6\n", d: "a: 0\n",
			want:      "a: 0\nm:\n  x: 1\n  y: 5\n  n: 6\n",
			text:      true,
			conflicts: []conflictWant{{"m", vocab.DeletedLocally, "updated"}},
		},
		{
			name: "map deleted in D, upstream changed inside: dest keeps it deleted", policy: vocab.DestWins,
			o: "a: 0\nm:\n  x: 1\n", u: "a: 0\nm:\n  x: 2\n", d: "a: 0\n",
			want:      "a: 0\n",
			text:      true,
			conflicts: []conflictWant{{"m", vocab.DeletedLocally, "dest"}},
		},
		{
			name: "nested maps deleted in D: updated's whole map comes back, its null fields dropped",
			o:    "a: 0\nm:\n  p:\n    x: 1\n  q:\n    y: 1\n", u: "a: 0\nm:\n  p:\n    x: 1\n    gone: null\n  q:\n    y: 2\n", d: "a: 0\n",
			want:      "a: 0\nm:\n  p:\n    x: 1\n  q:\n    y: 2\n",
			text:      true,
			conflicts: []conflictWant{{"m", vocab.DeletedLocally, "updated"}},
		},
	} {
		t.Run(c.name, c.run)
	}
}

func TestThreeWayKeyedLists(t *testing.T) {
	const pod = deployHead + "spec:\n  template:\n    spec:\n      containers:\n"
	for _, c := range []rule3{
		{
			name: "element only in D: kept",
			o:    widgetHead + "items:\n- name: a\n", u: widgetHead + "items:\n- name: a\n  v: 1\n", d: widgetHead + "items:\n- name: a\n- name: mine\n",
			want: widgetHead + "items:\n- name: a\n  v: 1\n- name: mine\n", text: true,
		},
		{
			name: "element new upstream: added whole",
			o:    widgetHead + "items:\n- name: a\n", u: widgetHead + "items:\n- name: a\n- name: b\n  v: 1\n", d: widgetHead + "items:\n- name: a\n",
			want: widgetHead + "items:\n- name: a\n- name: b\n  v: 1\n", text: true,
		},
		{
			name: "element in all three: recursed",
			o:    pod + "      - name: app\n        image: a:1\n        imagePullPolicy: Always\n",
			u:    pod + "      - name: app\n        image: a:2\n        imagePullPolicy: Always\n",
			d:    pod + "      - name: app\n        image: a:1\n        imagePullPolicy: IfNotPresent\n",
			want: pod + "      - name: app\n        image: a:2\n        imagePullPolicy: IfNotPresent\n", text: true,
		},
		{
			name: "no stub: element deleted in D, unchanged upstream, stays deleted",
			o:    pod + "      - name: app\n        resources:\n          limits:\n            cpu: \"1\"\n      - name: side\n",
			u:    pod + "      - name: app\n        resources:\n          limits:\n            cpu: \"1\"\n      - name: side\n        image: s:2\n",
			d:    pod + "      - name: side\n",
			want: pod + "      - name: side\n        image: s:2\n", text: true,
		},
		{
			name:      "element deleted in D, changed upstream: updated's whole element comes back + conflict",
			o:         pod + "      - name: app\n        image: a:1\n        args: [x]\n      - name: side\n",
			u:         pod + "      - name: app\n        image: a:2\n        args: [x]\n      - name: side\n",
			d:         pod + "      - name: side\n",
			want:      pod + "      - name: side\n      - name: app\n        image: a:2\n        args: [x]\n",
			text:      true,
			conflicts: []conflictWant{{"spec.template.spec.containers[name=app]", vocab.DeletedLocally, "updated"}},
		},
		{
			name: "element deleted in D, changed upstream: dest keeps it deleted", policy: vocab.DestWins,
			o:         pod + "      - name: app\n        image: a:1\n      - name: side\n",
			u:         pod + "      - name: app\n        image: a:2\n      - name: side\n",
			d:         pod + "      - name: side\n",
			want:      pod + "      - name: side\n",
			text:      true,
			conflicts: []conflictWant{{"spec.template.spec.containers[name=app]", vocab.DeletedLocally, "dest"}},
		},
		{
			name:      "whole keyed list deleted in D, one element changed upstream: updated's whole list comes back",
			o:         widgetHead + "spec:\n  x: 0\n  items:\n  - name: a\n    v: 1\n  - name: b\n    v: 1\n",
			u:         widgetHead + "spec:\n  x: 0\n  items:\n  - name: a\n    v: 1\n  - name: b\n    v: 2\n",
			d:         widgetHead + "spec:\n  x: 0\n",
			want:      widgetHead + "spec:\n  x: 0\n  items:\n  - name: a\n    v: 1\n  - name: b\n    v: 2\n",
			text:      true,
			conflicts: []conflictWant{{"spec.items", vocab.DeletedLocally, "updated"}},
		},
		{
			name: "no stub: whole keyed list deleted in D, upstream only deleted an element",
			o:    widgetHead + "spec:\n  x: 0\n  items:\n  - name: a\n  - name: b\n", u: widgetHead + "spec:\n  x: 0\n  items:\n  - name: a\n", d: widgetHead + "spec:\n  x: 0\n",
			want: widgetHead + "spec:\n  x: 0\n", text: true,
		},
		{
			name: "all elements deleted: the list stays, empty",
			o:    widgetHead + "items:\n- name: a\n", u: widgetHead + "items: []\n", d: widgetHead + "items:\n- name: a\n",
			want: widgetHead + "items: []\n", text: true,
		},
		{
			name: "element added on both sides: merged field by field",
			o:    widgetHead + "items:\n- name: a\n", u: widgetHead + "items:\n- name: a\n- name: n\n  v: 1\n  w: 1\n", d: widgetHead + "items:\n- name: a\n- name: n\n  v: 2\n  x: 3\n",
			want:      widgetHead + "items:\n- name: a\n- name: n\n  v: 1\n  x: 3\n  w: 1\n",
			conflicts: []conflictWant{{"items[name=n].v", vocab.BothChanged, "updated"}},
		},
	} {
		t.Run(c.name, c.run)
	}
}

func TestThreeWayElementOrder(t *testing.T) {
	for _, c := range []rule3{
		{
			name: "D's order; new elements after their predecessor in U, else at the end",
			o:    widgetHead + "l:\n- name: a\n- name: b\n",
			u:    widgetHead + "l:\n- name: z\n- name: a\n- name: n\n- name: b\n- name: m\n",
			d:    widgetHead + "l:\n- name: b\n- name: x\n- name: a\n",
			want: widgetHead + "l:\n- name: b\n- name: m\n- name: x\n- name: a\n- name: n\n- name: z\n", text: true,
		},
		{
			name: "a predecessor D deleted does not anchor: the nearest present one does",
			o:    widgetHead + "l:\n- name: a\n- name: b\n",
			u:    widgetHead + "l:\n- name: a\n- name: b\n- name: n\n",
			d:    widgetHead + "l:\n- name: a\n- name: c\n",
			want: widgetHead + "l:\n- name: a\n- name: n\n- name: c\n", text: true,
		},
		{
			name: "set elements: D's order, new after their predecessor",
			o:    deployHead + "  finalizers:\n  - a\n  - b\n",
			u:    deployHead + "  finalizers:\n  - a\n  - n\n  - b\n",
			d:    deployHead + "  finalizers:\n  - b\n  - a\n",
			want: deployHead + "  finalizers:\n  - b\n  - a\n  - n\n", text: true,
		},
		{
			name: "map fields: D's order, new fields after their predecessor in U, first where U has them first",
			o:    "a: 1\nb: 1\n", u: "n0: 0\na: 1\nn1: 1\nb: 1\n", d: "b: 1\na: 1\n",
			want: "n0: 0\nb: 1\na: 1\nn1: 1\n", text: true,
		},
	} {
		t.Run(c.name, c.run)
	}
}

const kustHead = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"

// Under a host that copies comments by position (kpt, kustomize), elements new upstream
// go as late as updated's order allows, so dest's elements keep their positions.
func TestThreeWayElementOrderUnderPositionalHost(t *testing.T) {
	opts := kubeOpts(vocab.UpdatedWins)
	opts.PositionalHost = true
	for _, c := range []struct{ name, o, u, d, want string }{
		{"before the nearest successor dest has",
			widgetHead + "l:\n- name: a\n- name: b\n", widgetHead + "l:\n- name: a\n- name: n\n- name: b\n",
			widgetHead + "l:\n- name: a\n- name: x\n- name: b\n", widgetHead + "l:\n- name: a\n- name: x\n- name: n\n- name: b\n"},
		{"at the end without a successor, in updated's order",
			widgetHead + "l:\n- name: a\n", widgetHead + "l:\n- name: a\n- name: n1\n- name: n2\n",
			widgetHead + "l:\n- name: a\n- name: x\n", widgetHead + "l:\n- name: a\n- name: x\n- name: n1\n- name: n2\n"},
		{"sets alike (a kustomization's resources)",
			kustHead + "resources: [a, b]\n", kustHead + "resources: [a, n, b]\n",
			kustHead + "resources: [a, x, b]\n", kustHead + "resources: [a, x, n, b]\n"},
		{"lists keyed by the built-in schema alike (the host pairs them by position first)",
			deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: a\n",
			deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: a\n      - name: n\n",
			deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: a\n      - name: x\n",
			deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: a\n      - name: x\n      - name: n\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res3, err := merge.ThreeWay(parse(t, c.o), parse(t, c.u), parse(t, c.d), opts)
			got := res3.Value
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, got, c.want, false)
		})
	}
}

func TestThreeWayComments(t *testing.T) {
	for _, c := range []rule3{
		{
			name: "D's comments kept on fields upstream did not change",
			o:    "a: 1\nb: 1\n", u: "a: 1 # upstream\nb: 2\n", d: "# about a\na: 1 # mine\nb: 1\n",
			want: "# about a\na: 1 # mine\nb: 2\n", text: true,
		},
		{
			name: "U's comments come with U's value unless D changed them; new fields bring theirs",
			o:    "a: 1\nb: 1 # b\n", u: "a: 2 # new value\nb: 2 # new b\n# a new field\nc: 3 # three\n", d: "# D head\na: 1 # mine\nb: 1 # b\n",
			want: "# D head\na: 2 # mine\nb: 2 # new b\n# a new field\nc: 3 # three\n", text: true,
		},
		{
			name: "a comment upstream added to a value it did not change arrives (kpt setters)",
			o:    "image: nginx:1.7\nreplicas: 1\n", u: "image: nginx:1.7 # kpt-set: ${image}\nreplicas: 1 # kpt-set: ${replicas}\n", d: "image: mirror/nginx:1.7\nreplicas: 3\n",
			want: "image: mirror/nginx:1.7 # kpt-set: ${image}\nreplicas: 3 # kpt-set: ${replicas}\n", text: true,
		},
		{
			name: "comments upstream changed and removed arrive on keys, values and list elements; D's own changes stay",
			o:    "kind: K\n# about m\nm: # m line\n  x: 1 # x\n  y: 1 # y\nargs:\n- a\n- b\n",
			u:    "kind: K\n# about m, updated\nm:\n  x: 1\n  y: 1 # y2\nargs:\n- a\n- b # b\n",
			d:    "kind: K\n# about m\nm: # m line\n  x: 1 # mine\n  y: 1 # y\n  z: 0\nargs:\n- b\n- a\n",
			want: "kind: K\n# about m, updated\nm:\n  x: 1 # mine\n  y: 1 # y2\n  z: 0\nargs:\n- b # b\n- a\n", text: true,
		},
		{
			name: "the comment before an item's first field is the file's (a header, a comment between documents): dest's, never merged",
			o:    "# Copyright 2021\napiVersion: v1\nkind: K\nx: 1\n", u: "# Copyright 2023\n# Licensed\napiVersion: v1\nkind: K\nx: 2\n", d: "apiVersion: v1\nkind: K\nx: 1\n",
			want: "apiVersion: v1\nkind: K\nx: 2\n", text: true,
		},
		{
			name: "the file's comment stays first when a new field goes first",
			o:    "b: 1\n", u: "a: 0\nb: 2\n", d: "# header\nb: 1\n",
			want: "# header\na: 0\nb: 2\n", text: true,
		},
		{
			name: "a field's line comment is one slot whether the parser put it on the key (empty value) or the value",
			o:    "kind: K\nparts:\nextra: 1\n", u: "kind: K\nparts: # u note\nextra: 1\n", d: "kind: K\nparts: a # d note\nextra: 1\n",
			want: "kind: K\nparts: a # d note\nextra: 1\n", text: true,
		},
		{
			name: "a field's line comment upstream added to an empty value arrives on dest's value",
			o:    "kind: K\nparts:\nextra: 1\n", u: "kind: K\nparts: # u note\nextra: 1\n", d: "kind: K\nparts: a\nextra: 1\n",
			want: "kind: K\nparts: a # u note\nextra: 1\n", text: true,
		},
		{
			name: "a comment on an element upstream inserted never moves onto another element",
			o:    "args:\n- a # on a\n- b\n", u: "args:\n- first # new\n- a # on a\n- b\n", d: "args:\n- a # on a, mine\n- b\n",
			want: "args:\n- first # new\n- a # on a, mine\n- b\n", text: true,
		},
		{
			name: "comments on keyed elements: D's kept, a comment upstream removed goes, U's new element brings its own",
			o:    widgetHead + "items:\n- name: a # first\n", u: widgetHead + "items:\n- name: a\n# the second\n- name: b\n", d: widgetHead + "items:\n# mine\n- name: a # first\n",
			want: widgetHead + "items:\n# mine\n- name: a\n# the second\n- name: b\n", text: true,
		},
	} {
		t.Run(c.name, c.run)
	}
}

func TestThreeWayObjectMetaOfCustomKinds(t *testing.T) {
	for _, c := range []rule3{
		{
			name: "metadata.finalizers of a custom kind is a set",
			o:    "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  finalizers: [a, b]\n",
			u:    "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  finalizers: [a, c]\n",
			d:    "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  finalizers: [a, b, d]\n",
			want: "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  finalizers: [a, c, d]\n", text: true,
		},
		{
			name: "metadata.ownerReferences of a custom kind is keyed by uid (two owners share a name)",
			o:    "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  ownerReferences:\n  - {name: p, uid: u1, kind: A}\n  - {name: p, uid: u2, kind: A}\n",
			u:    "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  ownerReferences:\n  - {name: p, uid: u1, kind: A}\n  - {name: p, uid: u2, kind: B}\n",
			d:    "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  ownerReferences:\n  - {name: p, uid: u1, kind: A, controller: true}\n  - {name: p, uid: u2, kind: A}\n",
			want: "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  ownerReferences:\n  - {name: p, uid: u1, kind: A, controller: true}\n  - {name: p, uid: u2, kind: B}\n", text: true,
		},
		{
			name: "labels and annotations of a custom kind are maps",
			o:    "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  labels: {a: \"1\"}\n",
			u:    "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  labels: {a: \"1\", b: \"2\"}\n",
			d:    "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  labels: {a: \"1\", c: \"3\"}\n",
			want: "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  labels: {a: \"1\", b: \"2\", c: \"3\"}\n", text: true,
		},
	} {
		t.Run(c.name, c.run)
	}
}

func TestThreeWayListDecisions(t *testing.T) {
	const crd = "apiVersion: apiextensions.example.com/v1\nkind: Printer\nmetadata:\n  name: p\n"
	const pod = deployHead + "spec:\n  template:\n    spec:\n      containers:\n      - name: app\n"
	for _, c := range []rule3{
		{
			name: "inline fieldmeta comment makes a list keyed by its own key",
			o:    widgetHead + "rules: # {\"type\":\"array\",\"x-kubernetes-patch-strategy\":\"merge\",\"x-kubernetes-patch-merge-key\":\"id\"}\n- {id: a, v: 1}\n- {id: b, v: 1}\n",
			u:    widgetHead + "rules: # {\"type\":\"array\",\"x-kubernetes-patch-strategy\":\"merge\",\"x-kubernetes-patch-merge-key\":\"id\"}\n- {id: a, v: 2}\n- {id: b, v: 1}\n",
			d:    widgetHead + "rules: # {\"type\":\"array\",\"x-kubernetes-patch-strategy\":\"merge\",\"x-kubernetes-patch-merge-key\":\"id\"}\n- {id: a, v: 1}\n- {id: b, v: 1}\n- {id: mine, v: 9}\n",
			want: widgetHead + "rules: # {\"type\":\"array\",\"x-kubernetes-patch-strategy\":\"merge\",\"x-kubernetes-patch-merge-key\":\"id\"}\n- {id: a, v: 2}\n- {id: b, v: 1}\n- {id: mine, v: 9}\n", text: true,
		},
		{
			name:      "inline fieldmeta comment overrides the schema: containers made atomic",
			o:         deployHead + "spec:\n  template:\n    spec:\n      containers: # {\"type\":\"array\"}\n      - name: a\n",
			u:         deployHead + "spec:\n  template:\n    spec:\n      containers: # {\"type\":\"array\"}\n      - name: a\n        image: x\n",
			d:         deployHead + "spec:\n  template:\n    spec:\n      containers: # {\"type\":\"array\"}\n      - name: a\n      - name: mine\n",
			want:      deployHead + "spec:\n  template:\n    spec:\n      containers: # {\"type\":\"array\"}\n      - name: a\n        image: x\n",
			conflicts: []conflictWant{{"spec.template.spec.containers", vocab.BothChanged, "updated"}},
		},
		{
			name:      "schema: tolerations has no strategy, so it is atomic although elements carry no key",
			o:         deployHead + "spec:\n  template:\n    spec:\n      tolerations:\n      - {key: a, effect: NoSchedule}\n",
			u:         deployHead + "spec:\n  template:\n    spec:\n      tolerations:\n      - {key: a, effect: NoExecute}\n",
			d:         deployHead + "spec:\n  template:\n    spec:\n      tolerations:\n      - {key: a, effect: NoSchedule}\n      - {key: mine}\n",
			want:      deployHead + "spec:\n  template:\n    spec:\n      tolerations:\n      - {key: a, effect: NoExecute}\n",
			conflicts: []conflictWant{{"spec.template.spec.tolerations", vocab.BothChanged, "updated"}},
		},
		{
			name:      "schema: a list without strategy is atomic even when elements carry a associative key (volumeClaimTemplates)",
			o:         "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: s\nspec:\n  volumeClaimTemplates:\n  - metadata: {name: a}\n    spec: {x: 1}\n",
			u:         "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: s\nspec:\n  volumeClaimTemplates:\n  - metadata: {name: a}\n    spec: {x: 2}\n",
			d:         "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: s\nspec:\n  volumeClaimTemplates:\n  - metadata: {name: a}\n    spec: {x: 1}\n  - metadata: {name: mine}\n",
			want:      "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: s\nspec:\n  volumeClaimTemplates:\n  - metadata: {name: a}\n    spec: {x: 2}\n",
			conflicts: []conflictWant{{"spec.volumeClaimTemplates", vocab.BothChanged, "updated"}},
		},
		{
			name: "schema: list-map-keys over patch-merge-key (ports keyed by containerPort and protocol)",
			o:    pod + "        ports:\n        - {containerPort: 53, protocol: TCP, name: dns-tcp}\n        - {containerPort: 53, protocol: UDP, name: dns}\n",
			u:    pod + "        ports:\n        - {containerPort: 53, protocol: TCP, name: dns-tcp}\n        - {containerPort: 53, protocol: UDP, name: dns-udp}\n",
			d:    pod + "        ports:\n        - {containerPort: 53, protocol: TCP, name: mine}\n        - {containerPort: 53, protocol: UDP, name: dns}\n",
			want: pod + "        ports:\n        - {containerPort: 53, protocol: TCP, name: mine}\n        - {containerPort: 53, protocol: UDP, name: dns-udp}\n", text: true,
		},
		{
			name: "wildcard secondary key: a port without protocol pairs with protocol TCP",
			o:    pod + "        ports:\n        - {containerPort: 80, protocol: TCP, name: http}\n",
			u:    pod + "        ports:\n        - {containerPort: 80, protocol: TCP, name: web}\n",
			d:    pod + "        ports:\n        - {containerPort: 80, name: http}\n",
			want: pod + "        ports:\n        - {containerPort: 80, name: web}\n", text: true,
		},
		{
			name: "wildcard: decided once for all sources (a locally deleted port without protocol stays deleted)",
			o:    "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports:\n  - {name: a, port: 80, protocol: UDP}\n  - {name: b, port: 81}\n",
			u:    "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports:\n  - {name: a, port: 81, protocol: UDP}\n  - {name: b, port: 81}\n",
			d:    "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports: []\n",
			want: "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports:\n  - {name: a, port: 81, protocol: UDP}\n",
		},
		{
			name: "heuristic uniqueness: additionalPrinterColumns keyed by name, type repeating",
			o:    crd + "columns:\n- {name: Ready, type: string, jsonPath: .a}\n- {name: Age, type: date, jsonPath: .b}\n- {name: Status, type: string, jsonPath: .c}\n",
			u:    crd + "columns:\n- {name: Ready, type: string, jsonPath: .a2}\n- {name: Age, type: date, jsonPath: .b}\n- {name: Status, type: string, jsonPath: .c}\n",
			d:    crd + "columns:\n- {name: Ready, type: string, jsonPath: .a}\n- {name: Age, type: date, jsonPath: .b}\n- {name: Status, type: string, jsonPath: .c}\n- {name: Mine, type: string, jsonPath: .m}\n",
			want: crd + "columns:\n- {name: Ready, type: string, jsonPath: .a2}\n- {name: Age, type: date, jsonPath: .b}\n- {name: Status, type: string, jsonPath: .c}\n- {name: Mine, type: string, jsonPath: .m}\n", text: true,
		},
		{
			name: "heuristic: the associative keys' order decides when both keys are unique (type before name)",
			o:    crd + "columns:\n- {name: A, type: x, v: 1}\n- {name: B, type: y, v: 1}\n",
			u:    crd + "columns:\n- {name: A2, type: x, v: 1}\n- {name: B, type: y, v: 1}\n",
			d:    crd + "columns:\n- {name: A, type: x, v: 1}\n- {name: B, type: y, v: 2}\n",
			want: crd + "columns:\n- {name: A2, type: x, v: 1}\n- {name: B, type: y, v: 2}\n", text: true,
		},
		{
			name:      "heuristic: no key qualifies (an element lacks it) is atomic, never an error",
			o:         widgetHead + "items:\n- {name: a, v: 1}\n",
			u:         widgetHead + "items:\n- {name: a, v: 2}\n",
			d:         widgetHead + "items:\n- {name: a, v: 1}\n- {v: keyless}\n",
			want:      widgetHead + "items:\n- {name: a, v: 2}\n",
			text:      true,
			conflicts: []conflictWant{{"items", vocab.BothChanged, "updated"}},
		},
		{
			name:      "duplicate merge keys make a list atomic (nothing lost by pairing)",
			o:         pod + "        env:\n        - {name: A, value: \"1\"}\n",
			u:         pod + "        env:\n        - {name: A, value: \"2\"}\n",
			d:         pod + "        env:\n        - {name: A, value: \"1\"}\n        - {name: A, value: dup}\n",
			want:      pod + "        env:\n        - {name: A, value: \"2\"}\n",
			text:      true,
			conflicts: []conflictWant{{"spec.template.spec.containers[name=app].env", vocab.BothChanged, "updated"}},
		},
		{
			name: "configured keys: another heuristic key list",
			o:    widgetHead + "items:\n- {id: a, v: 1}\n",
			u:    widgetHead + "items:\n- {id: a, v: 2}\n",
			d:    widgetHead + "items:\n- {id: a, v: 1}\n- {id: b, v: 1}\n",
			want: widgetHead + "items:\n- {id: a, v: 2}\n- {id: b, v: 1}\n",
		},
	} {
		c := c
		if strings.HasPrefix(c.name, "configured keys") {
			t.Run(c.name, func(t *testing.T) {
				res3, err := merge.ThreeWay(parse(t, c.o), parse(t, c.u), parse(t, c.d), merge.Options{Lists: schema.New(schema.Options{OpenAPI: true, AssociativeKeys: []string{"id"}})})
				got := res3.Value
				if err != nil {
					t.Fatal(err)
				}
				checkOutput(t, got, c.want, false)
				// with the associative keys only, the list is atomic: dest's element is lost
				res3, _ = merge.ThreeWay(parse(t, c.o), parse(t, c.u), parse(t, c.d), kubeOpts(vocab.UpdatedWins))
				got = res3.Value
				checkOutput(t, got, c.u, false)
			})
			continue
		}
		t.Run(c.name, c.run)
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
	o := deployHead + "spec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: app\n        image: a:1\n"
	for _, u := range []string{o, strings.Replace(o, "replicas: 1", "replicas:   !!int 1", 1)} {
		res3, err := merge.ThreeWay(parse(t, o), parse(t, u), parse(t, d), kubeOpts(vocab.UpdatedWins))
		got, cs := res3.Value, res3.Conflicts
		if err != nil || len(cs) > 0 {
			t.Fatalf("err %v conflicts %v", err, cs)
		}
		if got.MustString() != parse(t, d).MustString() {
			t.Fatalf("got:\n%s\nwant dest:\n%s", got.MustString(), parse(t, d).MustString())
		}
	}
}

func TestThreeWayDoesNotMutateInputs(t *testing.T) {
	o := parse(t, deployHead+"spec:\n  template:\n    spec:\n      containers:\n      - name: a\n        image: x\n      - name: b\n")
	u := parse(t, deployHead+"spec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n      - name: n\n      - name: a\n        image: y\n")
	d := parse(t, deployHead+"spec:\n  template:\n    spec:\n      containers:\n      - name: b\n      - name: a\n        image: z\n")
	before := [3]string{o.MustString(), u.MustString(), d.MustString()}
	res3, err := merge.ThreeWay(o, u, d, kubeOpts(vocab.UpdatedWins))
	out := res3.Value
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
	o := deployHead + `spec:
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
	u := deployHead + `spec:
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
	d := deployHead + `spec:
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
	want := deployHead + `spec:
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
	res3, err := merge.ThreeWay(parse(t, o), parse(t, u), parse(t, d), kubeOpts(vocab.UpdatedWins))
	got, cs := res3.Value, res3.Conflicts
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
	o := widgetHead + "spec:\n  ports:\n  - {number: 1, proto: a, v: 1}\n  - {number: 1, proto: b, v: 1}\n  steps:\n  - {name: s, run: x}\n  stages:\n  - {name: s, run: x}\n"
	u := widgetHead + "spec:\n  ports:\n  - {number: 1, proto: a, v: 1}\n  - {number: 1, proto: b, v: 2}\n  steps:\n  - {name: s, run: y}\n  stages:\n  - {name: s, run: y}\n"
	d := widgetHead + "spec:\n  ports:\n  - {number: 1, proto: a, v: 9}\n  - {number: 1, proto: b, v: 1}\n  steps:\n  - {name: s, run: x}\n  - {name: mine, run: z}\n  stages:\n  - {name: s, run: x}\n  - {name: mine, run: z}\n"
	want := widgetHead + "spec:\n  ports:\n  - {number: 1, proto: a, v: 9}\n  - {number: 1, proto: b, v: 2}\n  steps:\n  - {name: s, run: y}\n  - {name: mine, run: z}\n  stages:\n  - {name: s, run: y}\n"
	lists := schema.New(schema.Options{OpenAPI: true}).WithCRDs([]*yaml.RNode{crd})
	res3, err := merge.ThreeWay(parse(t, o), parse(t, u), parse(t, d), merge.Options{Lists: lists})
	got, cs := res3.Value, res3.Conflicts
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, got, want, true)
	checkConflicts(t, cs, []conflictWant{{"spec.stages", vocab.BothChanged, "updated"}})
}
