package resourcelist_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/bench/gen"
	"github.com/krm-merge/krm-merge/pkg/function"
	"github.com/krm-merge/krm-merge/pkg/function/internal/resourcelist"
)

// inlineList is a ResourceList with one dest item and fc as its functionConfig (fc's
// lines at column 0; they are indented under `functionConfig:`), the functionConfig
// last, or first (before the items) with fcFirst.
func inlineList(fc string, fcFirst bool) string {
	head := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
	items := `items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: a
  data:
    k: local
`
	lines := strings.Split(strings.TrimSuffix(fc, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	fcText := "functionConfig:\n" + strings.Join(lines, "\n") + "\n"
	if fcFirst {
		return head + fcText + items
	}
	return head + items + fcText
}

// mergeHead is a ResourceMerge's head; spec's keys follow at column 2.
const mergeHead = "apiVersion: fn.krm-merge.dev/v1alpha1\nkind: ResourceMerge\nmetadata:\n  name: m\nspec:\n"

// cm is a ConfigMap resource as an inline list element at column 2 (a compact list
// under a spec key), with data k: v.
func cm(name, v string) string {
	return fmt.Sprintf("  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: %s\n    data:\n      k: %s\n", name, v)
}

// inlineCases are functionConfigs with inline sources, and whether the cut decodes
// their lists (with runs of one element each, and with one run a list: an alias to an
// anchor in another element only decodes in one run).
var inlineCases = []struct {
	name     string
	fc       string
	fcFirst  bool
	cut, one bool // cut with runs of one element, with one run
}{
	{name: "3way", fc: mergeHead + "  original:\n" + cm("a", "v1") + cm("b", "v1") + "  updated:\n" + cm("a", "v2") + cm("b", "v2"), cut: true, one: true},
	{name: "functionConfig before the items", fc: mergeHead + "  original:\n" + cm("a", "v1") + "  updated:\n" + cm("a", "v2"), fcFirst: true, cut: true, one: true},
	{name: "indented dashes, blank lines, keys after the lists", fc: mergeHead + "  mode: 3way\n  original:\n\n" +
		"    - apiVersion: v1\n      kind: ConfigMap\n      metadata:\n        name: a\n\n      data:\n        k: v1\n\n" +
		"  updated:\n    - apiVersion: v1\n      kind: ConfigMap\n      metadata:\n        name: a\n      data:\n        k: v2\n" +
		"  onConflict: dest\n", cut: true, one: true},
	{name: "2way src", fc: strings.Replace(mergeHead, "spec:\n", "spec:\n  mode: 2way\n", 1) + "  src:\n" + cm("a", "v2") + cm("c", "new"), cut: true, one: true},
	{name: "comments inside elements", fc: mergeHead + "  original:\n  - apiVersion: v1 # line\n    kind: ConfigMap\n" +
		"    # head of metadata\n    metadata:\n      name: a\n    data:\n      k: v1\n      # foot of k, inside the element\n      l: x\n" +
		"  updated:\n" + cm("a", "v2"), cut: true, one: true},
	{name: "block scalars with blank lines", fc: mergeHead + "  original:\n" + cm("a", "|\n        one\n\n        two\n") +
		"  updated:\n" + cm("a", ">-\n        one\n\n\n        two"), cut: true, one: true},
	{name: "anchors and aliases inside an element", fc: mergeHead + "  original:\n  - apiVersion: v1\n    kind: ConfigMap\n" +
		"    metadata:\n      name: a\n      labels: &l\n        app: x\n    data: *l\n  updated:\n" + cm("a", "v2"), cut: true, one: true},
	{name: "alias to another element", fc: mergeHead + "  original:\n  - apiVersion: v1\n    kind: ConfigMap\n" +
		"    metadata:\n      name: a\n    data: &d\n      k: v1\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: b\n" +
		"    data: *d\n  updated:\n" + cm("a", "v2"), cut: false, one: true},
	{name: "alias to another list", fc: mergeHead + "  original:\n  - &a\n    apiVersion: v1\n    kind: ConfigMap\n" +
		"    metadata:\n      name: a\n    data:\n      k: v1\n  updated:\n  - *a\n"},
	{name: "alias to an anchor outside the lists", fc: strings.Replace(mergeHead, "  name: m\n", "  name: &n m\n", 1) +
		"  original:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: *n\n  updated:\n" + cm("a", "v2")},
	{name: "alias after the lists to an anchor in them", fc: mergeHead + "  original:\n  - apiVersion: v1\n    kind: ConfigMap\n" +
		"    metadata:\n      name: &n a\n  updated:\n" + cm("a", "v2") + "  destPath: *n\n"},
	{name: "elements that are not resources", fc: mergeHead + "  original:\n  - 42\n  - [a, b]\n  -\n  - text\n  - - nested\n" +
		"  updated:\n" + cm("a", "v2"), cut: true, one: true},
	{name: "an element repeating metadata", fc: mergeHead + "  original:\n  - apiVersion: v1\n    kind: ConfigMap\n" +
		"    metadata:\n      name: a\n    metadata:\n      name: b\n  updated:\n" + cm("a", "v2")},
	{name: "comment between elements", fc: mergeHead + "  original:\n" + cm("a", "v1") + "    # after a\n" + cm("b", "v1") +
		"  updated:\n" + cm("a", "v2"), cut: true, one: true}, // updated alone is cut
	{name: "comment after a list", fc: mergeHead + "  original:\n" + cm("a", "v1") + "  # before updated\n  updated:\n" + cm("a", "v2"),
		cut: true, one: true}, // updated alone is cut
	{name: "flow list", fc: mergeHead + "  original: [{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}]\n  updated:\n" + cm("a", "v2"),
		cut: true, one: true}, // updated alone is cut
	{name: "key with a comment", fc: mergeHead + "  original: # releases\n" + cm("a", "v1") + "  updated: []\n"},
	{name: "list given twice", fc: mergeHead + "  original:\n" + cm("a", "v1") + "  original:\n" + cm("a", "v2") + "  updated: []\n"},
	{name: "ConfigMap", fc: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fc\ndata:\n  original:\n" + cm("a", "v1")},
	{name: "syntax error in an element", fc: mergeHead + "  original:\n  - apiVersion: v1\n    kind: [ConfigMap\n  updated:\n" + cm("a", "v2")},
}

// TestInlineListsDecodedInParallel: a functionConfig whose inline lists are decoded on
// all cores (cut at their elements) is the node tree decoded whole gives, line numbers
// included, or the same error; and the output of krm-merge on the list has the same bytes
// (or the same error). Where the cut cannot be made, the text is decoded whole.
func TestInlineListsDecodedInParallel(t *testing.T) {
	inputs := map[string][]byte{}
	for _, c := range inlineCases {
		in := []byte(inlineList(c.fc, c.fcFirst))
		inputs[c.name] = in
		for _, run := range []struct {
			size int
			want bool
		}{{1, c.cut}, {1 << 20, c.one}} {
			got, used, gerr := resourcelist.DecodeHead(in, true, run.size)
			want, _, werr := resourcelist.DecodeHead(in, false, run.size)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Errorf("%s, runs of %d bytes: errors differ: cut %v, whole %v", c.name, run.size, gerr, werr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, runs of %d bytes: the cut decode differs from the whole one", c.name, run.size)
			}
			if used != run.want {
				t.Errorf("%s, runs of %d bytes: cut %v, want %v", c.name, run.size, used, run.want)
			}
		}
	}
	for _, inline := range []bool{false, true} {
		var b bytes.Buffer
		rel := filepath.Join(data, "ingress-nginx")
		if _, err := gen.Upgrade(&b, filepath.Join(rel, "controller-v1.12.0"), filepath.Join(rel, "controller-v1.13.0"), inline); err != nil {
			t.Fatal(err)
		}
		inputs[fmt.Sprintf("ingress-nginx upgrade, inline %v", inline)] = b.Bytes()
	}
	for name, in := range inputs {
		outputs := [2]string{}
		for i, cut := range []bool{true, false} {
			restore := resourcelist.SetCutInline(cut)
			out, err, _ := fast(function.Processor{}, append([]byte(nil), in...))
			restore()
			outputs[i] = fmt.Sprintf("%s\nerror: %v", out, err)
		}
		if outputs[0] != outputs[1] {
			t.Errorf("%s: the output differs from the functionConfig's decode whole:\ncut:\n%s\nwhole:\n%s", name, outputs[0], outputs[1])
		}
	}
}
