package resourcelist_test

// Properties on generated ResourceLists, through the function as the binary
// runs it (resourcelist.Execute with function.Processor, falling back to kyaml's reader
// as Run does): real-looking resources (Deployments with containers, env and ports,
// ConfigMaps with comments, Services, a custom kind with nested lists and nulls), each
// changed at random into the other versions. rapid shrinks a failure to a small list.
// The case count is -rapid.checks (or RAPID_CHECKS), else 1000 (300 for the
// GOMAXPROCS property, whose lists are larger); every test logs
// its counts (the README's Reliability section reports them).

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/function"
	"github.com/krm-merge/krm-merge/pkg/merge"
)

const roleAnnotation = "config.kubernetes.io/merge-source"

// checks sets rapid's case count to n unless the command line or RAPID_CHECKS set it.
func checks(t *testing.T, n int) {
	t.Helper()
	explicitOnce.Do(func() {
		explicit = os.Getenv("RAPID_CHECKS") != ""
		flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "rapid.checks" })
	})
	if !explicit {
		if err := flag.Set("rapid.checks", strconv.Itoa(n)); err != nil {
			t.Fatal(err)
		}
	}
}

var (
	explicitOnce sync.Once
	explicit     bool
)

// genResource draws one resource named name as YAML text.
func genResource(t *rapid.T, name string) string {
	var b strings.Builder
	switch rapid.IntRange(0, 3).Draw(t, "kind") {
	case 0:
		fmt.Fprintf(&b, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\n  labels:\n    app: %s\nspec:\n  replicas: %d\n  template:\n    spec:\n      containers:\n",
			name, name, rapid.IntRange(1, 5).Draw(t, "replicas"))
		for c := 0; c < rapid.IntRange(1, 3).Draw(t, "containers"); c++ {
			fmt.Fprintf(&b, "      - name: c%d # container\n        image: img%d:v%d\n", c, c, rapid.IntRange(1, 9).Draw(t, "tag"))
			if n := rapid.IntRange(0, 3).Draw(t, "env"); n > 0 {
				b.WriteString("        env:\n")
				for e := 0; e < n; e++ {
					fmt.Fprintf(&b, "        - name: E%d\n          value: %q\n", e, rapid.StringMatching(`[a-z0-9]{0,6}`).Draw(t, "value"))
				}
			}
			if n := rapid.IntRange(0, 2).Draw(t, "ports"); n > 0 {
				b.WriteString("        ports:\n")
				for p := 0; p < n; p++ {
					fmt.Fprintf(&b, "        - containerPort: %d\n          name: p%d\n", 8000+p, p)
				}
			}
		}
	case 1:
		fmt.Fprintf(&b, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n# the settings\ndata:\n", name)
		for k := 0; k < rapid.IntRange(0, 4).Draw(t, "keys"); k++ {
			fmt.Fprintf(&b, "  k%d: %s # key %d\n", k, rapid.SampledFrom([]string{"a", "'1'", "\"x y\"", "null", "~", "true"}).Draw(t, "v"), k)
		}
	case 2:
		fmt.Fprintf(&b, "apiVersion: v1\nkind: Service\nmetadata:\n  name: %s\nspec:\n  selector:\n    app: %s\n  ports:\n", name, name)
		for p := 0; p < rapid.IntRange(1, 3).Draw(t, "sports"); p++ {
			fmt.Fprintf(&b, "  - name: s%d\n    port: %d\n    targetPort: %d\n", p, 80+p, 8000+p)
		}
	default:
		fmt.Fprintf(&b, "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: %s\nspec:\n  size: %d\n  parts:\n", name, rapid.IntRange(0, 9).Draw(t, "size"))
		for p := 0; p < rapid.IntRange(0, 3).Draw(t, "parts"); p++ {
			fmt.Fprintf(&b, "  - name: part%d\n    tags: [a, b]\n    sub:\n    - name: s0\n      opt: null\n", p)
		}
		b.WriteString("  extra: null\n  nested:\n    deep:\n      list: [[1, 2], [3]]\n")
	}
	return b.String()
}

// mutate applies 0..3 random edits to a resource: change a scalar, delete a field, add
// a field, null a field, append a list element (a new name), add a comment. Identity
// fields (apiVersion, kind, metadata) and merge keys are left alone.
func mutate(t *rapid.T, r *yaml.RNode, label string) *yaml.RNode {
	r = r.Copy()
	var maps, seqs []*yaml.Node
	var walk func(n *yaml.Node, top bool)
	walk = func(n *yaml.Node, top bool) {
		switch n.Kind {
		case yaml.MappingNode:
			if !top {
				maps = append(maps, n)
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				if top && (n.Content[i].Value != "spec" && n.Content[i].Value != "data") {
					continue
				}
				walk(n.Content[i+1], false)
			}
		case yaml.SequenceNode:
			seqs = append(seqs, n)
			for _, c := range n.Content {
				walk(c, false)
			}
		}
	}
	walk(r.YNode(), true)
	for e := 0; e < rapid.IntRange(0, 3).Draw(t, label+"-edits"); e++ {
		if len(maps) == 0 {
			break
		}
		m := maps[rapid.IntRange(0, len(maps)-1).Draw(t, label+"-map")]
		fields := len(m.Content) / 2
		switch op := rapid.IntRange(0, 5).Draw(t, label+"-op"); {
		case op == 0 && fields > 0:
			i := 2 * rapid.IntRange(0, fields-1).Draw(t, label+"-field")
			if v := m.Content[i+1]; v.Kind == yaml.ScalarNode && !mergeKey[m.Content[i].Value] {
				v.Value, v.Tag, v.Style = rapid.StringMatching(`[a-z]{1,4}`).Draw(t, label+"-val"), "!!str", 0
			}
		case op == 1 && fields > 1:
			i := 2 * rapid.IntRange(0, fields-1).Draw(t, label+"-field")
			if !mergeKey[m.Content[i].Value] {
				m.Content = append(m.Content[:i], m.Content[i+2:]...)
			}
		case op == 2:
			k := fmt.Sprintf("%s%d", label, e)
			if !hasKey(m, k) {
				m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k, Tag: "!!str"},
					&yaml.Node{Kind: yaml.ScalarNode, Value: rapid.StringMatching(`[a-z]{1,4}`).Draw(t, label+"-new"), Tag: "!!str"})
			}
		case op == 3 && fields > 0:
			i := 2 * rapid.IntRange(0, fields-1).Draw(t, label+"-field")
			if !mergeKey[m.Content[i].Value] {
				m.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Value: "null", Tag: "!!null"}
			}
		case op == 4 && len(seqs) > 0:
			s := seqs[rapid.IntRange(0, len(seqs)-1).Draw(t, label+"-seq")]
			if len(s.Content) > 0 && s.Content[0].Kind == yaml.MappingNode && hasKey(s.Content[0], "name") {
				el := yaml.CopyYNode(s.Content[0])
				for i := 0; i+1 < len(el.Content); i += 2 {
					switch el.Content[i].Value { // new merge keys: a new element
					case "name":
						el.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Value: fmt.Sprintf("%s-new%d", label, e), Tag: "!!str"}
					case "port", "containerPort":
						el.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Value: fmt.Sprint(9000 + 100*len(label) + 10*int(label[0]%10) + e), Tag: "!!int"}
					}
				}
				s.Content = append(s.Content, el)
			}
		case op == 5 && fields > 0:
			i := 2 * rapid.IntRange(0, fields-1).Draw(t, label+"-field")
			m.Content[i].HeadComment = "# " + label + " comment"
		}
	}
	return r
}

// mergeKey are the generated lists' merge keys: an edit there makes another element,
// which the list edit (append) covers.
var mergeKey = map[string]bool{"name": true, "port": true, "containerPort": true}

func hasKey(m *yaml.Node, k string) bool {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k {
			return true
		}
	}
	return false
}

// withRole returns a copy of r with the role annotation set.
func withRole(r *yaml.RNode, role string) *yaml.RNode {
	c := r.Copy()
	if err := c.PipeE(yaml.SetAnnotation(roleAnnotation, role)); err != nil {
		panic(err)
	}
	return c
}

// list encodes items (and a functionConfig text, "" for none) as a ResourceList as a
// host writes it.
func list(t *rapid.T, fc string, items []*yaml.RNode) []byte {
	var out bytes.Buffer
	w := kio.ByteWriter{Writer: &out, KeepReaderAnnotations: true, WrappingKind: kio.ResourceListKind,
		WrappingAPIVersion: kio.ResourceListAPIVersion}
	if fc != "" {
		w.FunctionConfig = yaml.MustParse(fc)
	}
	if err := w.Write(items); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// runList runs the function on a ResourceList and returns the output bytes and its
// items; it fails t on an error (the generated inputs are all valid).
func runList(t *rapid.T, in []byte) ([]byte, []*yaml.RNode) {
	out, err, _ := fast(function.Processor{}, in)
	if err != nil {
		t.Fatalf("function failed: %v\ninput:\n%s", err, in)
	}
	return out, itemsOf(t, out)
}

// itemsOf parses a ResourceList's items.
func itemsOf(t *rapid.T, b []byte) []*yaml.RNode {
	rl, err := yaml.Parse(string(b))
	if err != nil {
		t.Fatalf("output is not YAML: %v\n%s", err, b)
	}
	its, _ := rl.Pipe(yaml.Lookup("items"))
	if its == nil {
		return nil
	}
	els, _ := its.Elements()
	return els
}

// byName indexes items by metadata.name.
func byName(items []*yaml.RNode) map[string]*yaml.RNode {
	m := map[string]*yaml.RNode{}
	for _, it := range items {
		m[it.GetName()] = it
	}
	return m
}

// genVersions draws 1..6 resources and their three versions.
func genVersions(t *rapid.T, min, max int) (o, u, d []*yaml.RNode) {
	n := rapid.IntRange(min, max).Draw(t, "resources")
	for i := 0; i < n; i++ {
		base := yaml.MustParse(genResource(t, fmt.Sprintf("r%d", i)))
		o = append(o, base)
		u = append(u, mutate(t, base, "u"))
		d = append(d, mutate(t, base, "d"))
	}
	return o, u, d
}

func roles(role string, rs []*yaml.RNode) []*yaml.RNode {
	out := make([]*yaml.RNode, len(rs))
	for i, r := range rs {
		out[i] = withRole(r, role)
	}
	return out
}

func concat(lists ...[]*yaml.RNode) []*yaml.RNode {
	var out []*yaml.RNode
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// counted counts cases and resources for the log.
type counted struct{ cases, resources int }

func (c *counted) log(t *testing.T, what string) {
	t.Logf("%s: %d cases, %d resources", what, c.cases, c.resources)
}

// TestPropertyNoUpstreamChangeKeepsDest: 3-way with original == updated returns every
// dest item unchanged, byte for byte (its encoding as read).
func TestPropertyNoUpstreamChangeKeepsDest(t *testing.T) {
	checks(t, 1000)
	var c counted
	rapid.Check(t, func(t *rapid.T) {
		o, _, d := genVersions(t, 1, 6)
		dest := roles("dest", d)
		in := list(t, "", concat(roles("original", o), roles("updated", o), dest))
		_, out := runList(t, in)
		want := byName(itemsOf(t, list(t, "", dest)))
		if len(out) != len(want) {
			t.Fatalf("%d items out, want %d", len(out), len(want))
		}
		for _, it := range out {
			if w := want[it.GetName()]; w == nil || w.MustString() != it.MustString() {
				t.Fatalf("dest changed:\nwant:\n%s\ngot:\n%s", w.MustString(), it.MustString())
			}
		}
		c.cases++
		c.resources += 3 * len(o)
	})
	c.log(t, "original == updated")
}

// TestPropertyDestEqualsOriginalGivesUpdated: 3-way with dest == original returns
// updated (semantically: merge.Equal, role annotation aside). Explicit nulls are left
// out of original, and updated's nulls out of the expectation: docs/merge-semantics.md reads a null
// in dest as a local clear and a null in updated as an upstream clear, so with nulls
// the result is updated with those fields removed (the generator's first finding).
func TestPropertyDestEqualsOriginalGivesUpdated(t *testing.T) {
	checks(t, 1000)
	var c counted
	rapid.Check(t, func(t *rapid.T) {
		o, u, _ := genVersions(t, 1, 6)
		for i := range o {
			o[i] = withoutNulls(o[i])
		}
		in := list(t, "", concat(roles("original", o), roles("updated", u), roles("dest", o)))
		_, out := runList(t, in)
		var clean []*yaml.RNode
		for _, r := range u {
			clean = append(clean, withoutNulls(r))
		}
		want := byName(itemsOf(t, list(t, "", roles("dest", clean))))
		if len(out) != len(want) {
			t.Fatalf("%d items out, want %d", len(out), len(want))
		}
		for _, it := range out {
			if w := want[it.GetName()]; w == nil || !merge.Equal(w, it) {
				t.Fatalf("not updated:\nwant:\n%s\ngot:\n%s", w.MustString(), it.MustString())
			}
		}
		c.cases++
		c.resources += 3 * len(o)
	})
	c.log(t, "dest == original")
}

// withoutNulls returns a copy of r without the map fields whose value is null.
func withoutNulls(r *yaml.RNode) *yaml.RNode {
	c := r.Copy()
	var strip func(n *yaml.Node)
	strip = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			kept := n.Content[:0]
			for i := 0; i+1 < len(n.Content); i += 2 {
				if v := n.Content[i+1]; v.Kind != yaml.ScalarNode || v.ShortTag() != yaml.NodeTagNull {
					kept = append(kept, n.Content[i], v)
				}
			}
			n.Content = kept
		}
		for _, ch := range n.Content {
			strip(ch)
		}
	}
	strip(c.YNode())
	return c
}

const twoWayConfig = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fc\ndata:\n  mode: 2way\n"

// TestPropertyTwoWayIdempotent: merging src into dest, then src again into the result,
// gives the same bytes.
func TestPropertyTwoWayIdempotent(t *testing.T) {
	checks(t, 1000)
	var c counted
	rapid.Check(t, func(t *rapid.T) {
		_, s, d := genVersions(t, 1, 6)
		src := roles("src", s)
		once, out := runList(t, list(t, twoWayConfig, concat(src, roles("dest", d))))
		twice, _ := runList(t, list(t, twoWayConfig, concat(src, roles("dest", out))))
		if !bytes.Equal(itemsText(t, once), itemsText(t, twice)) {
			t.Fatalf("not idempotent:\nonce:\n%s\ntwice:\n%s", once, twice)
		}
		c.cases++
		c.resources += 2 * len(s)
	})
	c.log(t, "2-way idempotent")
}

// itemsText is the items part of an output ResourceList (results differ in counts).
func itemsText(t *rapid.T, b []byte) []byte {
	var out bytes.Buffer
	for _, it := range itemsOf(t, b) {
		out.WriteString(it.MustString())
	}
	return out.Bytes()
}

// TestPropertySameBytesEveryRun: the same input gives the same output bytes on every
// run, at GOMAXPROCS 1 and 2 (lists up to 100 resources, so the parallel paths run;
// 300 cases unless told).
func TestPropertySameBytesEveryRun(t *testing.T) {
	checks(t, 300)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var c counted
	rapid.Check(t, func(t *rapid.T) {
		o, u, d := genVersions(t, 1, 100)
		in := list(t, "", concat(roles("original", o), roles("updated", u), roles("dest", d)))
		runtime.GOMAXPROCS(2)
		first, _ := runList(t, in)
		again, _ := runList(t, in)
		runtime.GOMAXPROCS(1)
		serial, _ := runList(t, in)
		if !bytes.Equal(first, again) || !bytes.Equal(first, serial) {
			t.Fatalf("output differs between runs or GOMAXPROCS")
		}
		c.cases++
		c.resources += 3 * len(o)
	})
	c.log(t, "same bytes")
}

// TestPropertyEveryResourceAccountedFor: with each resource present in any subset of
// original, updated and dest, every one is accounted for by the 3-way resource rules
// (docs/merge-semantics.md, "Resources"): in dest and updated: merged, out; dest only:
// kept, out; updated only: added, out; original and updated, not dest: stayed deleted
// locally, not out; original and dest, not updated: deleted upstream, not out (a
// warning when dest changed it); original only: consumed. The summary's counts add up.
func TestPropertyEveryResourceAccountedFor(t *testing.T) {
	checks(t, 1000)
	var c counted
	rapid.Check(t, func(t *rapid.T) {
		o, u, d := genVersions(t, 1, 8)
		var items []*yaml.RNode
		wantOut := map[string]bool{}
		identities := 0
		for i := range o {
			mask := rapid.IntRange(1, 7).Draw(t, "presence") // bits: original, updated, dest
			inO, inU, inD := mask&1 != 0, mask&2 != 0, mask&4 != 0
			if inO {
				items = append(items, withRole(o[i], "original"))
			}
			if inU {
				items = append(items, withRole(u[i], "updated"))
			}
			if inD {
				items = append(items, withRole(d[i], "dest"))
			}
			if inU || inD {
				identities++
			}
			wantOut[o[i].GetName()] = (inD && (inU || !inO)) || (inU && !inO)
		}
		outBytes, out := runList(t, list(t, "", items))
		got := byName(out)
		if len(got) != len(out) {
			t.Fatalf("an item came out twice")
		}
		for name, want := range wantOut {
			if (got[name] != nil) != want {
				t.Fatalf("%s: in output %v, want %v\n%s", name, got[name] != nil, want, outBytes)
			}
		}
		var merged, added, deleted, kept, conflicts, stayed int
		rl := yaml.MustParse(string(outBytes))
		rs, _ := rl.Pipe(yaml.Lookup("results"))
		summary := ""
		if rs != nil {
			els, _ := rs.Elements()
			for _, r := range els {
				if m, _ := r.Pipe(yaml.Lookup("message")); m != nil && strings.HasPrefix(m.YNode().Value, "3way merge:") {
					summary = m.YNode().Value
				}
			}
		}
		fmt.Sscanf(summary, "3way merge: %d merged, %d added, %d deleted, %d kept, %d conflicts", &merged, &added, &deleted, &kept, &conflicts)
		if i := strings.Index(summary, "stayed deleted"); i > 0 {
			fmt.Sscanf(summary[strings.LastIndex(summary[:i-1], " ")+1:], "%d", &stayed)
		}
		if sum := merged + added + deleted + kept + stayed; sum != identities {
			t.Fatalf("summary %q counts %d resources, want %d", summary, sum, identities)
		}
		c.cases++
		c.resources += len(items)
	})
	c.log(t, "accounted for")
}
