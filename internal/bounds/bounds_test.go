package bounds

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// bomb returns a map whose last field stands for 10^levels scalars through aliases.
func bomb(levels int) *yaml.Node {
	var b strings.Builder
	b.WriteString("l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < levels; i++ {
		b.WriteString("l" + string(rune('0'+i)) + ": &l" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*l" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	return yaml.MustParse(b.String()).YNode()
}

func TestTooExpanded(t *testing.T) {
	if TooExpanded(nil) {
		t.Error("nil is too expanded")
	}
	if TooExpanded(bomb(5)) { // about 10^5 nodes: a large but honest use of aliases
		t.Error("10^5 nodes refused")
	}
	if !TooExpanded(bomb(9)) { // 10^9 nodes, a billion laughs: must be refused, and fast
		t.Error("an alias bomb of 10^9 nodes is not refused")
	}
	if TooExpanded(yaml.MustParse("a: [1, 2, 3]\nb: {c: d}\n").YNode()) {
		t.Error("a small map without aliases refused")
	}
}

// A large item is not a bomb: only the nodes aliases add count against
// MaxExpandedNodes, so an item of 1.5 million written nodes passes (a one-resource list
// of 200,000 keyed elements was refused as "an alias bomb?"), one alias more in it
// changes nothing, and a bomb hidden after a million written nodes is still found, as
// is a repeated key there.
func TestTooExpandedCountsWhatAliasesAdd(t *testing.T) {
	big := func(tail ...*yaml.Node) *yaml.Node {
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for i := 0; i < 1_500_000; i++ {
			seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "x"})
		}
		seq.Content = append(seq.Content, tail...)
		return seq
	}
	if r := Check(big()); r.TooExpanded || r.HasAlias {
		t.Errorf("1.5 million written nodes: %+v", r)
	}
	anchored := yaml.MustParse("a: &x [1, 2]\nb: *x\n").YNode()
	if r := Check(big(anchored)); r.TooExpanded || !r.HasAlias {
		t.Errorf("1.5 million written nodes and one small alias: %+v", r)
	}
	if r := Check(big(bomb(9))); !r.TooExpanded {
		t.Errorf("a bomb after 1.5 million written nodes is not refused: %+v", r)
	}
	repeated := yaml.MustParse("a: 1\nb: 2\na: 3\n").YNode()
	if r := Check(big(repeated)); r.Repeated == nil {
		t.Errorf("a repeated key after 1.5 million written nodes is not found: %+v", r)
	}
	// The anchored node is written once: reaching it again through its alias adds its
	// size, and only that.
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for i := 0; i < MaxExpandedNodes-2; i++ {
		seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "x"})
	}
	twice := yaml.MustParse("a: &x [1, 2]\nb: *x\n").YNode() // 7 written nodes, 3 added by the alias
	withSeq := &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{seq, twice}}
	if TooExpanded(withSeq) {
		t.Error("an alias adding 3 nodes to a million written ones is refused")
	}
}

// TestMeasureAliases: Measure's alias answer is HasAlias's, dangling aliases included.
func TestMeasureAliases(t *testing.T) {
	for _, n := range []*yaml.Node{
		nil,
		yaml.MustParse("a: [1, 2, 3]\nb: {c: d}\n").YNode(),
		yaml.MustParse("a: &x [1]\nb: *x\n").YNode(),
		bomb(3),
		{Kind: yaml.SequenceNode, Content: []*yaml.Node{{Kind: yaml.AliasNode}}},
	} {
		too, aliased := Measure(n)
		if aliased != HasAlias(n) || too != TooExpanded(n) {
			t.Errorf("Measure = (%v, %v), want TooExpanded %v, HasAlias %v", too, aliased, TooExpanded(n), HasAlias(n))
		}
	}
	if too, aliased := Measure(bomb(9)); !too || !aliased {
		t.Errorf("bomb: Measure = (%v, %v), want (true, true)", too, aliased)
	}
}

func TestCheckFindsRepeatedKeys(t *testing.T) {
	many := "m:\n"
	for i := 0; i < 20; i++ {
		many += fmt.Sprintf("  k%d: %d\n", i, i)
	}
	for _, tt := range []struct {
		name, doc string
		want      *RepeatedKey // nil: none
	}{
		{"unique keys", "a: 1\nb: {c: 2, d: [ {e: 3} ]}\n", nil},
		{"a string and an integer key differ", "\"1\": a\n1: b\n", nil},
		{"merge keys are not compared", "base: &b {x: 1}\nm:\n  <<: *b\n  <<: *b\n", nil},
		{"top level", "a: 1\nb: 2\na: 3\n", &RepeatedKey{Path: "a", Key: "a", FirstLine: 1, SecondLine: 3, FirstColumn: 1, SecondColumn: 1}},
		{"in a list element", "l:\n- name: x\n  v: 1\n  v: 2\n", &RepeatedKey{Path: "l[0].v", Key: "v", FirstLine: 3, SecondLine: 4, FirstColumn: 3, SecondColumn: 3}},
		{"in a large map", many + "  k7: again\n", &RepeatedKey{Path: "m.k7", Key: "k7", FirstLine: 9, SecondLine: 22, FirstColumn: 3, SecondColumn: 3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tt.doc), &doc); err != nil {
				t.Fatal(err)
			}
			got := Check(doc.Content[0]).Repeated
			switch {
			case tt.want == nil && got != nil:
				t.Errorf("found %+v, want none", *got)
			case tt.want != nil && (got == nil || *got != *tt.want):
				t.Errorf("found %+v, want %+v", got, *tt.want)
			}
		})
	}
}

func TestHeadRepeated(t *testing.T) {
	for doc, want := range map[string]bool{
		"metadata: {name: a}\nkind: K\n":                                                     false,
		"metadata: {name: a, annotations: {x: y}}\n":                                         false,
		"metadata: {name: a}\nmetadata:\n":                                                   true,
		"metadata:\nmetadata: {name: a}\n":                                                   true,
		"metadata:\n  annotations: {x: y}\n  annotations:\n":                                 true,
		"metadata:\n  annotations:\n  name: a\n  annotations: {x: y}\n":                      true,
		"spec:\n  annotations: 1\n  annotations: 2\n":                                        false, // Check finds it; preprocessing leaves it
		"metadata: {name: a}\nspec: {metadata: 1, metadata: 2}\n":                            false,
		"- metadata: 1\n- metadata: 2\n":                                                     false,
		"metadata: {labels: {annotations: 1, annotations: 2}, name: a}\n":                    false,
		"metadata:\n  name: a\n  annotations: {a: b}\n  labels: {}\n  annotations: {c: d}\n": true,
	} {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
			t.Fatal(err)
		}
		if got := HeadRepeated(n.Content[0]); got != want {
			t.Errorf("%q: %v, want %v", doc, got, want)
		}
	}
	if HeadRepeated(nil) {
		t.Error("nil")
	}
}

// A node tagged `!!` alone (from `!%21` or `!<!!>`) is found, with its path; `!!str`,
// `!%21foo` (which yaml.v3 reads as `!!foo`) and local tags are not.
func TestCheckFindsUnwritableTag(t *testing.T) {
	for in, want := range map[string]string{
		"a: 1\nb:\n  c: [x, !%21 y]\n": "b.c[1]",
		"a: !<!!> x\n":                 "a",
		"!%21 {a: 1}\n":                "",
	} {
		r := Check(yaml.MustParse(in).YNode())
		if r.UnwritableTag == nil || *r.UnwritableTag != want {
			t.Errorf("%q: UnwritableTag %v, want %q", in, r.UnwritableTag, want)
		}
	}
	for _, in := range []string{"a: !!str 1\n", "a: !%21foo x\n", "a: !x y\n", "a: !%20 z\n"} {
		if r := Check(yaml.MustParse(in).YNode()); r.UnwritableTag != nil {
			t.Errorf("%q: UnwritableTag %q", in, *r.UnwritableTag)
		}
	}
}

// The items of one YAML document share anchors: each item's Added is what its own
// aliases add, and TooExpandedTogether finds the item at which their sum passes the
// bound.
func TestTooExpandedTogether(t *testing.T) {
	doc := yaml.MustParse("- {a: &big [" + strings.TrimSuffix(strings.Repeat("1,", 300_000), ",") + "]}\n" +
		"- {x: *big}\n- {x: *big}\n- {x: [*big, *big]}\n- {y: 1}\n").YNode()
	var reports []Report
	for _, item := range doc.Content {
		reports = append(reports, Check(item))
	}
	if got := []int{reports[0].Added, reports[1].Added, reports[3].Added, reports[4].Added}; fmt.Sprint(got) != "[0 300001 600002 0]" {
		t.Fatalf("Added %v", got)
	}
	if at, sum := TooExpandedTogether(reports); at != 3 || sum != 1_200_004 {
		t.Errorf("TooExpandedTogether = %d, %d; want 3, 1200004", at, sum)
	}
	if at, _ := TooExpandedTogether(reports[:3]); at != -1 {
		t.Errorf("600,000 added nodes refused at %d", at)
	}
	if r := Check(yaml.MustParse("a: &m {b: *m}\n").YNode()); r.Added <= MaxExpandedNodes {
		t.Errorf("a recursive alias adds %d", r.Added)
	}
}

// The input bounds: sizes as pkg update's --max-file-size reads them, the environment
// variables, and ReadInput reading no more than one byte past the bound.
func TestInputBounds(t *testing.T) {
	for in, want := range map[string]int64{"1000": 1000, "64MiB": 64 << 20, "2Ki": 2048, "1GiB": 1 << 30, "3M": 3 << 20, "5B": 5} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	t.Setenv(MaxInputEnv, "")
	t.Setenv(MaxNodesEnv, "")
	if n, err := MaxInputBytes(); n != DefaultMaxInputBytes || err != nil {
		t.Errorf("default input bound %d, %v", n, err)
	}
	if n, err := MaxNodes(); n != DefaultMaxNodes || err != nil {
		t.Errorf("default node bound %d, %v", n, err)
	}
	t.Setenv(MaxInputEnv, "1x")
	t.Setenv(MaxNodesEnv, "-3")
	if _, err := MaxInputBytes(); err == nil || !strings.Contains(err.Error(), MaxInputEnv) {
		t.Errorf("malformed input bound: %v", err)
	}
	if _, err := MaxNodes(); err == nil || !strings.Contains(err.Error(), MaxNodesEnv) {
		t.Errorf("malformed node bound: %v", err)
	}
	r := strings.NewReader(strings.Repeat("x", 100))
	data, err := ReadInput(r, 10, 0)
	var tl *TooLargeError
	if !errors.As(err, &tl) || len(data) != 10 || r.Len() != 89 {
		t.Errorf("ReadInput over the bound: %d bytes, %v, %d left unread", len(data), err, r.Len())
	}
	if data, err := ReadInput(strings.NewReader("abc"), 3, 3); string(data) != "abc" || err != nil {
		t.Errorf("ReadInput at the bound: %q, %v", data, err)
	}
}
