package yamlenc

import (
	"bytes"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Unreadable reports whether yaml.v3's encoder (and so AppendItem and kyaml's writer)
// writes the scalar n as text that yaml.v3's parser does not read back as n's value:
//
//   - a block scalar (literal, which the encoder chooses for any value holding "\n"
//     unless the node asks for quotes, or folded) whose value starts with a tab:
//     the emitter writes an indentation indicator only before a leading space or
//     break, and without one the parser, detecting the indentation from the first
//     line, fails with "found a tab character where an indentation space is
//     expected";
//   - a folded scalar that does not read back as its value (the emitter folds lines
//     it should keep: a line starting with a space or tab, a line or paragraph
//     separator, trailing empty lines), found by encoding and decoding it, which
//     only folded scalars pay for.
//
// The other styles always read back (plain falls back to quotes, quotes escape every
// character: pkg/function/internal/yamlenc's readable_test.go checks generated values in every
// style). Input: any node; false for anything but a scalar.
func Unreadable(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.ScalarNode {
		return false
	}
	switch {
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		return false
	case n.Style&yaml.FoldedStyle != 0:
		return strings.HasPrefix(n.Value, "\t") || !foldedReadsBack(n.Value)
	case n.Style&yaml.LiteralStyle != 0:
		return strings.HasPrefix(n.Value, "\t")
	}
	return UnreadableString(n.Value)
}

// UnreadableString reports whether yaml.v3 writes the string s, given as a Go value
// (style chosen by the encoder), as text it does not read back as s: a value holding
// "\n" (written as a literal block) that starts with a tab.
func UnreadableString(s string) bool {
	return strings.HasPrefix(s, "\t") && strings.IndexByte(s, '\n') >= 0
}

// MakeReadable sets every scalar of n that Unreadable finds to double-quoted style
// (which escapes every character and always reads back), in place, and reports
// whether it changed any. Aliases are not followed (their anchors are walked where
// they stand). Depth is bounded by the tree's own (the writer's callers bound it).
func MakeReadable(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	changed := false
	if Unreadable(n) {
		n.Style = n.Style&^(yaml.LiteralStyle|yaml.FoldedStyle|yaml.SingleQuotedStyle) | yaml.DoubleQuotedStyle
		changed = true
	}
	if n.Kind == yaml.AliasNode {
		return changed
	}
	for _, c := range n.Content {
		if MakeReadable(c) {
			changed = true
		}
	}
	return changed
}

// NeedsReadable reports whether MakeReadable would change n, without changing it.
func NeedsReadable(n *yaml.Node) bool {
	if n == nil {
		return false
	}
	if Unreadable(n) {
		return true
	}
	if n.Kind == yaml.AliasNode {
		return false
	}
	for _, c := range n.Content {
		if NeedsReadable(c) {
			return true
		}
	}
	return false
}

// foldedReadsBack encodes v as a folded scalar (a mapping value, as in an item) and
// reports whether yaml.v3 decodes the same value.
func foldedReadsBack(v string) bool {
	doc := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "k"},
		{Kind: yaml.ScalarNode, Value: v, Style: yaml.FoldedStyle},
	}}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	if err := enc.Encode(doc); err != nil {
		return false
	}
	if err := enc.Close(); err != nil {
		return false
	}
	var got yaml.Node
	if err := yaml.Unmarshal(buf.Bytes(), &got); err != nil {
		return false
	}
	if len(got.Content) != 1 || len(got.Content[0].Content) != 2 {
		return false
	}
	return got.Content[0].Content[1].Value == v
}
