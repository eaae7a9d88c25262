package yamlenc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/bench/gen"
)

// upstreamData holds the real upstream manifests, committed at testdata/upstream in
// the repository root; tests that read it fail when it is absent.
const upstreamData = "../../../../testdata/upstream"

// requireUpstream returns upstreamData's subdirectory dir ("" for all of it), failing
// t when it is not there.
func requireUpstream(t testing.TB, dir string) string {
	t.Helper()
	p := filepath.Join(upstreamData, dir)
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		t.Fatalf("upstream test data not found at %s (testdata/upstream at the repository root)", p)
	}
	return p
}

// oracle is what kyaml's encoder writes for items as the items of `items:`, without
// the first line "items:\n": the bytes AppendItem must reproduce.
func oracle(items ...*yaml.Node) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml.v3 panicked: %v", r)
		}
	}()
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "items"}, {Kind: yaml.SequenceNode, Content: items},
	}}}}
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	if !bytes.HasPrefix(b, []byte("items:\n")) {
		return nil, fmt.Errorf("oracle output does not start with items: %q", b)
	}
	return b[len("items:\n"):], nil
}

// check runs AppendItem on n (after a prefix, which must survive) and, when it
// accepts, compares its bytes with the oracle's; it reports whether AppendItem
// accepted n and fails t on any difference, or where ItemOnAllCores does not
// answer as AppendItem does.
func check(t testing.TB, what string, n *yaml.Node) bool {
	t.Helper()
	const prefix = "prefix\n"
	dst := make([]byte, len(prefix), len(prefix)+8)
	copy(dst, prefix)
	got, ok := AppendItem(dst, n)
	if pieces, allOK := ItemOnAllCores(n); allOK != ok || ok && !bytes.Equal(append([]byte(prefix), bytes.Join(pieces, nil)...), got) {
		t.Fatalf("%s: ItemOnAllCores differs from AppendItem (accepted %v, %v)\n%s", what, allOK, ok,
			diff(append([]byte(prefix), bytes.Join(pieces, nil)...), got))
	}
	if !ok {
		if len(got) != len(prefix) || string(got) != prefix {
			t.Fatalf("%s: declined but dst changed to %q", what, got)
		}
		return false
	}
	if !bytes.HasPrefix(got, []byte(prefix)) {
		t.Fatalf("%s: dst's bytes changed: %q", what, got)
	}
	got = got[len(prefix):]
	want, err := oracle(n)
	if err != nil {
		t.Fatalf("%s: accepted, but yaml.v3 fails: %v\nAppendItem wrote:\n%s", what, err, got)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: bytes differ from yaml.v3\n%s", what, diff(got, want))
	}
	return true
}

// diff describes where got and want first differ.
func diff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := bytes.LastIndexByte(got[:i], '\n') + 1
	if from < i-400 {
		from = i - 400
	}
	end := func(b []byte) int { return min(len(b), i+200) }
	return fmt.Sprintf("first difference at byte %d\ngot:  %q\nwant: %q", i, got[from:end(got)], want[from:end(want)])
}

// decodeAll decodes every document of a YAML stream (documents yaml.v3 cannot decode
// end the stream).
func decodeAll(b []byte) []*yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var docs []*yaml.Node
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) || err != nil {
			return docs
		}
		if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
			docs = append(docs, doc.Content[0])
		}
	}
}

// yamlFile is one document of a file.
type yamlFile struct {
	name string
	docs []*yaml.Node
}

// readTree decodes every *.yaml and *.yml file under root.
func readTree(t testing.TB, root string) []yamlFile {
	t.Helper()
	var files []yamlFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, yamlFile{p, decodeAll(b)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// genItems returns the items of a generated ResourceList.
func genItems(t testing.TB, opts gen.Options) []*yaml.Node {
	t.Helper()
	var buf bytes.Buffer
	if _, err := gen.ResourceList(&buf, opts); err != nil {
		t.Fatal(err)
	}
	docs := decodeAll(buf.Bytes())
	if len(docs) != 1 {
		t.Fatalf("generated list: %d documents", len(docs))
	}
	for i := 0; i+1 < len(docs[0].Content); i += 2 {
		if docs[0].Content[i].Value == "items" {
			return docs[0].Content[i+1].Content
		}
	}
	t.Fatal("generated list has no items")
	return nil
}

// clone copies n deeply.
func clone(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	if n.Content != nil {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, x := range n.Content {
			c.Content[i] = clone(x)
		}
	}
	return &c
}

// walk calls f for n and every node under it, with its depth (n has depth 0).
func walk(n *yaml.Node, depth int, f func(n *yaml.Node, depth int)) {
	if n == nil {
		return
	}
	f(n, depth)
	for _, c := range n.Content {
		walk(c, depth+1, f)
	}
}
