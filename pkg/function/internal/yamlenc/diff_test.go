package yamlenc

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/bench/gen"
)

// TestGenerated: every item of generated 3-way and 2-way lists (several seeds) that
// AppendItem accepts has yaml.v3's bytes, at least 99% are accepted (they have no
// comments), and a run of items is the concatenation of its items.
func TestGenerated(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, mode := range []gen.Mode{gen.ThreeWay, gen.TwoWay} {
		for _, seed := range seeds {
			items := genItems(t, gen.Options{Resources: 300, Mode: mode, Seed: seed})
			accepted := 0
			for i, it := range items {
				if check(t, fmt.Sprintf("%s seed %d item %d", mode, seed, i), it) {
					accepted++
				}
			}
			rate := float64(accepted) / float64(len(items))
			t.Logf("%s seed %d: %d of %d items accepted (%.2f%%)", mode, seed, accepted, len(items), 100*rate)
			if rate < 0.99 {
				t.Errorf("%s seed %d: acceptance %.2f%% is under the 99%% floor", mode, seed, 100*rate)
			}
			if seed == 1 {
				checkRuns(t, string(mode), items, 64)
			}
		}
	}
}

// checkRuns: for runs of n items all accepted, the concatenation of AppendItem's bytes
// is yaml.v3's encoding of the run (what the ResourceList writer relies on).
func checkRuns(t *testing.T, what string, items []*yaml.Node, n int) {
	t.Helper()
	for from := 0; from < len(items); from += n {
		run := items[from:min(from+n, len(items))]
		var got []byte
		ok := true
		for _, it := range run {
			if got, ok = AppendItem(got, it); !ok {
				break
			}
		}
		if !ok {
			continue
		}
		want, err := oracle(run...)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("%s: run from item %d differs from yaml.v3\n%s", what, from, diff(got, want))
		}
	}
}

// TestUpstreamData: every document of the real upstream manifests (testdata/upstream),
// and a sample of their nested mappings and sequences as items of their own (a
// different indentation, the first key after "- "), that AppendItem accepts has
// yaml.v3's bytes. Logs the acceptance rate and why items are declined.
func TestUpstreamData(t *testing.T) {
	dir := requireUpstream(t, "")
	stride := 7 // nested nodes checked: one in stride (each costs a yaml.v3 encoding)
	if testing.Short() {
		stride = 50
	}
	st := checkFiles(t, readTree(t, dir), stride)
	st.log(t, "testdata/upstream")
}

// TestRepoFiles: the same for the project's own YAML (e2e packages and expected
// outputs, examples, functionConfig examples), every nested node.
func TestRepoFiles(t *testing.T) {
	var files []yamlFile
	for _, dir := range []string{"../../../../e2e", "../../../../examples", "../../../../fn-config-examples"} {
		files = append(files, readTree(t, dir)...)
	}
	if len(files) == 0 {
		t.Fatal("no YAML files found")
	}
	st := checkFiles(t, files, 1)
	st.log(t, "repository")
}

// stats count items and the reasons for declines.
type stats struct {
	docs, docsAccepted     int
	nested, nestedAccepted int
	bytes, bytesAccepted   int
	reasons                map[string]int
}

func (s *stats) log(t *testing.T, what string) {
	t.Helper()
	pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
	t.Logf("%s: %d of %d mapping documents accepted (%.1f%%, %.1f%% of their nodes' bytes); %d of %d nested nodes checked accepted (%.1f%%)",
		what, s.docsAccepted, s.docs, pct(s.docsAccepted, s.docs), pct(s.bytesAccepted, s.bytes), s.nestedAccepted, s.nested, pct(s.nestedAccepted, s.nested))
	var rs []string
	for r, n := range s.reasons {
		rs = append(rs, fmt.Sprintf("%s: %d", r, n))
	}
	sort.Strings(rs)
	if len(rs) == 0 {
		rs = []string{"none declined"}
	}
	t.Logf("%s: documents declined because of: %s", what, strings.Join(rs, ", "))
}

// checkFiles checks every mapping document of files as an item, and one in stride of
// the mappings and sequences nested in them.
func checkFiles(t *testing.T, files []yamlFile, stride int) *stats {
	t.Helper()
	st := &stats{reasons: map[string]int{}}
	k := 0
	for _, f := range files {
		for d, doc := range f.docs {
			if doc.Kind != yaml.MappingNode {
				continue
			}
			st.docs++
			size := scalarBytes(doc)
			st.bytes += size
			if check(t, fmt.Sprintf("%s doc %d", f.name, d), doc) {
				st.docsAccepted++
				st.bytesAccepted += size
			} else {
				st.reasons[declineReason(doc)]++
			}
			walk(doc, 0, func(n *yaml.Node, depth int) {
				if depth == 0 || n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode {
					return
				}
				if k++; k%stride != 0 {
					return
				}
				st.nested++
				if check(t, fmt.Sprintf("%s doc %d nested node at line %d", filepath.Base(f.name), d, n.Line), n) {
					st.nestedAccepted++
				}
			})
		}
	}
	return st
}

// scalarBytes is the size of n's scalars.
func scalarBytes(n *yaml.Node) int {
	s := 0
	walk(n, 0, func(n *yaml.Node, _ int) { s += len(n.Value) })
	return s
}

// declineReason names the first thing in n outside AppendItem's subset.
func declineReason(n *yaml.Node) string {
	reason := ""
	walk(n, 0, func(n *yaml.Node, _ int) {
		if reason != "" {
			return
		}
		switch {
		case n.HeadComment != "":
			reason = "head comment"
		case n.LineComment != "":
			reason = "line comment"
		case n.FootComment != "":
			reason = "foot comment"
		case n.Anchor != "" || n.Kind == yaml.AliasNode:
			reason = "anchor or alias"
		case n.Style&yaml.FlowStyle != 0 && len(n.Content) > 0:
			reason = "flow collection"
		case n.Style&yaml.FoldedStyle != 0:
			reason = "folded scalar"
		case n.Kind == yaml.ScalarNode && !utf8.ValidString(n.Value):
			reason = "invalid UTF-8"
		}
	})
	if reason == "" {
		reason = "other (tag, complex key)"
	}
	return reason
}
