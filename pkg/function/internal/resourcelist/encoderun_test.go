package resourcelist

import (
	"bytes"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/bench/gen"
)

// TestEncodeRunMatchesV3: a run written item by item (yamlenc for the items it takes,
// yaml.v3 for the rest) is byte for byte the run yaml.v3 writes as one list, for every
// mix of plain items and items with comments in each place, foot comments included.
func TestEncodeRunMatchesV3(t *testing.T) {
	plain := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\ndata:\n  k: v\n"
	commented := []string{
		"# head\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: h\n",
		"apiVersion: v1 # line\nkind: ConfigMap\nmetadata:\n  name: l\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f\ndata:\n  k: v\n  # foot of k\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f2\ndata:\n  k: v\n\n# foot of the item\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\nlist:\n- a\n- b\n# foot of the list\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flow\nargs: [a, b]\n",
	}
	parse := func(s string) *yaml.RNode { return yaml.MustParse(s) }
	var runs [][]*yaml.RNode
	for _, c := range commented {
		for _, shape := range [][]bool{{true}, {true, false}, {false, true}, {false, true, false}, {true, true, false}, {false, true, true}} {
			var run []*yaml.RNode
			for _, isCommented := range shape {
				if isCommented {
					run = append(run, parse(c))
				} else {
					run = append(run, parse(plain))
				}
			}
			runs = append(runs, run)
		}
	}
	// Foot comments set on nodes directly, at the item's root and deep inside it.
	for _, set := range []func(n *yaml.Node){
		func(n *yaml.Node) { n.FootComment = "# root foot" },
		func(n *yaml.Node) { n.Content[len(n.Content)-1].FootComment = "# last value foot" },
		func(n *yaml.Node) { n.Content[len(n.Content)-2].FootComment = "# last key foot" },
	} {
		a := parse(plain)
		set(a.YNode())
		runs = append(runs, []*yaml.RNode{a, parse(plain)}, []*yaml.RNode{parse(plain), a, parse(plain)})
	}
	// A generated list: every item is taken by yamlenc.
	var b bytes.Buffer
	if _, err := gen.ResourceList(&b, gen.Options{Resources: 40, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	items, err := (&kio.ByteReader{Reader: &b, OmitReaderAnnotations: true}).Read()
	if err != nil {
		t.Fatal(err)
	}
	runs = append(runs, items)

	for i, run := range runs {
		var got, want bytes.Buffer
		if err := encodeRun(&got, run, 0, nil, false); err != nil {
			t.Fatal(err)
		}
		if err := encodeV3(&want, run); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("run %d: encodeRun differs from yaml.v3:\n--- yaml.v3\n%s--- encodeRun\n%s", i, want.String(), got.String())
		}
	}
}
