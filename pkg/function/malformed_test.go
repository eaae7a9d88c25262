package function_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/testsupport"
	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/function"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

const rlHead = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"

// cmItem is a ConfigMap item x in f.yaml with the given metadata lines (indented under
// metadata:) added.
func cmItem(meta string) string {
	return "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n" + meta + "  data: {a: b}\n"
}

// malformedInputs are ResourceLists of a wrong shape, each with the field the error
// result must name and text its message must hold.
var malformedInputs = []struct{ name, in, field, msg string }{
	// the list
	{"items a map", rlHead + "items: {a: 1}\n", "items", "the ResourceList's items is a map; it is a list of KRM resources"},
	{"items a scalar", rlHead + "items: 5\n", "items", `is a scalar ("5")`},
	{"items a string", rlHead + "items: abc\n", "items", `is a scalar ("abc")`},
	{"items an alias", rlHead + "x: &i [{kind: A}]\nitems: *i\n", "items", "is an alias (*i)"},
	{"list apiVersion a list", "apiVersion: [config.kubernetes.io/v1]\nkind: ResourceList\nitems: []\n", "apiVersion",
		"the ResourceList's apiVersion is a list; it is a string: config.kubernetes.io/v1"},
	{"list metadata a scalar", "kind: List\nitems:\nmetadata: a\n", "metadata", `the List's metadata is a scalar ("a")`},
	{"List items a scalar", "apiVersion: v1\nkind: List\nitems: x\n", "items", "the List's items is a scalar"},
	{"ResourceList without items", rlHead, "items", "has neither items nor functionConfig"},
	{"ResourceList among documents", rlHead + "items: []\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n", "",
		"document 0 is a ResourceList among 2 documents"},
	{"input a list", "- a\n- b\n", "", "the input is a list; it is a ResourceList"},
	{"input a scalar", "hello\n", "", `the input is a scalar ("hello")`},
	// items
	{"scalar items", rlHead + "items: [1, \"x\"]\n", "", `items[0]: the item is a scalar ("1")`},
	{"null item", rlHead + "items:\n- null\n", "", "items[0]: the item is null (empty)"},
	{"list item", rlHead + "items:\n- [a, b]\n", "", "items[0]: the item is a list"},
	{"alias item", rlHead + "items:\n- &a {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n- *a\n", "", "items[1]: the item is an alias (*a)"},
	{"metadata a list", rlHead + "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: [a]\n", "metadata", "items[0]: metadata is a list"},
	{"metadata a scalar", rlHead + "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: x\n", "metadata", `items[0]: metadata is a scalar ("x")`},
	{"metadata an alias", rlHead + "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: &m {name: a}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: *m\n",
		"metadata", "items[1]: metadata is an alias (*m)"},
	{"annotations a list", rlHead + "items:\n" + cmItem("    annotations: [a, b]\n"), "metadata.annotations", "items[0]: metadata.annotations is a list"},
	{"annotations a scalar", rlHead + "items:\n" + cmItem("    annotations: x\n"), "metadata.annotations", `metadata.annotations is a scalar ("x")`},
	{"annotations an alias", rlHead + "items:\n" + cmItem("    annotations: &a {p: q}\n") + cmItem("    annotations: *a\n"),
		"metadata.annotations", "items[1]: metadata.annotations is an alias (*a)"},
	{"annotation value a list", rlHead + "items:\n" + cmItem("    annotations: {config.kubernetes.io/merge-source: [dest]}\n"),
		"metadata.annotations.config.kubernetes.io/merge-source", "is a list; an annotation value is a string"},
	{"labels a list", rlHead + "items:\n" + cmItem("    labels: [a]\n"), "metadata.labels", "metadata.labels is a list"},
	{"name a map", rlHead + "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: {a: b}}\n", "metadata.name", "metadata.name is a map"},
	{"namespace a list", rlHead + "items:\n" + cmItem("    namespace: [a]\n"), "metadata.namespace", "metadata.namespace is a list"},
	{"kind a map", rlHead + "items:\n- apiVersion: v1\n  kind: {a: b}\n  metadata: {name: a}\n", "kind", "kind is a map"},
	{"apiVersion a list", rlHead + "items:\n- apiVersion: [v1]\n  kind: ConfigMap\n  metadata: {name: a}\n", "apiVersion", "apiVersion is a list"},
	{"stream item malformed", "apiVersion: v1\nkind: ConfigMap\nmetadata: [a]\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
		"metadata", "items[0]: metadata is a list"},
	// an alias inside its own anchor: walking it never ended (a stack overflow killed the process)
	{"recursive alias in an item", rlHead + "items:\n- &m\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: x}\n  data: {a: *m}\n", "",
		"a YAML alias is used inside the value of its own anchor"},
	{"recursive alias in the data", rlHead + "items:\n" + cmItem("") + "  extra: &e {a: [*e]}\n", "",
		"a YAML alias is used inside the value of its own anchor"},
	{"recursive alias in the functionConfig", rlHead + "items: []\nfunctionConfig: &f\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: x}\n  data: {a: *f}\n",
		"", "functionConfig: cannot expand YAML aliases"},
	// host annotations kyaml keeps in step
	{"path annotations differ", rlHead + "items:\n" + cmItem("    annotations: {internal.config.kubernetes.io/path: a.yaml, config.kubernetes.io/path: b.yaml}\n"),
		"metadata.annotations.config.kubernetes.io/path", `internal.config.kubernetes.io/path "a.yaml" and config.kubernetes.io/path "b.yaml" differ`},
	{"annotation formats mixed", rlHead + "items:\n" + cmItem("    annotations: {internal.config.kubernetes.io/path: a.yaml}\n") +
		cmItem("    annotations: {config.kubernetes.io/path: b.yaml}\n"), "metadata.annotations", "uses the legacy host annotations"},
	// path annotations (roles)
	{"NUL in a path annotation", rlHead + "items:\n" + cmItem("    annotations: {internal.config.kubernetes.io/path: \"a\\0.yaml\"}\n"),
		"metadata.annotations.internal.config.kubernetes.io/path", `"a\x00.yaml" holds a control character`},
	{"NUL in a legacy path annotation", rlHead + "items:\n" + cmItem("    annotations: {config.kubernetes.io/path: \"a\\0.yaml\", config.kubernetes.io/merge-source: dest}\n"),
		// kyaml's preprocessing copies it to the internal annotation, which is checked first
		"metadata.annotations.internal.config.kubernetes.io/path", "holds a control character"},
	// the functionConfig
	{"functionConfig a list", rlHead + "items: []\nfunctionConfig: [a]\n", "", "functionConfig: must be a map"},
	{"functionConfig metadata a list", rlHead + "items: []\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: [x]\n",
		"metadata", "functionConfig: metadata is a list"},
	{"functionConfig annotations a scalar", rlHead + "items: []\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: x, annotations: x}\n",
		"metadata.annotations", "functionConfig: metadata.annotations is a scalar"},
	{"functionConfig kind a map", rlHead + "items: []\nfunctionConfig:\n  apiVersion: v1\n  kind: {a: b}\n", "kind", "functionConfig: kind is a map"},
	// inline sources
	{"inline item leaving the package", rlHead + "items: []\nfunctionConfig:\n  apiVersion: fn.krm-merge.dev/v1alpha1\n  kind: ResourceMerge\n" +
		"  metadata: {name: m}\n  spec:\n    original: []\n    updated:\n    - apiVersion: v1\n      kind: ConfigMap\n      metadata:\n        name: x\n" +
		"        annotations: {internal.config.kubernetes.io/path: ../../x.yaml}\n",
		"metadata.annotations.internal.config.kubernetes.io/path", `"../../x.yaml" leaves the package root`},
	{"inline item annotations a list", rlHead + "items: []\nfunctionConfig:\n  apiVersion: fn.krm-merge.dev/v1alpha1\n  kind: ResourceMerge\n" +
		"  metadata: {name: m}\n  spec:\n    original: []\n    updated:\n    - apiVersion: v1\n      kind: ConfigMap\n      metadata:\n        name: x\n" +
		"        annotations: [a]\n",
		"metadata.annotations", "functionConfig spec.updated[0]: metadata.annotations is a list"},
	// path keys
	{"updatedPath leaving the package by backslashes", rlHead + "items: []\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: x}\n" +
		"  data: {originalPath: o, updatedPath: 'u\\..\\..', destPath: d}\n", "data.updatedPath", `updatedPath "u\\..\\.." leaves the package root`},
}

// Every malformed input shape ends the run as docs/function.md says of bad input: an
// error, a ResourceList on stdout with an error result naming the field, and no items.
// Driven as the binary reads stdin (runStdin: the fast reader, or inputcheck.ResourceList and
// kyaml's path for input it declines).
func TestMalformedInputIsAnErrorResult(t *testing.T) {
	for _, tc := range malformedInputs {
		t.Run(tc.name, func(t *testing.T) {
			rl, err := runStdin(t, tc.in)
			if err == nil {
				t.Fatalf("the run succeeded:\n%s", rl.MustString())
			}
			checkFailure(t, rl, tc.in)
			rs, _ := rl.Pipe(yaml.Lookup("results"))
			els, _ := rs.Elements()
			for _, r := range els {
				msg, _ := r.Pipe(yaml.Lookup("message"))
				field, _ := r.Pipe(yaml.Lookup("field", "path"))
				f := ""
				if field != nil {
					f = field.YNode().Value
				}
				if msg != nil && strings.Contains(msg.YNode().Value, tc.msg) && f == tc.field {
					return
				}
			}
			t.Errorf("no error result with field %q and message %q:\n%s", tc.field, tc.msg, resultsOf(rl))
		})
	}
}

// checkFailure checks the output of a failed run: a ResourceList (or List), at least one error
// result, no items, and no control character in any result (results reach a terminal).
func checkFailure(t *testing.T, rl *yaml.RNode, in string) {
	t.Helper()
	if k := rl.GetKind(); k != "ResourceList" && k != "List" { // kyaml answers a List with a List
		t.Fatalf("a failed run wrote no ResourceList:\n%s\ninput:\n%s", rl.MustString(), in)
	}
	if n := len(items2(t, rl)); n != 0 {
		t.Fatalf("a failed run wrote %d items; input:\n%s", n, in)
	}
	rs, _ := rl.Pipe(yaml.Lookup("results"))
	if rs == nil {
		t.Fatalf("a failed run wrote no results; input:\n%s\noutput:\n%s", in, rl.MustString())
	}
	els, _ := rs.Elements()
	errs := 0
	for _, r := range els {
		if s, _ := r.Pipe(yaml.Lookup("severity")); s != nil && s.YNode().Value == "error" {
			errs++
		}
	}
	if errs == 0 {
		t.Fatalf("a failed run wrote no error result; input:\n%s\nresults:\n%s", in, resultsOf(rl))
	}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if strings.ContainsFunc(n.Value, func(r rune) bool { return r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 }) {
			t.Errorf("a result holds a control character: %q", n.Value)
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(rs.YNode())
}

// The library path (Run, as pkg/filter, pkg/kptsdk and pkg update call it, with items
// another reader made) names a malformed head too, instead of panicking in kyaml's
// annotation reads (an internal error).
func TestRunRefusesMalformedHeads(t *testing.T) {
	for _, tc := range []struct{ item, field, msg string }{
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, annotations: [a]}\n", "metadata.annotations", "items[1]: metadata.annotations is a list"},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: [a]\n", "metadata", "items[1]: metadata is a list"},
		{"[a]\n", "", "items[1]: the item is a list"},
	} {
		ok := yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n")
		bad, err := yaml.Parse(tc.item)
		if err != nil {
			t.Fatal(err)
		}
		_, err = function.Run([]*yaml.RNode{ok, bad}, config.Defaults())
		var ie *vocab.ItemError
		if !errors.As(err, &ie) || ie.Field != tc.field || !strings.Contains(ie.Msg, tc.msg) {
			t.Errorf("%q: %v, want field %q and %q", tc.item, err, tc.field, tc.msg)
		}
	}
	// the processor, as kptsdk and filter run it
	rl := &framework.ResourceList{Items: []*yaml.RNode{yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, annotations: x}\n")}}
	if err := (function.Processor{}).Process(rl); err == nil || strings.Contains(err.Error(), "internal error") ||
		!strings.Contains(err.Error(), "metadata.annotations is a scalar") {
		t.Errorf("Process: %v", err)
	}
}

// FuzzMalformedInput: for any input on stdin, the run as the binary does it (runStdin)
// either succeeds with YAML on stdout (nothing for empty input), or fails with a
// ResourceList holding an error result, no items, and no control character in its
// results (docs/function.md, "Bad input"); or, for a stream of resources that is no
// ResourceList, with nothing on stdout (kyaml writes such a run's results to stderr). Seeds: the malformed shapes above, every e2e package read as kpt reads it,
// and each seed's head fields replaced by a list, a map, a scalar, null or an alias.
func FuzzMalformedInput(f *testing.F) {
	testsupport.SetupFuzz(f)
	for _, tc := range malformedInputs {
		f.Add(tc.in)
	}
	f.Add("C: \ns:\n- &m\n  a: *m\n") // the first finding: a stream whose alias is inside its anchor crashed the process
	for _, in := range aliasesAcrossItems() {
		f.Add(in)
	}
	for _, fc := range testsupport.SeedFnConfigs(f) {
		f.Add(rlHead + "items:\n" + cmItem("    annotations: {config.kubernetes.io/merge-source: dest, internal.config.kubernetes.io/path: f.yaml}\n") +
			"functionConfig:\n  " + strings.ReplaceAll(strings.TrimRight(fc, "\n"), "\n", "\n  ") + "\n")
	}
	base := rlHead + "a: &a {l: v}\nitems:\n" +
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n    labels:\n      l: v\n    annotations:\n      config.kubernetes.io/merge-source: dest\n" +
		"functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: fc\n"
	for _, field := range []string{"apiVersion", "kind", "metadata", "name", "annotations", "labels", "items", "functionConfig"} {
		for _, v := range []string{"[a]", "{a: b}", "x", "", "*a", "[*a]"} {
			f.Add(replaceField(base, field, v))
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		defer testsupport.Guard(t, in)()
		if len(in) > 16<<10 {
			return
		}
		out, err := stdinOutput(in)
		if err == nil { // a ResourceList, a stream of resources (input that was one), or nothing (empty input)
			if _, rerr := (&kio.ByteReader{Reader: strings.NewReader(out), OmitReaderAnnotations: true}).Read(); rerr != nil {
				t.Fatalf("a successful run wrote output that is not YAML: %v\ninput:\n%s\noutput:\n%s", rerr, in, out)
			}
			return
		}
		if out == "" && !isResourceList(in) {
			return // a stream of resources, as standalone runs read: the error goes to stderr, nothing to stdout
		}
		rl, perr := yaml.Parse(out)
		if perr != nil {
			t.Fatalf("a failed run wrote no ResourceList (%v): %v\ninput:\n%s\noutput:\n%s", err, perr, in, out)
		}
		checkFailure(t, rl, in)
	})
}

// aliasesAcrossItems are ResourceLists (each under the fuzz input size) whose items alias
// anchors written in other items: within the bound (a shared label map), and a bomb
// spread across items (each item adding 111,111 nodes, under the per-item bound; eleven
// of them pass the list's), with the anchor first, last, and in the functionConfig's
// neighbour field.
func aliasesAcrossItems() []string {
	laughs := "  data:\n    l1: &l1 [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 2; i <= 5; i++ {
		laughs += fmt.Sprintf("    l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	anchor := "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: anchor\n" + laughs
	var users strings.Builder
	for i := range 11 {
		fmt.Fprintf(&users, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c%d\n  data: {x: *l5}\n", i)
	}
	return []string{
		rlHead + "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a, labels: &l {app: x}}\n" +
			"- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b}\n  data: *l\n",
		rlHead + "items:\n" + anchor + users.String(),
		rlHead + "x: &l5 [1, 2]\nitems:\n" + users.String(),
		rlHead + "items:\n" + anchor + users.String() + "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: fc}\n",
	}
}

// isResourceList reports whether kyaml reads in as a ResourceList (or List) rather than
// as a stream of resources.
func isResourceList(in string) bool {
	br := &kio.ByteReader{Reader: strings.NewReader(in), OmitReaderAnnotations: true}
	_, err := br.Read()
	return err != nil || br.WrappingKind != ""
}

// replaceField replaces the value of every field named field in the YAML text in (a
// block map, one field a line) by v, dropping the lines of its old block value.
func replaceField(in, field, v string) string {
	var out []string
	skip := -1
	for _, line := range strings.Split(in, "\n") {
		indent := len(line) - len(strings.TrimLeft(line, " -"))
		if skip >= 0 && indent > skip && strings.TrimSpace(line) != "" {
			continue
		}
		skip = -1
		if strings.HasPrefix(strings.TrimLeft(line, " -"), field+":") {
			out = append(out, line[:indent]+field+": "+v)
			skip = indent
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// Results are scrubbed for the terminal kpt prints them on: a key with an escape sequence
// in a conflict's field path is escaped, and an item whose name holds one is refused
// with no resourceRef (the message names items[i]).
func TestResultsCarryNoControlCharacters(t *testing.T) {
	in := rlHead + "items:\n" +
		"- {apiVersion: v1, kind: ConfigMap, metadata: {name: a, annotations: {config.kubernetes.io/merge-source: original}}, data: {\"k\\e[2J\": a}}\n" +
		"- {apiVersion: v1, kind: ConfigMap, metadata: {name: a, annotations: {config.kubernetes.io/merge-source: updated}}, data: {\"k\\e[2J\": b}}\n" +
		"- {apiVersion: v1, kind: ConfigMap, metadata: {name: a, annotations: {config.kubernetes.io/merge-source: dest}}, data: {\"k\\e[2J\": c}}\n"
	rl, err := runStdin(t, in)
	if err != nil {
		t.Fatal(err)
	}
	if res := resultsOf(rl); strings.ContainsRune(res, 0x1b) || !strings.Contains(res, `data.k\x1b[2J`) {
		t.Errorf("results:\n%s", res)
	}
	rl, err = runStdin(t, rlHead+"items:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: \"a\\e]0;x\\a\"}}\n")
	if err == nil {
		t.Fatal("a name with an escape sequence passed")
	}
	checkFailure(t, rl, "")
	if res := resultsOf(rl); strings.Contains(res, "resourceRef") || !strings.Contains(res, `items[0]: metadata.name holds a control character ("a\x1b]0;x\a")`) {
		t.Errorf("results:\n%s", res)
	}
}
