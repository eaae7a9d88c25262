package yamlenc

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// readableAlphabet is what generated values are made of: tabs, CR and CRLF, spaces
// (so trailing spaces and space-before-break), breaks (leading and trailing empty
// lines), YAML's other line breaks, control characters, a BOM, non-BMP characters,
// indicators and quotes.
var readableAlphabet = []string{"a", "b", " ", "  ", "\t", "\n", "\n\n", "\r", "\r\n", "\u0085", "\u2028",
	"\u2029", "\x01", "\x1b", "\x7f", "\ufeff", "\u00a0", "🎉", "𝔘", "#", ": ", "- ", "'", "\"", "|", ">", "---"}

// genValue returns a value of up to n pieces of readableAlphabet, now and then a very
// long line.
func genValue(r *rand.Rand, n int) string {
	var b strings.Builder
	k := r.Intn(n + 1)
	for range k {
		b.WriteString(readableAlphabet[r.Intn(len(readableAlphabet))])
	}
	if r.Intn(50) == 0 {
		b.WriteString(strings.Repeat("x y", 4000))
	}
	return b.String()
}

// readBack decodes out (the lines of `items:` as AppendItem and kyaml's writer give
// them) and returns the items.
func readBack(out []byte) ([]*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(append([]byte("items:\n"), out...), &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) != 1 || len(doc.Content[0].Content) != 2 {
		return nil, fmt.Errorf("not a list of items")
	}
	return doc.Content[0].Content[1].Content, nil
}

// scalarsOf lists n's scalars in document order.
func scalarsOf(n *yaml.Node) []string {
	var out []string
	walk(n, 0, func(c *yaml.Node, _ int) {
		if c.Kind == yaml.ScalarNode {
			out = append(out, c.Value)
		}
	})
	return out
}

// TestWrittenValuesReadBack: generated values in every scalar style and every context
// (key, value, nested, in sequences), after MakeReadable, are written by yaml.v3 (and
// by AppendItem where it accepts, the same bytes) as text that reads back as the same
// values; MakeReadable changes only what Unreadable finds, and without it the block
// styles of a value starting with a tab do not read back (what MakeReadable is for).
func TestWrittenValuesReadBack(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	cases, fixed, unreadableBefore := 0, 0, 0
	blockStyles := []yaml.Style{0, yaml.LiteralStyle, yaml.FoldedStyle, yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle}
	for i := range 600 {
		v := genValue(r, 8)
		if i < 40 {
			v = "\t" + v // the reported shape, always among the cases
		}
		if i == 0 {
			v = "\tt\n1\n2\n3\n"
		}
		for _, st := range blockStyles {
			for _, ctx := range scalarContexts {
				s := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Style: st}
				item := ctx.item(s)
				want := scalarsOf(item)
				before, err := oracle(clone(item))
				if err == nil {
					if items, err := readBack(before); err != nil || len(items) != 1 || !equalStrings(scalarsOf(items[0]), want) {
						unreadableBefore++
						if !NeedsReadable(item) {
							t.Fatalf("%s, style %d, value %q: yaml.v3 does not read back what it wrote, but NeedsReadable says nothing (%v)", ctx.name, st, v, err)
						}
					}
				}
				if MakeReadable(item) {
					fixed++
				}
				if NeedsReadable(item) {
					t.Fatalf("%s, style %d, value %q: still needs a fix after MakeReadable", ctx.name, st, v)
				}
				out, err := oracle(item)
				if err != nil {
					t.Fatalf("%s, style %d, value %q: yaml.v3: %v", ctx.name, st, v, err)
				}
				check(t, fmt.Sprintf("%s, style %d, value %q", ctx.name, st, v), item)
				items, err := readBack(out)
				if err != nil {
					t.Fatalf("%s, style %d, value %q: written as text yaml.v3 does not read: %v\n%s", ctx.name, st, v, err, out)
				}
				if len(items) != 1 || !equalStrings(scalarsOf(items[0]), want) {
					t.Fatalf("%s, style %d, value %q: read back as other values:\n%s", ctx.name, st, v, out)
				}
				cases++
			}
		}
	}
	if unreadableBefore == 0 {
		t.Fatal("no generated value was unreadable without MakeReadable: the generator misses the case")
	}
	t.Logf("%d cases read back; %d needed a style change (%d unreadable without it)", cases, fixed, unreadableBefore)
}

// TestUnreadableString: Go strings, marshalled as results' values are, read back
// unless UnreadableString says so (it may say so of a value the emitter quotes anyway:
// quoting it is then harmless).
func TestUnreadableString(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	for i := range 20000 {
		v := genValue(r, 6)
		if i%10 == 0 {
			v = "\t" + v
		}
		b, err := yaml.Marshal(map[string]interface{}{"v": v})
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]interface{}
		err = yaml.Unmarshal(b, &got)
		reads := err == nil && got["v"] == v
		if !reads && !UnreadableString(v) {
			t.Fatalf("value %q: reads back %v, UnreadableString %v (%v)\n%s", v, reads, UnreadableString(v), err, b)
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
