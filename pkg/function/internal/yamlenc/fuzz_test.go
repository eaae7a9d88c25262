package yamlenc

import (
	"strconv"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

// FuzzAppendItem: YAML decoded by yaml.v3; its root and the mappings and sequences in
// it, as decoded and in variants (comments dropped; scalar styles and explicit tags'
// TaggedStyle cleared, so that the tags decide the quoting; scalar styles cycled), and
// its first scalars' values under each style in each of scalarContexts, are declined
// by AppendItem or written as yaml.v3 writes them. resolve agrees with the decoder's
// tags of plain scalars.
func FuzzAppendItem(f *testing.F) {
	testsupport.SetupFuzz(f)
	for _, v := range tricky {
		f.Add("k: " + strconv.Quote(v) + "\n" + strconv.Quote(v) + ": v\nl:\n- " + strconv.Quote(v) + "\n")
		f.Add("- " + strconv.Quote(v) + "\n- - " + strconv.Quote(v) + "\n")
	}
	f.Add("a: |\n  x\n  y\nb: |-\n  z\nc: |+\n  w\n\nd: |2\n   lead\n")
	f.Add("a: 'it''s'\nb: \"\\t\\u2028\"\nc: [a, b]\nd: {}\ne: []\nf: !!str 80\ng: !!int 80\n")
	f.Add("# head\na: b # line\n# foot\n")
	f.Add("a: &x 1\nb: *x\n? [a]\n: b\n")
	f.Add("a:\n- []\n- {}\n- - - x\n  - ''\n-\n- k: {}\n  l: []\n  m:\n  - |+\n    x\n\n")
	// The repository's YAML documents: e2e case packages, examples, functionConfig
	// examples.
	for _, d := range testsupport.SeedDocs(f) {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, in string) {
		defer testsupport.Guard(t, in)()
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(in), &doc); err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
			return
		}
		root := doc.Content[0]
		walk(root, 0, func(n *yaml.Node, _ int) {
			// The decoder tags a plain scalar with yaml.v3's resolve.
			if n.Kind == yaml.ScalarNode && n.Style == 0 && n.Value != "<<" {
				if got := resolve(n.Value); got != n.Tag {
					t.Fatalf("resolve(%q) = %s, the decoder says %s", n.Value, got, n.Tag)
				}
			}
		})
		checkNested(t, "as decoded", root)
		stripped := clone(root)
		walk(stripped, 0, func(n *yaml.Node, _ int) { n.HeadComment, n.LineComment, n.FootComment = "", "", "" })
		checkNested(t, "comments dropped", stripped)
		cleared := clone(stripped)
		walk(cleared, 0, func(n *yaml.Node, _ int) {
			// Explicit tags (TaggedStyle) too: the encoder's tag logic decides.
			if n.Kind == yaml.ScalarNode {
				n.Style = 0
			} else {
				n.Style &^= yaml.TaggedStyle
			}
		})
		checkNested(t, "styles cleared", cleared)
		cycled := clone(stripped)
		i := 0
		walk(cycled, 0, func(n *yaml.Node, _ int) {
			if n.Kind == yaml.ScalarNode {
				n.Style = styles[i%4]
				i++
			}
		})
		checkNested(t, "styles cycled", cycled)
		// The first scalars' values in every style and context.
		var values []string
		walk(root, 0, func(n *yaml.Node, _ int) {
			if n.Kind == yaml.ScalarNode && len(values) < 3 {
				values = append(values, n.Value)
			}
		})
		for _, v := range values {
			for _, style := range styles[:4] {
				for _, c := range scalarContexts {
					check(t, c.name, c.item(&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: style, Value: v}))
				}
			}
		}
	})
}

// checkNested checks root and up to 20 mappings and sequences in it as items.
func checkNested(t *testing.T, what string, root *yaml.Node) {
	t.Helper()
	k := 0
	walk(root, 0, func(n *yaml.Node, depth int) {
		if k > 20 || depth > 0 && n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode {
			return
		}
		k++
		check(t, what, n)
	})
}
