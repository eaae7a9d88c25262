package yamlenc

import (
	"bytes"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/bench/gen"
)

// BenchmarkAppendItem writes the items of a generated 3-way list (200 resources,
// 584 items, 1.9 MB) with AppendItem and with kyaml's encoder (yaml.v3),
// as the ResourceList writer encodes a run of items; one op is the whole list.
func BenchmarkAppendItem(b *testing.B) {
	items := genItems(b, gen.Options{Resources: 200, Mode: gen.ThreeWay, Seed: 1})
	want, err := oracle(items...)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("yamlenc", func(b *testing.B) {
		b.SetBytes(int64(len(want)))
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = buf[:0]
			for _, it := range items {
				var ok bool
				if buf, ok = AppendItem(buf, it); !ok {
					b.Fatal("declined")
				}
			}
		}
		if !bytes.Equal(buf, want) {
			b.Fatal("bytes differ from yaml.v3")
		}
	})
	b.Run("yamlv3", func(b *testing.B) {
		b.SetBytes(int64(len(want)))
		b.ReportAllocs()
		var buf bytes.Buffer
		doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Value: "items"}, {Kind: yaml.SequenceNode, Content: items},
		}}}}
		for b.Loop() {
			buf.Reset()
			enc := yaml.NewEncoder(&buf)
			if err := enc.Encode(doc); err != nil {
				b.Fatal(err)
			}
			if err := enc.Close(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
