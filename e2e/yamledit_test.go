package e2e

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// yamlFile is one file of a package, parsed one RNode per document so it can be edited
// by code and written back. kyaml re-serialises an unedited document byte for byte (the
// manifests use kyaml's own style), so editing one document leaves the others untouched.
type yamlFile struct {
	path string
	docs []*yaml.RNode
}

func loadYAMLFile(t *testing.T, path string) *yamlFile {
	t.Helper()
	f := &yamlFile{path: path}
	for i, d := range splitDocs(readFile(t, path)) {
		n, err := yaml.Parse(d)
		if err != nil {
			t.Fatalf("%s: document %d: %v", path, i, err)
		}
		f.docs = append(f.docs, n)
	}
	return f
}

func (f *yamlFile) save(t *testing.T) {
	t.Helper()
	var parts []string
	for _, d := range f.docs {
		s, err := d.String()
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, s)
	}
	writeFile(t, f.path, []byte(strings.Join(parts, "---\n")))
}

// find returns the document with that kind and name, failing the test if absent.
func (f *yamlFile) find(t *testing.T, kind, name string) *yaml.RNode {
	t.Helper()
	for _, d := range f.docs {
		if d.GetKind() == kind && d.GetName() == name {
			return d
		}
	}
	t.Fatalf("%s: no %s %s", f.path, kind, name)
	return nil
}

// remove drops the document with that kind and name, failing the test if absent.
func (f *yamlFile) remove(t *testing.T, kind, name string) {
	t.Helper()
	for i, d := range f.docs {
		if d.GetKind() == kind && d.GetName() == name {
			f.docs = append(f.docs[:i], f.docs[i+1:]...)
			return
		}
	}
	t.Fatalf("%s: no %s %s to remove", f.path, kind, name)
}

// insertAfter inserts n after the document with that kind and name.
func (f *yamlFile) insertAfter(t *testing.T, kind, name string, n *yaml.RNode) {
	t.Helper()
	for i, d := range f.docs {
		if d.GetKind() == kind && d.GetName() == name {
			f.docs = append(f.docs[:i+1], append([]*yaml.RNode{n}, f.docs[i+1:]...)...)
			return
		}
	}
	t.Fatalf("%s: no %s %s to insert after", f.path, kind, name)
}

func lookup(t *testing.T, n *yaml.RNode, path ...string) *yaml.RNode {
	t.Helper()
	v, err := n.Pipe(yaml.Lookup(path...))
	if err != nil {
		t.Fatalf("%s: lookup %v: %v", idOf(n), path, err)
	}
	return v
}

func mustLookup(t *testing.T, n *yaml.RNode, path ...string) *yaml.RNode {
	t.Helper()
	v := lookup(t, n, path...)
	if v == nil {
		t.Fatalf("%s: %s is absent", idOf(n), strings.Join(path, "."))
	}
	return v
}

// setField sets path (map fields, or [k=v] list elements that must exist) to value,
// given as YAML (e.g. `3`, `"true"`, `{a: b}`).
func setField(t *testing.T, n *yaml.RNode, value string, path ...string) {
	t.Helper()
	parent, err := n.Pipe(yaml.LookupCreate(yaml.MappingNode, path[:len(path)-1]...))
	if err != nil || parent == nil {
		t.Fatalf("%s: create %v: %v", idOf(n), path, err)
	}
	v := parseValue(t, value)
	if err := parent.PipeE(yaml.SetField(path[len(path)-1], v)); err != nil {
		t.Fatal(err)
	}
}

// parseValue parses a YAML value written inline in a test; maps and lists come out in
// block style, as in the manifests.
func parseValue(t *testing.T, value string) *yaml.RNode {
	t.Helper()
	v, err := yaml.Parse(value)
	if err != nil {
		t.Fatalf("parse %q: %v", value, err)
	}
	var block func(n *yaml.Node)
	block = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
			n.Style = 0
		}
		for _, c := range n.Content {
			block(c)
		}
	}
	block(v.YNode())
	return v
}

// appendElement appends value (YAML) to the list at path.
func appendElement(t *testing.T, n *yaml.RNode, value string, path ...string) {
	t.Helper()
	list := mustLookup(t, n, path...)
	v := parseValue(t, value)
	list.YNode().Content = append(list.YNode().Content, v.YNode())
}

// commentField puts a line comment on (line=true) or a head comment above the key of
// the field at path.
func commentField(t *testing.T, n *yaml.RNode, comment string, line bool, path ...string) {
	t.Helper()
	parent := mustLookup(t, n, path[:len(path)-1]...)
	f := parent.Field(path[len(path)-1])
	if f == nil {
		t.Fatalf("%s: no field %v to comment", idOf(n), path)
	}
	if line {
		f.Value.YNode().LineComment = comment
	} else {
		f.Key.YNode().HeadComment = comment
	}
}

// scalar returns the value at path ("" when absent).
func scalar(t *testing.T, n *yaml.RNode, path ...string) string {
	t.Helper()
	v := lookup(t, n, path...)
	if v == nil {
		return ""
	}
	return v.YNode().Value
}

// wantScalar checks the value at path.
func wantScalar(t *testing.T, r resource, want string, path ...string) {
	t.Helper()
	if got := scalar(t, r.Node, path...); got != want {
		t.Errorf("%s (%s): %s = %q, want %q", idOf(r.Node), r.File, strings.Join(path, "."), got, want)
	}
}

// stringList returns the scalar elements of the list at path.
func stringList(t *testing.T, n *yaml.RNode, path ...string) []string {
	t.Helper()
	v := lookup(t, n, path...)
	if v == nil {
		return nil
	}
	var out []string
	for _, e := range v.YNode().Content {
		out = append(out, e.Value)
	}
	return out
}

// keyedNames returns the `name` of each element of the list at path, in order.
func keyedNames(t *testing.T, n *yaml.RNode, path ...string) []string {
	t.Helper()
	v := lookup(t, n, path...)
	if v == nil {
		return nil
	}
	els, err := v.Elements()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range els {
		out = append(out, scalar(t, e, "name"))
	}
	return out
}

// ---------------------------------------------------------------------------
// git
