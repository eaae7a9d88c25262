package yamlenc

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/bench/gen"
)

// tricky are scalar values that exercise the emitter's analysis, style selection and
// writers, and yaml.v3's tag resolution.
var tricky = []string{
	"", " ", "  ", "a b", " lead", "trail ", "a  b", "null", "Null", "NULL", "~", "true", "True",
	"false", "yes", "no", "y", "n", "Y", "on", "off", "NO", "0", "012", "089", "0o12", "-0o12",
	"0o19", "0x1F", "0xG", "0x", "0b101", "-0b101", "0b102", "1_000", "+1", "-1", "1e3", "1E3",
	"1e", "1.5", "1.", ".5", ".5.", "1.2.3", "10.0.0.1", "1e400", ".1e400", "9223372036854775807",
	"9223372036854775808", "18446744073709551615", "18446744073709551616", "-9223372036854775809",
	".inf", "-.inf", "+.inf", ".Inf", ".nan", ".NaN", ".", "..", "...", "... a", "-", "--", "---",
	"--- a", "---a", "a---", "- a", "-a", "a: b", "a:b", "a:", "a :", ":", ": a", ":a", "?",
	"? a", "?a", "a?", "a #b", "a#b", "#a", "a#", "#", "a,b", ",", "[a]", "a[b]", "{a}", "a{b}",
	"}", "*a", "&a", "!a", "a!", "|", "|a", ">", ">a", "'", "''", "a'b", "'a'", "\"", "a\"b",
	"\"a\"", "%", "%a", "@", "@a", "`", "`a", "=", "<<", "<", "\\", "a\\b", "\\n", "é", "日本",
	"ü\n", "\u00a0", "a\u00a0", "\t", "a\tb", "\ta", "a\t", "\x7f", "\x00", "a\x00b", "\x1b", "\r",
	"a\rb", "a\r\nb", "\u0085", "a\u0085b", "\u2028", "a\u2028b", "a\u2028", "a\u2029b",
	"\ufeff", "\ufeffa", "a\ufeff", "\ufffe", "\uffff", "\uffffa", "\ue000", "\U0001F600",
	"a\U0001F600", "line\nline", "line\n", "line\n\n", "line\n\n\n", "\n", "\n\n", "\nlead",
	"\n\nlead", " \nx", "x\n ", "x \ny", "x\n y", "x\n\n y", "a\n\tb", "a\n\u2028", "\u2028\n",
	"a\n\u0085", "a\n#b", "a\n- b", "a\n--- b", "a\n...", " a\nb", "a\n\nb\n", "- a\nb",
	"http://example.com:80/x", "2001-12-14", "2001-12-14t21:59:43.10-05:00",
	"2001-12-14 21:59:43.10", "2001-12-14T21:59:43Z", "2001-1-2", "20011-12-14", "1:20", "-1:20",
	"190:20:30", strings.Repeat("very long string ", 12), strings.Repeat("x", 128),
	strings.Repeat("y", 129), strings.Repeat("long line with spaces and: colons ", 8) + "\nand a break",
}

// styles are node styles to try, including combinations where encode.go's precedence
// decides.
var styles = []yaml.Style{
	0, yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle, yaml.LiteralStyle, yaml.FoldedStyle,
	yaml.LiteralStyle | yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle | yaml.LiteralStyle,
	yaml.FlowStyle, yaml.TaggedStyle,
}

// tags are scalar tags to try, short and long.
var tags = []string{"", "!!str", "tag:yaml.org,2002:str", "!!int", "!!float", "!!bool", "!!null",
	"!!timestamp", "!!binary", "!custom", "!"}

// scalarContexts place a scalar s in an item: as a key or a value, at several
// indentations, after "- ", in compact and nested sequences.
var scalarContexts = []struct {
	name string
	item func(s *yaml.Node) *yaml.Node
}{
	{"item", func(s *yaml.Node) *yaml.Node { return s }},
	{"key", func(s *yaml.Node) *yaml.Node { return mapping(s, str("v"), str("k2"), str("v2")) }},
	{"second key", func(s *yaml.Node) *yaml.Node { return mapping(str("k"), str("v"), s, str("v2")) }},
	{"value", func(s *yaml.Node) *yaml.Node { return mapping(str("k"), s, str("k2"), str("v2")) }},
	{"last value", func(s *yaml.Node) *yaml.Node { return mapping(str("k"), str("v"), str("k2"), s) }},
	{"nested value", func(s *yaml.Node) *yaml.Node {
		return mapping(str("a"), mapping(str("b"), mapping(str("c"), s, str("d"), str("e"))), str("f"), str("g"))
	}},
	{"nested key", func(s *yaml.Node) *yaml.Node {
		return mapping(str("a"), mapping(s, mapping(str("c"), str("d"))))
	}},
	{"compact sequence item", func(s *yaml.Node) *yaml.Node { return mapping(str("k"), sequence(s, str("x")), str("k2"), str("v")) }},
	{"sequence in sequence", func(s *yaml.Node) *yaml.Node { return sequence(sequence(s, str("x")), s) }},
	{"mapping in sequence", func(s *yaml.Node) *yaml.Node {
		return mapping(str("k"), sequence(mapping(s, s, str("z"), s), mapping(str("z"), s)))
	}},
}

func str(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }

func mapping(kv ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: kv}
}

func sequence(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: items}
}

// TestTrickyScalars: every tricky value, under every style and tag, as a key and as a
// value in every context, is declined or written as yaml.v3 writes it.
func TestTrickyScalars(t *testing.T) {
	tagList := tags
	if testing.Short() {
		tagList = tags[:2]
	}
	total, accepted := 0, 0
	for _, v := range tricky {
		for _, style := range styles {
			for _, tag := range tagList {
				for _, c := range scalarContexts {
					s := &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Style: style, Value: v}
					total++
					if check(t, fmt.Sprintf("%q style %d tag %q as %s", v, style, tag, c.name), c.item(s)) {
						accepted++
					}
				}
			}
		}
	}
	t.Logf("%d of %d cases accepted", accepted, total)
}

// TestTrickyKnown pins a few results the table relies on: what the subset must accept.
func TestTrickyKnown(t *testing.T) {
	for _, c := range []struct {
		n    *yaml.Node
		want string
	}{
		{mapping(str("port"), str("80")), "- port: \"80\"\n"},
		{mapping(str("a"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: "80"}), "- a: 80\n"},
		{mapping(str(""), str("")), "- \"\": \"\"\n"},
		{mapping(&yaml.Node{Kind: yaml.ScalarNode, Value: ""}, str("x")), "- '': x\n"},
		{mapping(str("k"), &yaml.Node{Kind: yaml.ScalarNode, Value: ""}), "- k:\n"},
		{mapping(str("k"), str("a\nb\n")), "- k: |\n    a\n    b\n"},
		{mapping(str("k"), str(" a\n")), "- k: |2\n     a\n"},
		{mapping(str("k"), str("a\n\n")), "- k: |+\n    a\n\n"},
		{mapping(str("k"), sequence(str("a"), mapping(str("b"), str("c"), str("d"), sequence()))), "- k:\n  - a\n  - b: c\n    d: []\n"},
		{sequence(sequence(str("a"))), "- - - a\n"},
		{mapping(str("k"), &yaml.Node{Kind: yaml.ScalarNode, Style: yaml.SingleQuotedStyle, Value: "it's"}), "- k: 'it''s'\n"},
		{mapping(str("k"), str("\ufeffab")), "- k: \"\\uFEFF\\x61\\x62\"\n"},
	} {
		got, ok := AppendItem(nil, c.n)
		if !ok || string(got) != c.want {
			t.Errorf("AppendItem = %q, %v; want %q", got, ok, c.want)
		}
		check(t, c.want, c.n)
	}
}

// TestDeclined: what the subset leaves to yaml.v3.
func TestDeclined(t *testing.T) {
	flowMap := mapping(str("a"), str("b"))
	flowMap.Style = yaml.FlowStyle
	anchored := str("x")
	anchored.Anchor = "a"
	comment := func(f func(n *yaml.Node)) *yaml.Node { n := str("x"); f(n); return n }
	for name, n := range map[string]*yaml.Node{
		"nil":             nil,
		"flow mapping":    mapping(str("k"), flowMap),
		"anchor":          mapping(str("k"), anchored),
		"alias":           mapping(str("k"), &yaml.Node{Kind: yaml.AliasNode, Alias: anchored}),
		"head comment":    mapping(str("k"), comment(func(n *yaml.Node) { n.HeadComment = "# c" })),
		"line comment":    mapping(comment(func(n *yaml.Node) { n.LineComment = "# c" }), str("v")),
		"foot comment":    mapping(str("k"), comment(func(n *yaml.Node) { n.FootComment = "# c" })),
		"folded":          mapping(str("k"), &yaml.Node{Kind: yaml.ScalarNode, Style: yaml.FoldedStyle, Value: "a b"}),
		"invalid UTF-8":   mapping(str("k"), str("\xff")),
		"custom tag":      mapping(str("k"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!x", Value: "a"}),
		"int tag on text": mapping(str("k"), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: "a"}),
		"long key":        mapping(str(strings.Repeat("k", 129)), str("v")),
		"multiline key":   mapping(str("a\nb"), str("v")),
		"mapping key":     mapping(mapping(), str("v")),
		"document":        mapping(str("k"), &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{str("x")}}),
		"kind 0":          mapping(str("k"), &yaml.Node{}),
		"odd mapping":     mapping(str("k")),
		"nil value":       mapping(str("k"), nil),
		"tagged map":      {Kind: yaml.MappingNode, Tag: "!x", Content: []*yaml.Node{str("a"), str("b")}},
	} {
		if out, ok := AppendItem([]byte("x"), n); ok || string(out) != "x" {
			t.Errorf("%s: AppendItem = %q, %v; want declined", name, out, ok)
		}
	}
}

// TestPerturbed: real items with a few scalars (keys and values) given tricky values
// and styles, declined or written as yaml.v3 writes them.
func TestPerturbed(t *testing.T) {
	var items []*yaml.Node
	items = append(items, genItems(t, gen.Options{Resources: 40, Mode: gen.ThreeWay, Seed: 7})...)
	for _, f := range readTree(t, requireUpstream(t, "ingress-nginx")) {
		items = append(items, f.docs...)
	}
	variants := 24
	if testing.Short() {
		variants = 4
	}
	r := rand.New(rand.NewPCG(1, 2))
	total, accepted := 0, 0
	for i, it := range items {
		var scalars int
		walk(it, 0, func(n *yaml.Node, _ int) {
			if n.Kind == yaml.ScalarNode {
				scalars++
			}
		})
		for v := 0; v < variants; v++ {
			c := clone(it)
			// Choose 1-4 scalars; keys get single-line values mostly, so that the item
			// is not declined for a complex key.
			picks := map[int]bool{}
			for k := 1 + r.IntN(4); k > 0; k-- {
				picks[r.IntN(scalars)] = true
			}
			j := 0
			var perturb func(n *yaml.Node, key bool)
			perturb = func(n *yaml.Node, key bool) {
				if n.Kind == yaml.ScalarNode {
					if picks[j] {
						n.Style = styles[r.IntN(4)]
						n.Value = tricky[r.IntN(len(tricky))]
						if key && strings.ContainsAny(n.Value, "\n\r\u0085\u2028\u2029") && r.IntN(4) != 0 {
							n.Value = "k"
						}
						if r.IntN(3) == 0 {
							n.Tag = tags[r.IntN(3)]
						}
					}
					j++
				}
				for x, ch := range n.Content {
					perturb(ch, n.Kind == yaml.MappingNode && x%2 == 0)
				}
			}
			perturb(c, false)
			total++
			if check(t, fmt.Sprintf("item %d variant %d", i, v), c) {
				accepted++
			}
		}
	}
	t.Logf("%d of %d perturbed items accepted", accepted, total)
	if accepted < total/2 {
		t.Errorf("only %d of %d perturbed items accepted: the test checks too little", accepted, total)
	}
}
