package merge_test

import (
	"math/rand/v2"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/merge"
)

// TestTwoWaySameTreeShortcut: merging a tree into an equal copy of itself gives, byte
// for byte, what the full merge walk gives, on the differential generator's resources
// and patches (nulls, directives, sparse patches, keyed lists with partial keys) and on
// hand-made trees where merging a tree with itself changes it (repeated keys, repeated
// merge keys, nulls, directives); and the shortcut fires on the plain ones.
func TestTwoWaySameTreeShortcut(t *testing.T) {
	g := &gen{r: rand.New(rand.NewPCG(diffSeed, 7))}
	var trees []*yaml.Node
	for i := 0; i < 400; i++ {
		s, d := g.case2()
		trees = append(trees, s, d)
	}
	for _, src := range []string{
		"a: 1\na: 2\n",
		"l:\n- name: x\n  v: 1\n- name: x\n  v: 2\n",
		"spec:\n  containers:\n  - name: c\n    image: a\n  - name: c\n    image: b\n",
		"spec:\n  containers:\n  - name: c\n    ports:\n    - containerPort: 80\n    - containerPort: 80\n      protocol: TCP\n",
		"a: null\nb: 1\n",
		"a:\n  $patch: replace\n  b: 1\n",
		"l:\n- $patch: replace\n- a\n",
		"finalizers: [a, a, b]\n",
		"a: {}\nb: []\nc: ''\n",
		"a: &x 1\nb: *x\n",
	} {
		trees = append(trees, yaml.MustParse(src).YNode())
	}
	opts := merge.Options{Lists: resolver}
	shared := merge.Options{Lists: resolver, Share: true}
	fired := 0
	for i, x := range trees {
		src, dest := yaml.NewRNode(yaml.CopyYNode(x)), yaml.NewRNode(x)
		res2, gerr := merge.TwoWay(src, dest, shared)
		got := res2.Value
		want, werr := merge.TwoWayFull(yaml.NewRNode(yaml.CopyYNode(x)), yaml.NewRNode(yaml.CopyYNode(x)), opts)
		if (gerr == nil) != (werr == nil) {
			t.Fatalf("tree %d: errors differ: %v vs %v", i, gerr, werr)
		}
		if gerr != nil {
			continue
		}
		if got.MustString() != want.MustString() {
			t.Errorf("tree %d: shortcut %q, full merge %q", i, got.MustString(), want.MustString())
		}
		if got.YNode() == x {
			fired++
		}
	}
	if fired < len(trees)/4 {
		t.Errorf("the shortcut fired on %d of %d trees", fired, len(trees))
	}
	t.Logf("shortcut fired on %d of %d trees", fired, len(trees))
}
