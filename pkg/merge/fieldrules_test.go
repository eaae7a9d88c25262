package merge_test

import (
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/fieldrules"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// rules parses "path=policy, ..." (the annotation syntax) for a test.
func rules(t *testing.T, s string) []fieldrules.PathRule {
	t.Helper()
	rs, err := fieldrules.ParseAnnotation(s, "test")
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// fieldRuleCase is one resource merged, then its field rules applied.
type fieldRuleCase struct {
	name      string
	rules     string
	o, u, d   string // o unused in 2-way
	want      string
	conflicts []conflictWant // left after the rules
	effects   []string       // "path policy" of each effect, in order
	twoWay    bool
}

func (c fieldRuleCase) run(t *testing.T) {
	t.Helper()
	o, u, d := parse(t, c.o), parse(t, c.u), parse(t, c.d)
	before := [3]string{o.MustString(), u.MustString(), d.MustString()}
	opts := kubeOpts(vocab.Updated)
	opts.FieldRules, opts.Share = rules(t, c.rules), true
	var res merge.Result
	var err error
	if c.twoWay {
		res, err = merge.TwoWay(u, d, opts)
	} else {
		res, err = merge.ThreeWay(o, u, d, opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	if after := [3]string{o.MustString(), u.MustString(), d.MustString()}; after != before {
		t.Fatal("the merge with field rules changed its inputs in place")
	}
	got, kept, effects := res.Value, res.Conflicts, res.RuleEffects
	checkOutput(t, got, c.want, false)
	checkConflicts(t, kept, c.conflicts)
	var es []string
	for _, e := range effects {
		es = append(es, e.Rule.Path.String()+" "+string(e.Rule.Policy))
	}
	if strings.Join(es, "; ") != strings.Join(c.effects, "; ") {
		t.Errorf("effects %q, want %q", es, c.effects)
	}
}

const hpaO = deployHead + "spec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: app\n        image: app:1\n        resources: {limits: {cpu: 1}}\n      - name: side\n        image: side:1\n"

// TestThreeWayFieldRules: each policy in the 3-way merge.
func TestThreeWayFieldRules(t *testing.T) {
	for _, c := range []fieldRuleCase{
		{
			name:  "keepDest: an HPA owns spec.replicas; the conflict is decided, not reported",
			rules: "spec.replicas=keepDest",
			o:     hpaO, u: strings.Replace(hpaO, "replicas: 1", "replicas: 2", 1), d: strings.Replace(hpaO, "replicas: 1", "replicas: 5", 1),
			want:    strings.Replace(hpaO, "replicas: 1", "replicas: 5", 1),
			effects: []string{"spec.replicas keepDest"},
		},
		{
			name:  "keepDest keeps dest's absence",
			rules: "spec.replicas=keepDest",
			o:     hpaO, u: strings.Replace(hpaO, "replicas: 1", "replicas: 2", 1), d: strings.Replace(hpaO, "  replicas: 1\n", "", 1),
			want:    strings.Replace(hpaO, "  replicas: 1\n", "", 1),
			effects: []string{"spec.replicas keepDest"},
		},
		{
			name:  "keepDest where upstream did not touch the field: nothing to do",
			rules: "spec.replicas=keepDest",
			o:     hpaO, u: hpaO, d: strings.Replace(hpaO, "replicas: 1", "replicas: 5", 1),
			want: strings.Replace(hpaO, "replicas: 1", "replicas: 5", 1),
		},
		{
			name:  "takeUpdated: updated's value even over a local change upstream did not make",
			rules: "spec.template.spec.containers[name=app].resources=takeUpdated",
			o:     hpaO, u: hpaO, d: strings.Replace(hpaO, "cpu: 1", "cpu: 4", 1),
			want:    hpaO,
			effects: []string{"spec.template.spec.containers[name=app].resources takeUpdated"},
		},
		{
			name:  "takeUpdated: an upstream deletion deletes the local value, no conflict",
			rules: "spec.template.spec.containers[name=app].resources=takeUpdated",
			o:     hpaO, u: strings.Replace(hpaO, "        resources: {limits: {cpu: 1}}\n", "", 1), d: strings.Replace(hpaO, "cpu: 1", "cpu: 4", 1),
			want:    strings.Replace(hpaO, "        resources: {limits: {cpu: 1}}\n", "", 1),
			effects: []string{"spec.template.spec.containers[name=app].resources takeUpdated"},
		},
		{
			name:  "ignore: dest kept, conflict dropped, no effect reported",
			rules: "spec.template.spec.containers[name=app].image=ignore",
			o:     hpaO, u: strings.Replace(hpaO, "app:1", "app:2", 1), d: strings.Replace(hpaO, "app:1", "mirror/app:1", 1),
			want: strings.Replace(hpaO, "app:1", "mirror/app:1", 1),
		},
		{
			name:  "ignore on a field dest lacks: upstream's addition does not come in",
			rules: "status=ignore",
			o:     hpaO, u: hpaO + "status: {replicas: 1}\n", d: hpaO,
			want: hpaO,
		},
		{
			name:  "rules elsewhere leave other conflicts reported",
			rules: "spec.replicas=keepDest",
			o:     hpaO, u: strings.Replace(hpaO, "app:1", "app:2", 1), d: strings.Replace(hpaO, "app:1", "mirror/app:1", 1),
			want:      strings.Replace(hpaO, "app:1", "app:2", 1),
			conflicts: []conflictWant{{"spec.template.spec.containers[name=app].image", merge.BothChanged, "updated"}},
		},
		{
			name:  "the more specific rule wins inside its parent's",
			rules: "spec=keepDest, spec.template.spec.containers[name=side].image=takeUpdated",
			o:     hpaO, u: strings.Replace(strings.Replace(hpaO, "side:1", "side:2", 1), "app:1", "app:2", 1), d: strings.Replace(hpaO, "replicas: 1", "replicas: 5", 1),
			want:    strings.Replace(strings.Replace(hpaO, "replicas: 1", "replicas: 5", 1), "side:1", "side:2", 1),
			effects: []string{"spec keepDest", "spec.template.spec.containers[name=side].image takeUpdated"},
		},
		{
			name:  "a keepDest element selector keeps an element upstream deleted",
			rules: "spec.template.spec.containers[name=side]=keepDest",
			o:     hpaO, u: strings.Replace(hpaO, "      - name: side\n        image: side:1\n", "", 1), d: hpaO,
			want:    hpaO,
			effects: []string{"spec.template.spec.containers[name=side] keepDest"},
		},
		{
			name:  "a rule inside a map the merge removed does nothing",
			rules: "spec.template.spec.containers[name=side].image=keepDest",
			o:     hpaO, u: strings.Replace(hpaO, "      - name: side\n        image: side:1\n", "", 1), d: hpaO,
			want: strings.Replace(hpaO, "      - name: side\n        image: side:1\n", "", 1),
		},
		{
			name:  "a set element selector",
			rules: "metadata.finalizers[=x]=keepDest",
			o:     deployHead + "  finalizers: [x]\n", u: deployHead + "  finalizers: [y]\n", d: deployHead + "  finalizers: [x]\n",
			want:    deployHead + "  finalizers: [y, x]\n",
			effects: []string{"metadata.finalizers[=x] keepDest"},
		},
	} {
		t.Run(c.name, c.run)
	}
}

// TestTwoWayFieldRules: the policies in the 2-way merge: src plays updated; takeUpdated
// acts only where src sets the path.
func TestTwoWayFieldRules(t *testing.T) {
	for _, c := range []fieldRuleCase{
		{
			name: "keepDest: src's value does not come in", twoWay: true,
			rules: "spec.replicas=keepDest",
			u:     deployHead + "spec:\n  replicas: 2\n", d: deployHead + "spec:\n  replicas: 5\n  paused: true\n",
			want:    deployHead + "spec:\n  replicas: 5\n  paused: true\n",
			effects: []string{"spec.replicas keepDest"},
		},
		{
			name: "takeUpdated: src's map replaces dest's whole, not merged into it", twoWay: true,
			rules: "spec.selector=takeUpdated",
			u:     deployHead + "spec:\n  selector: {matchLabels: {a: b}}\n", d: deployHead + "spec:\n  selector: {matchLabels: {c: d}}\n",
			want:    deployHead + "spec:\n  selector: {matchLabels: {a: b}}\n",
			effects: []string{"spec.selector takeUpdated"},
		},
		{
			name: "takeUpdated where src does not set the path: dest's value stays", twoWay: true,
			rules: "spec.selector=takeUpdated",
			u:     deployHead + "spec:\n  replicas: 2\n", d: deployHead + "spec:\n  selector: {matchLabels: {c: d}}\n",
			want: deployHead + "spec:\n  selector: {matchLabels: {c: d}}\n  replicas: 2\n",
		},
		{
			name: "ignore: src's null does not clear", twoWay: true,
			rules: "spec.paused=ignore",
			u:     deployHead + "spec:\n  paused: null\n", d: deployHead + "spec:\n  paused: true\n",
			want: deployHead + "spec:\n  paused: true\n",
		},
	} {
		t.Run(c.name, c.run)
	}
}
