package function

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/function/internal/yamlenc"
)

// writable returns an output item as a YAML encoder can write it and a parser read it
// back. Some shapes, made by a merge or held by an input, are written by yaml.v3 as
// text no parser reads:
//
//   - an alias whose anchor is gone: a merge can replace the node that carried an
//     anchor (updated changes dest's `a: &a [...]` while dest's `b: *a` stays), which
//     would write `*a` with no `&a` (found by the alias-bomb bound test). Each
//     such dangling alias becomes a copy of the node it stood for, anchor included, so
//     later aliases of the same name resolve to it: the value each alias denotes is
//     unchanged, and the copy keeps its own aliases, so nothing is expanded (an alias
//     bomb stays small);
//   - an empty block-style map or list, which a merge makes by emptying one: under a key
//     with a line comment yaml.v3 writes `b: #c` and `{}` on the next line (found by
//     FuzzTwoWay). It is set to flow style, which writes `b: {} #c`; without a
//     comment both styles write `{}` or `[]`, so nothing else changes;
//   - a block map or list with an anchor or a tag under a key with a line comment, which
//     a parser reads from `a: # c` with `&x` or `!t` on the next line: yaml.v3 writes the
//     anchor or tag at column 0, which no parser reads (found by FuzzThreeWayComments).
//     The key's line comment becomes the head comment of the value's first entry
//     (`a: &x`, then `# c` above the first field or element): the text and the nodes
//     stay, the comment moves one line down;
//   - a key that is an empty flow map or list with a line comment (`[]: # c`, or
//     `? [] # c` then `: v`): yaml.v3 writes `[] # c` and the `:` on the next line at
//     column 0, which no parser reads inside a nested map (found by FuzzRepeatedKeys).
//     The comment goes to the value, where yaml.v3 writes it on the key's line or just
//     below it: the line comment of a scalar, alias or flow value (joined before the
//     value's own), else the head comment of a block value's first entry;
//   - a scalar yaml.v3 writes as a block it cannot read back (yamlenc.Unreadable: a
//     value starting with a tab in a literal or folded block, which a merge makes
//     when it changes a multi-line value whose first line starts with one, or an
//     input holds as `|2`): it is set to double-quoted style, which escapes the tab;
//     the value is unchanged.
//
// Input: an output item (not changed). Output: the item itself when it is already
// writable (the usual case, found by one walk), else a fixed copy.
func writable(item *yaml.RNode) *yaml.RNode {
	n := item.YNode()
	if n == nil || !walkWritable(n, map[string]bool{}, false) {
		return item
	}
	c := yaml.CopyYNode(n)
	walkWritable(c, map[string]bool{}, true)
	return yaml.NewRNode(c)
}

// walkWritable walks n in document order (the order an encoder writes it), recording
// anchors in defined, and reports whether n needs a fix (see writable); with fix it
// makes the fixes in place, going on into the copies it makes.
func walkWritable(n *yaml.Node, defined map[string]bool, fix bool) bool {
	if n.Anchor != "" {
		defined[n.Anchor] = true
	}
	found := false
	for i, c := range n.Content {
		if yamlenc.Unreadable(c) {
			if !fix {
				return true
			}
			found = true
			c.Style = c.Style&^(yaml.LiteralStyle|yaml.FoldedStyle|yaml.SingleQuotedStyle) | yaml.DoubleQuotedStyle
		}
		if c.Kind == yaml.AliasNode {
			if defined[c.Value] || c.Alias == nil {
				continue
			}
			if !fix {
				return true
			}
			found = true
			cp := yaml.CopyYNode(c.Alias)
			cp.Anchor = c.Value
			n.Content[i] = cp
			c = cp
		}
		if emptyCollection(c) && c.Style&yaml.FlowStyle == 0 {
			if !fix {
				return true
			}
			found = true
			c.Style |= yaml.FlowStyle
			// the key's line comment goes after the flow value, where yaml.v3 writes it
			if k := commentedKey(n, i); k != nil && c.LineComment == "" {
				keyCommentToValue(k, c)
			}
		}
		if k := commentedKey(n, i); k != nil && (headedBlock(c) || emptyCollection(k)) {
			if !fix {
				return true
			}
			found = true
			keyCommentToValue(k, c)
		}
		if walkWritable(c, defined, fix) {
			if !fix {
				return true
			}
			found = true
		}
	}
	return found
}

// commentedKey returns the key of n.Content[i] when n is a map, that node is a value and
// its key has a line comment; nil otherwise.
func commentedKey(n *yaml.Node, i int) *yaml.Node {
	if n.Kind != yaml.MappingNode || i%2 != 1 || n.Content[i-1].LineComment == "" {
		return nil
	}
	return n.Content[i-1]
}

// keyCommentToValue moves key's line comment to its value v, where yaml.v3 writes it on
// the key's line or just below: the head comment of the first entry of a non-empty
// block map or list, else v's line comment (before v's own).
func keyCommentToValue(key, v *yaml.Node) {
	if (v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode) && len(v.Content) > 0 && v.Style&yaml.FlowStyle == 0 {
		first := v.Content[0]
		first.HeadComment = strings.TrimSuffix(key.LineComment+"\n"+first.HeadComment, "\n")
	} else if v.LineComment == "" {
		v.LineComment = key.LineComment
	} else {
		v.LineComment = key.LineComment + " " + v.LineComment
	}
	key.LineComment = ""
}

// emptyCollection reports whether n is a map or list with no entries.
func emptyCollection(n *yaml.Node) bool {
	return (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && len(n.Content) == 0
}

// headedBlock reports whether n is a non-empty block map or list that yaml.v3 writes with
// an anchor or a tag before its first entry.
func headedBlock(n *yaml.Node) bool {
	if (n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode) || len(n.Content) == 0 || n.Style&yaml.FlowStyle != 0 {
		return false
	}
	if n.Anchor != "" || n.Style&yaml.TaggedStyle != 0 {
		return true
	}
	def := "!!map"
	if n.Kind == yaml.SequenceNode {
		def = "!!seq"
	}
	return n.Tag != "" && n.ShortTag() != def
}

// readableResults makes the values of rs (field.currentValue and proposedValue, and
// the strings inside a map or list value) ones yaml.v3 writes as text it reads back:
// a string yamlenc.UnreadableString finds (a multi-line value starting with a tab,
// which yaml.v3 writes as a literal block it then fails to read, failing the whole
// run where kyaml's framework reads its results back) becomes a quotedString, in
// place. Other values are left as they are.
func readableResults(rs framework.Results) {
	for _, r := range rs {
		if r == nil || r.Field == nil {
			continue
		}
		r.Field.CurrentValue = readableValue(r.Field.CurrentValue, 0)
		r.Field.ProposedValue = readableValue(r.Field.ProposedValue, 0)
	}
}

// readableValue is v with each string yamlenc.UnreadableString finds made a
// quotedString, maps and lists walked up to results.MaxValueDepth levels (as deep as
// results.Value decodes them).
func readableValue(v interface{}, depth int) interface{} {
	if depth > 1000 {
		return v
	}
	switch x := v.(type) {
	case string:
		if yamlenc.UnreadableString(x) {
			return quotedString(x)
		}
	case []interface{}:
		for i := range x {
			x[i] = readableValue(x[i], depth+1)
		}
	case map[string]interface{}:
		for k, e := range x {
			x[k] = readableValue(e, depth+1)
		}
	case map[interface{}]interface{}:
		for k, e := range x {
			x[k] = readableValue(e, depth+1)
		}
	}
	return v
}

// quotedString is a string value of a result that yaml.v3 writes double-quoted (its
// default, a literal block, would not read back: yamlenc.UnreadableString); JSON
// writes it as any string.
type quotedString string

// MarshalYAML writes q as a double-quoted !!str scalar.
func (q quotedString) MarshalYAML() (interface{}, error) {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.DoubleQuotedStyle, Value: string(q)}, nil
}
