package bounds

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// item parses one item as a ResourceList holds it (the map, not a document).
func item(t *testing.T, s string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("items:\n- "+strings.ReplaceAll(s, "\n", "\n  ")+"\n"), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0].Content[1].Content[0]
}

func TestBadHead(t *testing.T) {
	for _, tc := range []struct{ in, field, msg string }{
		// well-shaped heads
		{in: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: n, labels: {a: b}, annotations: {x: y, n: 1, e: }}\ndata: [not, checked]"},
		{in: "kind: ConfigMap"},
		{in: "apiVersion: v1\nkind: ConfigMap\nmetadata:"},
		{in: "metadata: {name: , annotations: , labels: ~}"},
		{in: "apiVersion: &v v1\nkind: ConfigMap\nmetadata: &m {name: a, annotations: &a {x: &x y}}"}, // anchors are fine
		{in: "{}"},
		// the item
		{in: "[a, b]", field: "", msg: "the item is a list; an item is a KRM resource: a map with apiVersion, kind and metadata"},
		{in: "x", field: "", msg: `the item is a scalar ("x")`},
		{in: "null", field: "", msg: "the item is null (empty)"},
		{in: "", field: "", msg: "the item is null (empty)"},
		// apiVersion and kind
		{in: "apiVersion: [v1]\nkind: ConfigMap", field: "apiVersion", msg: `apiVersion is a list; it is a string such as "apps/v1"`},
		{in: "kind: {a: b}", field: "kind", msg: `kind is a map; it is a string such as "Deployment"`},
		// control characters in the fields that name the resource
		{in: "kind: \"A\\e[31m\"", field: "kind", msg: `kind holds a control character ("A\x1b[31m")`},
		{in: "kind: A\nmetadata: {name: \"a\\nb\"}", field: "metadata.name", msg: `metadata.name holds a control character ("a\nb")`},
		{in: "kind: A\nmetadata: {namespace: \"a\\tb\"}", field: "metadata.namespace", msg: "holds a control character"},
		{in: "apiVersion: \"v1\\0\"\nkind: A", field: "apiVersion", msg: `apiVersion holds a control character ("v1\x00")`},
		{in: "kind: A\nmetadata: {name: a, annotations: {d: \"multi\\nline\"}}"}, // annotation values may hold anything
		// metadata
		{in: "kind: A\nmetadata: [a]", field: "metadata", msg: "metadata is a list; it is a map (name, namespace, labels, annotations)"},
		{in: "kind: A\nmetadata: x", field: "metadata", msg: `metadata is a scalar ("x")`},
		{in: "kind: A\nmetadata: {name: {a: b}}", field: "metadata.name", msg: "metadata.name is a map; it is a string"},
		{in: "kind: A\nmetadata: {namespace: [a]}", field: "metadata.namespace", msg: "metadata.namespace is a list"},
		// annotations and labels
		{in: "kind: A\nmetadata: {annotations: [a, b]}", field: "metadata.annotations",
			msg: "metadata.annotations is a list; it is a map of string keys to string values"},
		{in: "kind: A\nmetadata: {annotations: x}", field: "metadata.annotations", msg: `metadata.annotations is a scalar ("x")`},
		{in: "kind: A\nmetadata: {labels: [a]}", field: "metadata.labels", msg: "metadata.labels is a list"},
		{in: "kind: A\nmetadata: {annotations: {a: [b]}}", field: "metadata.annotations.a", msg: "metadata.annotations.a is a list; an annotation value is a string (quote it)"},
		{in: "kind: A\nmetadata: {labels: {a: {b: c}}}", field: "metadata.labels.a", msg: "metadata.labels.a is a map; a label value is a string"},
		{in: "kind: A\nmetadata: {annotations: {[a]: b}}", field: "metadata.annotations", msg: "metadata.annotations has a key that is a list; keys are strings"},
		// aliases and merge keys: kyaml reads these fields without following them
		{in: "kind: A\nx: &k B\napiVersion: *k", field: "apiVersion", msg: "apiVersion is an alias (*k); write the value out"},
		{in: "kind: A\nx: &m {name: a}\nmetadata: *m", field: "metadata", msg: "metadata is an alias (*m)"},
		{in: "kind: A\nx: &n a\nmetadata: {name: *n}", field: "metadata.name", msg: "metadata.name is an alias (*n)"},
		{in: "kind: A\nx: &a {p: q}\nmetadata: {annotations: *a}", field: "metadata.annotations", msg: "metadata.annotations is an alias (*a)"},
		{in: "kind: A\nx: &v dest\nmetadata: {annotations: {config.kubernetes.io/merge-source: *v}}",
			field: "metadata.annotations.config.kubernetes.io/merge-source", msg: "is an alias (*v)"},
		{in: "kind: A\nx: &a {p: q}\nmetadata: {annotations: {<<: *a}}", field: "metadata.annotations", msg: "metadata.annotations has a YAML merge key (<<); write the fields out"},
		{in: "kind: A\nx: &m {name: a}\nmetadata: {<<: *m}", field: "metadata", msg: "metadata has a YAML merge key (<<)"},
		{in: "x: &h {kind: A}\n<<: *h", field: "", msg: "the item has a YAML merge key (<<)"},
	} {
		f := BadHead(item(t, tc.in))
		switch {
		case tc.msg == "" && f != nil:
			t.Errorf("%q: %+v, want none", tc.in, f)
		case tc.msg == "":
		case f == nil:
			t.Errorf("%q: none, want %s: %s", tc.in, tc.field, tc.msg)
		case f.Field != tc.field || !strings.Contains(f.Message(), tc.msg):
			t.Errorf("%q: field %q message %q, want %q and %q", tc.in, f.Field, f.Message(), tc.field, tc.msg)
		}
	}
	if f := BadHead(nil); f == nil || f.Field != "" {
		t.Errorf("nil item: %+v", f)
	}
}

// A scalar item's value is quoted and cut: the message never carries control characters
// or a whole document.
func TestBadHeadQuotesScalars(t *testing.T) {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "\x1b[31m" + strings.Repeat("x", 200)}
	m := BadHead(n).Message()
	if strings.ContainsRune(m, 0x1b) || len(m) > 200 {
		t.Errorf("message %q", m)
	}
}

// An anchor used inside its own value (`&m {a: *m}`) expands without end: Check
// reports it (yaml.v3 builds the node graph with the cycle; walking it through the alias
// never ended, a stack overflow that killed the process), whether the anchored node is
// reached through an alias or directly, and whatever the depth of the alias in it.
func TestCheckRecursiveAlias(t *testing.T) {
	for _, in := range []string{
		"a: &m {b: *m}\n",
		"a: &m\n  b: [x, {c: *m}]\n",
		"- &m\n  a: *m\n",
		"a: &m {b: 1}\nc: *m\nd: &n [*n]\n",
		"a: &m {b: &n {c: *m}}\nd: *n\n",
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(in), &doc); err != nil {
			t.Fatal(err)
		}
		r := Check(&doc)
		if !r.RecursiveAlias || !r.TooExpanded || !r.HasAlias {
			t.Errorf("%q: %+v, want a recursive alias (too expanded)", in, r)
		}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("a: &m {b: 1}\nc: *m\nd: [*m, *m]\n"), &doc); err != nil {
		t.Fatal(err)
	}
	if r := Check(&doc); r.RecursiveAlias || r.TooExpanded {
		t.Errorf("an anchor used beside itself: %+v", r)
	}
}
