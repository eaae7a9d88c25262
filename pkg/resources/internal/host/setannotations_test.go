package host

import (
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

// kyamlSetHost is SetAnnotations as kyaml's calls do it, the reference.
func kyamlSetHost(n *yaml.RNode, host map[string]string, isHost func(string) bool) {
	for k := range n.GetAnnotations() {
		if isHost(k) {
			if _, ok := host[k]; !ok {
				_ = n.PipeE(yaml.ClearAnnotation(k))
			}
		}
	}
	keys := make([]string, 0, len(host))
	for k := range host {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		_ = n.PipeE(yaml.SetAnnotation(k, host[k]))
	}
	ClearEmptyAnnotations(n)
}

// TestSetHostAnnotationsMatchesKyaml: the direct path gives kyaml's node tree (kind,
// tag, style, value, comments, order) on every shape of annotations and host map.
func TestSetHostAnnotationsMatchesKyaml(t *testing.T) {
	isHost := func(k string) bool { return strings.HasPrefix(k, "h/") }
	items := []string{
		"kind: A\n",
		"kind: A\nmetadata:\n  name: a\n",
		"kind: A\nmetadata:\n  annotations: {}\n",
		"kind: A\nmetadata:\n  annotations:\n",
		"kind: A\nmetadata:\n  annotations:\n    x: y\n",
		"kind: A\nmetadata:\n  annotations:\n    h/a: '1' # c\n    x: y\n",
		"kind: A\nmetadata:\n  annotations:\n    h/a: \"1\"\n    h/b: two\n",
		"kind: A\nmetadata:\n  annotations:\n    h/a: 1\n",
		"kind: A\nmetadata:\n  annotations:\n    h/a: |\n      multi\n    x: y\n",
		"kind: A\nmetadata:\n  annotations:\n    h/a: 1\n    h/a: 2\n    x: y\n",
		"kind: A\nmetadata:\n  annotations:\n    h/z: old\n    x: y\n  name: a\n",
		"kind: A\nmetadata:\n  annotations: {h/a: '1', x: y}\n",
		"kind: A\nmetadata:\n  annotations:\n    x: [a]\n",
		"kind: A\nmetadata:\n  annotations:\n    x: y\n  annotations:\n    h/a: 1\n",
	}
	hosts := []map[string]string{
		{},
		{"h/a": "1"},
		{"h/a": "9", "h/b": "two"},
		{"h/c": "new", "h/a": "1"},
		{"h/a": "multi\nline"},
		{"h/a": "\xff"},
		{"h/b": ""},
	}
	for i, item := range items {
		for j, host := range hosts {
			got, want := yaml.MustParse(item), yaml.MustParse(item)
			SetAnnotations(got, host, isHost)
			kyamlSetHost(want, host, isHost)
			if d := testsupport.NodeDiff(got.YNode(), want.YNode(), "$"); d != "" {
				t.Errorf("item %d host %d (%q, %v): %s", i, j, item, host, d)
			}
		}
	}
}
