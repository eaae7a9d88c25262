package function_test

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/bounds"
	"github.com/krm-merge/krm-merge/internal/testsupport"
	"github.com/krm-merge/krm-merge/pkg/function"
	"github.com/krm-merge/krm-merge/pkg/function/internal/inputcheck"
	"github.com/krm-merge/krm-merge/pkg/function/internal/resourcelist"
)

// repeated is the oracle for a map key given twice: the first map in preorder (keys'
// contents before their values; aliases not followed: an anchor comes before its
// aliases) with a scalar key, other than the merge key <<, equal to an earlier key of
// the map by tag and value; the first such key and the earliest key it repeats. path is
// the map's path as results spell it ("" inside a key).
type repeated struct {
	path          string
	first, second *yaml.Node
}

func findRepeated(n *yaml.Node, path string) *repeated {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if r := findRepeated(c, path); r != nil {
				return r
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			ki := n.Content[i]
			if ki.Kind != yaml.ScalarNode || ki.Value == "<<" {
				continue
			}
			for j := 0; j < i; j += 2 {
				kj := n.Content[j]
				if kj.Kind == yaml.ScalarNode && kj.Value == ki.Value && kj.ShortTag() == ki.ShortTag() {
					return &repeated{path, kj, ki}
				}
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			// a map or list used as a key is walked too (before its value), but has no
			// path: results name no place inside a key
			if k := n.Content[i]; k.Kind != yaml.ScalarNode {
				if r := findRepeated(k, ""); r != nil {
					r.path = ""
					return r
				}
			}
			p := n.Content[i].Value
			if path != "" {
				p = path + "." + p
			}
			if r := findRepeated(n.Content[i+1], p); r != nil {
				return r
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if r := findRepeated(c, path+"["+strconv.Itoa(i)+"]"); r != nil {
				return r
			}
		}
	}
	return nil
}

// keyPath is the repeated key's path, as RepeatedKey.Path and the results spell it.
func (r *repeated) keyPath() string {
	if r.path == "" {
		return r.second.Value
	}
	return r.path + "." + r.second.Value
}

// where is what the error says of the two keys' places, lines and columns counted from
// root's (the item's) as 1.
func (r *repeated) where(root *yaml.Node) string {
	l1, l2 := r.first.Line-root.Line+1, r.second.Line-root.Line+1
	if l1 == l2 {
		return fmt.Sprintf("on line %d of the resource, columns %d and %d", l1, r.first.Column-root.Column+1, r.second.Column-root.Column+1)
	}
	return fmt.Sprintf("at lines %d and %d of the resource", l1, l2)
}

// FuzzRepeatedKeys: a map key given twice is always found and always refused. For any
// YAML text, bounds.Check reports the repeated key the oracle finds (findRepeated: the
// same map, key, path, lines and columns) and none where there is none. Appended to an
// item's fields (a ConfigMap named x in file f.yaml) in a ResourceList read as the binary
// reads stdin (runStdin), the function fails with an error result that names the
// resource, the file, the key's path in field.path and both lines (or columns) in the
// message, and writes no items; an item without a repeated key passes. Seeds: the
// repository's YAML documents, with and without a repeated key; the first finding
// (12d4c98d0a98201c: `annotations` again, empty, which kyaml's annotation edits dropped
// before the function's check).
func FuzzRepeatedKeys(f *testing.F) {
	testsupport.SetupFuzz(f)
	for i, d := range testsupport.SeedDocs(f) {
		if i%3 == 0 {
			d += "\napiVersion: again\n"
		}
		f.Add(d)
	}
	f.Add("spec:\n  a: 1\n  b: [{k: 1, k: 2}]\n  a: 3\n")
	f.Add("data: {x: 1, \"x\": 2, 1: a, \"1\": b, y: &m {q: 1, q: 2}, z: *m}\n")
	f.Add("data:\n  <<: {a: 1}\n  <<: {b: 2}\n  ? [c]\n  : 1\n  ? [c]\n  : 2\n")
	f.Fuzz(func(t *testing.T, doc string) {
		defer testsupport.Guard(t, doc)()
		n, err := yaml.Parse(doc)
		if err != nil {
			return
		}
		checkBounds(t, n.YNode())
		if n.YNode().Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.YNode().Content); i += 2 {
			switch n.YNode().Content[i].Value {
			case "apiVersion", "kind", "metadata": // the item's own: its identity would change
				return
			}
		}
		item := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n    internal.config.kubernetes.io/path: f.yaml\n" + doc
		list := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- " +
			strings.ReplaceAll(strings.TrimRight(item, "\n"), "\n", "\n  ") + "\n"
		parsed, err := yaml.Parse(list)
		if err != nil {
			return
		}
		its, _ := parsed.Pipe(yaml.Lookup("items"))
		if its == nil || len(its.YNode().Content) != 1 {
			return
		}
		root := its.YNode().Content[0]
		if r := bounds.Check(root); r.TooExpanded || root.Kind != yaml.MappingNode || !headIntact(root) {
			return
		}
		want := findRepeated(root, "")
		rl, err := runStdin(t, list)
		if want == nil {
			if err != nil && strings.Contains(resultsOf(rl), "given twice") {
				t.Fatalf("no repeated key, but the run says there is one:\n%s", resultsOf(rl))
			}
			return
		}
		if err == nil {
			t.Fatalf("key %q repeated at %s, but the run succeeded:\n%s", want.second.Value, want.keyPath(), list)
		}
		if n := len(items2(t, rl)); n != 0 {
			t.Fatalf("a failed run wrote %d items", n)
		}
		checkRepeatedResult(t, rl, want, root, list)
	})
}

// headIntact reports whether item's metadata is still the one FuzzRepeatedKeys wrote,
// name and one path annotation: an indented doc lands inside it (its keys become
// annotations), where an item's head checks own the error, which may name another
// problem of the head before the repeated key (fff4e8cfd8b85420: an annotation whose
// value is a map, given twice).
func headIntact(item *yaml.Node) bool {
	for i := 0; i+1 < len(item.Content); i += 2 {
		if item.Content[i].Value != "metadata" {
			continue
		}
		meta := item.Content[i+1]
		if meta.Kind != yaml.MappingNode || len(meta.Content) != 4 || meta.Content[2].Value != "annotations" {
			return false
		}
		annos := meta.Content[3]
		return annos.Kind == yaml.MappingNode && len(annos.Content) == 2
	}
	return false
}

// runStdin runs the function on a ResourceList as the binary does on stdin (main.go):
// the fast reader, or, for input it declines, inputcheck.ResourceList and kyaml's path.
func runStdin(t *testing.T, list string) (*yaml.RNode, error) {
	t.Helper()
	out, err := stdinOutput(list)
	rl, perr := yaml.Parse(out)
	if perr != nil {
		t.Fatalf("output is not YAML: %v\n%s", perr, out)
	}
	return rl, err
}

// stdinOutput is runStdin's run: what the binary writes to stdout, and its error.
func stdinOutput(list string) (string, error) {
	var out, errw bytes.Buffer
	kyamlPath := func(in io.Reader) error {
		in, err := inputcheck.ResourceList(in, &out)
		if err != nil {
			return err
		}
		return framework.Execute(function.Processor{}, &kio.ByteReadWriter{Reader: in, Writer: &out, KeepReaderAnnotations: true})
	}
	err := resourcelist.Run(function.Processor{}, strings.NewReader(list), &out, &errw, kyamlPath, resourcelist.Memory{})
	return out.String(), err
}

// checkBounds compares bounds.Check with the oracle on a parsed text.
func checkBounds(t *testing.T, root *yaml.Node) {
	t.Helper()
	want := findRepeated(root, "")
	got := bounds.Check(root).Repeated
	switch {
	case want == nil && got == nil:
	case want == nil:
		t.Fatalf("bounds.Check reports %+v, the oracle none", got)
	case got == nil:
		t.Fatalf("bounds.Check finds no repeated key, the oracle %q at %s (lines %d and %d)", want.second.Value,
			want.keyPath(), want.first.Line, want.second.Line)
	default:
		w := bounds.RepeatedKey{Path: want.keyPath(), Key: want.second.Value,
			FirstLine: want.first.Line - root.Line + 1, SecondLine: want.second.Line - root.Line + 1,
			FirstColumn: want.first.Column - root.Column + 1, SecondColumn: want.second.Column - root.Column + 1}
		if *got != w {
			t.Fatalf("bounds.Check: %+v, want %+v", *got, w)
		}
	}
}

// checkRepeatedResult finds the run's error result about the repeated key and checks
// that it names the resource, the file, the key path and the two places.
func checkRepeatedResult(t *testing.T, rl *yaml.RNode, want *repeated, root *yaml.Node, list string) {
	t.Helper()
	rs, _ := rl.Pipe(yaml.Lookup("results"))
	if rs == nil {
		t.Fatalf("no results")
	}
	els, _ := rs.Elements()
	get := func(n *yaml.RNode, path ...string) string {
		v, _ := n.Pipe(yaml.Lookup(path...))
		if v == nil {
			return ""
		}
		return v.YNode().Value
	}
	for _, r := range els {
		msg := get(r, "message")
		if !strings.Contains(msg, "given twice") {
			continue
		}
		sev, path, file := get(r, "severity"), get(r, "field", "path"), get(r, "file", "path")
		kind, name := get(r, "resourceRef", "kind"), get(r, "resourceRef", "name")
		if sev != "error" || path != want.keyPath() || file != "f.yaml" || kind != "ConfigMap" || name != "x" ||
			!strings.Contains(msg, strconv.Quote(want.second.Value)) || !strings.Contains(msg, want.where(root)) {
			t.Fatalf("result %q (severity %s, field %q, file %q, resource %s %s), want key %q at %s, %s, in f.yaml of ConfigMap x\ninput:\n%s",
				msg, sev, path, file, kind, name, want.second.Value, want.keyPath(), want.where(root), list)
		}
		return
	}
	t.Fatalf("no result names the repeated key:\n%s", rl.MustString())
}
