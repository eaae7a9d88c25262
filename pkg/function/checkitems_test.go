package function

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// mergedText merges items by cfg (Run) and returns the first output item as written,
// and that text parsed again; it fails t when the merge fails or the text does not parse.
func mergedText(t *testing.T, items []*yaml.RNode, cfg *config.Config) (string, *yaml.RNode) {
	t.Helper()
	out, err := Run(items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := out.Items[0].MustString()
	back, err := yaml.Parse(s)
	if err != nil {
		t.Fatalf("output does not parse: %v\n%s", err, s)
	}
	return s, back
}

// TestReplacedAnchorKeepsItsAliasesValid: updated changes the field that carries dest's
// anchor while another dest field aliases it; the output must still parse, with the
// alias standing for dest's old value (found by the alias bound test; the output held
// `*a` without `&a`).
func TestReplacedAnchorKeepsItsAliasesValid(t *testing.T) {
	items := []*yaml.RNode{
		yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations: {config.kubernetes.io/merge-source: original}\ndata:\n  a: b\n"),
		yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations: {config.kubernetes.io/merge-source: updated}\ndata:\n  a: c\n"),
		yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations: {config.kubernetes.io/merge-source: dest}\ndata:\n  a: &a [x, y]\n  b: [*a, *a]\n"),
	}
	s, back := mergedText(t, items, config.Defaults())
	b, _ := back.Pipe(yaml.Lookup("data", "b"))
	var v interface{}
	if err := b.YNode().Decode(&v); err != nil || fmt.Sprint(v) != "[[x y] [x y]]" {
		t.Fatalf("data.b = %v (%v)\n%s", v, err, s)
	}
	if strings.Count(s, "&a") != 1 {
		t.Fatalf("want one anchor, the alias's first use:\n%s", s)
	}
}

// TestAliasBombIsRefused: an item whose aliases stand for 10^9 nodes is refused before
// any merge, in every mode, with an error result naming it.
func TestAliasBombIsRefused(t *testing.T) {
	var bomb strings.Builder
	bomb.WriteString("  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	prev := "a"
	for _, c := range "bcdefghi" {
		fmt.Fprintf(&bomb, "  %c: &%c [%s]\n", c, c, strings.TrimSuffix(strings.Repeat("*"+prev+", ", 10), ", "))
		prev = string(c)
	}
	for _, mode := range []string{"3way", "2way", "apply"} {
		role := map[string]string{"3way": "dest", "2way": "src", "apply": "updated"}[mode]
		rl := &framework.ResourceList{
			FunctionConfig: yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fc}\ndata: {mode: " + mode + "}\n"),
			Items: []*yaml.RNode{yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\n" +
				"  annotations: {config.kubernetes.io/merge-source: " + role + "}\ndata:\n" + bomb.String())},
		}
		err := Processor{}.Process(rl)
		if err == nil || len(rl.Items) != 0 {
			t.Fatalf("%s: not refused (err %v, %d items)", mode, err, len(rl.Items))
		}
		r := rl.Results[len(rl.Results)-1]
		if r.Severity != framework.Error || r.ResourceRef == nil || r.ResourceRef.Name != "bomb" || !strings.Contains(r.Message, "alias") {
			t.Fatalf("%s: result %+v", mode, r)
		}
	}
}

// TestEmptiedMapUnderCommentedKeyIsValidYAML: a 2-way src that nulls every field of a
// dest map whose key has a line comment leaves an empty block map, which yaml.v3 writes
// as `b: #c` and `{}` on the next line (FuzzTwoWay's finding). The output must
// parse, keep the comment and hold the empty map.
func TestEmptiedMapUnderCommentedKeyIsValidYAML(t *testing.T) {
	cfg := config.Defaults()
	cfg.Mode = vocab.TwoWay
	items := []*yaml.RNode{
		yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations: {config.kubernetes.io/merge-source: src}\ndata:\n  b:\n    d: null\n  e: []\n"),
		yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations: {config.kubernetes.io/merge-source: dest}\ndata:\n  b: #c\n    d: x\n  e: #f\n  - 1\n"),
	}
	s, back := mergedText(t, items, cfg)
	if !strings.Contains(s, "b: {} #c") {
		t.Errorf("want the emptied map in flow style with its comment:\n%s", s)
	}
	b, _ := back.Pipe(yaml.Lookup("data", "b"))
	if b == nil || b.YNode().Kind != yaml.MappingNode || len(b.YNode().Content) != 0 {
		t.Errorf("data.b is not an empty map:\n%s", s)
	}
}

// A block map or list with an anchor or a tag under a key with a line comment (`a: # c`
// with `&x` or `!t` on the next line, as a parser reads it) is written by yaml.v3 with
// the anchor or tag at column 0, which no parser reads (FuzzThreeWayComments' finding).
// The output, merged or passed through, must parse, keep the values, the anchor, the tag
// and the comment's text.
func TestAnchoredOrTaggedBlockUnderCommentedKeyIsValidYAML(t *testing.T) {
	item := func(role, data string) *yaml.RNode {
		return yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations: {config.kubernetes.io/merge-source: " +
			role + "}\ndata:\n" + data)
	}
	for name, data := range map[string]string{
		"anchored map": "  a: # c\n    &x\n    f: 1\n  b: *x\n",
		"tagged map":   "  a: # c\n    !t\n    # head\n    f: 1\n",
		"tagged list":  "  a: # c\n    !t\n    - 1\n",
	} {
		t.Run(name, func(t *testing.T) {
			for what, items := range map[string][]*yaml.RNode{
				"merged":         {item("original", "  z: 1\n"), item("updated", "  z: 2\n"), item("dest", "  z: 1\n"+data)},
				"passed through": {yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n" + data)},
			} {
				s, back := mergedText(t, items, config.Defaults())
				if !strings.Contains(s, "# c") {
					t.Errorf("%s: the comment is lost:\n%s", what, s)
				}
				want, _ := yaml.MustParse(data).Pipe(yaml.Lookup("a"))
				got, _ := back.Pipe(yaml.Lookup("data", "a"))
				if got == nil || got.YNode().Tag != want.YNode().Tag || got.YNode().Anchor != want.YNode().Anchor ||
					got.YNode().Kind != want.YNode().Kind || len(got.YNode().Content) != len(want.YNode().Content) {
					t.Errorf("%s: data.a changed:\n%s", what, s)
				}
			}
		})
	}
}

// TestUnwritableTagIsRefused: an item with a value tagged `!%21` (yaml.v3 reads it as
// the tag `!!` and writes `!!`, which no parser reads; FuzzThreeWay's finding, where
// dest held it and original == updated) fails with an error result naming the resource
// and the field and writes no items, whether the item merges or passes through, rather
// than output kpt cannot read.
func TestUnwritableTagIsRefused(t *testing.T) {
	for _, annotations := range []string{"{config.kubernetes.io/merge-source: dest}", "{}"} {
		rl := &framework.ResourceList{
			FunctionConfig: yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fc}\ndata: {mode: 3way}\n"),
			Items: []*yaml.RNode{yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tagged\n" +
				"  annotations: " + annotations + "\ndata:\n  a: !%21 hello\n")},
		}
		err := Processor{}.Process(rl)
		if err == nil || len(rl.Items) != 0 {
			t.Fatalf("%s: not refused (err %v, %d items)", annotations, err, len(rl.Items))
		}
		r := rl.Results[len(rl.Results)-1]
		if r.Severity != framework.Error || r.ResourceRef == nil || r.ResourceRef.Name != "tagged" ||
			r.Field == nil || r.Field.Path != "data.a" || !strings.Contains(r.Message, "`!!`") {
			t.Fatalf("%s: result %+v", annotations, r)
		}
	}
}

// A key that is an empty flow map or list with a line comment (`[]: # c`) is written by
// yaml.v3 as `[] # c` with the `:` on the next line at column 0, which no parser reads
// in a nested map (FuzzRepeatedKeys' finding 143e50d281967ce0). The output, merged or
// passed through, must parse and keep the keys, the values and the comment's text.
func TestCommentedEmptyCollectionKeyIsValidYAML(t *testing.T) {
	item := func(role, data string) *yaml.RNode {
		return yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations: {config.kubernetes.io/merge-source: " +
			role + "}\ndata:\n" + data)
	}
	for name, data := range map[string]string{
		"null value":          "  []: # c\n",
		"scalar with comment": "  ? {} # c\n  : 1 # d\n",
		"block map value":     "  []: # c\n    f: 1\n",
		"block list value":    "  ? [] # c\n  :\n  - 1\n",
		"flow value":          "  []: # c\n    {f: 1}\n",
	} {
		t.Run(name, func(t *testing.T) {
			for what, tc := range map[string]struct {
				items []*yaml.RNode
				data  string
			}{
				"merged":         {[]*yaml.RNode{item("original", "  z: 1\n"), item("updated", "  z: 2\n"), item("dest", "  z: 1\n"+data)}, "  z: 2\n" + data},
				"passed through": {[]*yaml.RNode{yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n" + data)}, data},
			} {
				s, back := mergedText(t, tc.items, config.Defaults())
				if !strings.Contains(s, "# c") || (strings.Contains(data, "# d") && !strings.Contains(s, "# d")) {
					t.Errorf("%s: a comment is lost:\n%s", what, s)
				}
				want := yaml.MustParse(tc.data)
				got, _ := back.Pipe(yaml.Lookup("data"))
				if got == nil || !merge.Equal(got, want) {
					t.Errorf("%s: data changed:\n%s", what, s)
				}
			}
		})
	}
}
