package resourcelist

import (
	"fmt"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/metanode"
	"github.com/krm-merge/krm-merge/internal/testsupport"
)

// TestReconcileMatchesKio checks reconcile (item by item, direct edits in the common
// shape) against kio.ReconcileInternalAnnotations: the same error and the same node
// trees, for inputs in each annotation format and for each thing a function may do to
// the annotations in between.
func TestReconcileMatchesKio(t *testing.T) {
	inputs := []string{
		"kind: A\nmetadata:\n  name: a\n",
		"kind: A\nmetadata:\n  name: a\n  annotations:\n    x: y\n",
		"kind: A\nmetadata:\n  annotations:\n    internal.config.kubernetes.io/path: p.yaml\n    internal.config.kubernetes.io/index: '0'\n",
		"kind: A\nmetadata:\n  annotations:\n    config.kubernetes.io/path: p.yaml\n    config.kubernetes.io/index: '0'\n    x: y\n",
		"kind: A\nmetadata:\n  annotations:\n    config.kubernetes.io/path: p.yaml\n    internal.config.kubernetes.io/path: p.yaml\n    config.kubernetes.io/id: '3'\n",
		"kind: A\nmetadata:\n  annotations: {internal.config.kubernetes.io/path: p.yaml}\n",
	}
	set := func(k, v string) func(*yaml.RNode) {
		return func(n *yaml.RNode) { _ = n.PipeE(yaml.SetAnnotation(k, v)) }
	}
	clear := func(k string) func(*yaml.RNode) {
		return func(n *yaml.RNode) { _ = n.PipeE(yaml.ClearAnnotation(k)) }
	}
	edits := map[string]func(*yaml.RNode){
		"none":          func(*yaml.RNode) {},
		"internal path": set("internal.config.kubernetes.io/path", "q.yaml"),
		"legacy path":   set("config.kubernetes.io/path", "q.yaml"),
		"legacy index":  set("config.kubernetes.io/index", "7"),
		"both paths": func(n *yaml.RNode) {
			set("internal.config.kubernetes.io/path", "q")(n)
			set("config.kubernetes.io/path", "r")(n)
		},
		"drop internal": clear("internal.config.kubernetes.io/path"),
		"drop legacy":   clear("config.kubernetes.io/path"),
		"drop id":       clear("internal.config.kubernetes.io/annotations-migration-resource-id"),
		"wrong id":      set("internal.config.kubernetes.io/annotations-migration-resource-id", "99999"),
		"null value": func(n *yaml.RNode) {
			setRaw(n, "internal.config.kubernetes.io/path", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"})
		},
		"map value":      func(n *yaml.RNode) { setRaw(n, "x", &yaml.Node{Kind: yaml.MappingNode}) },
		"repeated key":   func(n *yaml.RNode) { appendRaw(n, "x", "1"); appendRaw(n, "x", "2") },
		"no annotations": func(n *yaml.RNode) { _ = n.PipeE(yaml.Lookup("metadata"), yaml.Clear("annotations")) },
		"empty":          func(n *yaml.RNode) { setRaw(n, "", nil) },
		"new id":         set("internal.config.kubernetes.io/id", "5"),
		"comment": func(n *yaml.RNode) {
			setRaw(n, "x", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "v", LineComment: "# c"})
		},
		"every other one": nil, // half the items get "internal path"
	}
	for i, in := range inputs {
		for name, edit := range edits {
			t.Run(fmt.Sprintf("%d %s", i, name), func(t *testing.T) {
				var fast, slow []*yaml.RNode
				for j := 0; j < 300; j++ {
					fast = append(fast, yaml.MustParse(in))
					slow = append(slow, yaml.MustParse(in))
				}
				fa, ferr := kio.PreprocessResourcesForInternalAnnotationMigration(fast)
				sa, serr := kio.PreprocessResourcesForInternalAnnotationMigration(slow)
				if ferr != nil || serr != nil {
					t.Skip("preprocess refused the input:", ferr)
				}
				for j := range fast {
					e := edit
					if e == nil {
						if j%2 == 1 {
							continue
						}
						e = edits["internal path"]
					}
					e(fast[j])
					e(slow[j])
				}
				gerr := reconcile(fast, fa, true)
				werr := kio.ReconcileInternalAnnotations(slow, sa)
				if fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Fatalf("errors differ: fast %v, kio %v", gerr, werr)
				}
				if werr != nil {
					return
				}
				for j := range fast {
					if d := testsupport.NodeDiff(fast[j].YNode(), slow[j].YNode(), "$"); d != "" {
						t.Fatalf("item %d: %s\nfast:\n%s\nkio:\n%s", j, d, fast[j].MustString(), slow[j].MustString())
					}
				}
			})
		}
	}
}

// setRaw sets annotation key to the node v (an empty key: empties the map).
func setRaw(n *yaml.RNode, key string, v *yaml.Node) {
	an := metanode.Annotations(n.YNode())
	if an == nil {
		return
	}
	if key == "" {
		an.Content = nil
		return
	}
	for i := 0; i < len(an.Content); i += 2 {
		if an.Content[i].Value == key {
			an.Content[i+1] = v
			return
		}
	}
	an.Content = append(an.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
}

// appendRaw appends key: value to the annotations, repeated or not.
func appendRaw(n *yaml.RNode, key, value string) {
	if an := metanode.Annotations(n.YNode()); an != nil {
		an.Content = append(an.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value})
	}
}
