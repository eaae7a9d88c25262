package resourcelist

import (
	"fmt"
	"reflect"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

// TestPreprocessMatchesKio checks preprocessParallel against
// kio.PreprocessResourcesForInternalAnnotationMigration item by item: the same map, the
// same error, and the same node trees (kind, tag, style, value, comments, order), on
// every shape of metadata and annotations the fast annotation append must recognise or
// leave to kyaml.
func TestPreprocessMatchesKio(t *testing.T) {
	cases := []string{
		"kind: A\n",
		"kind: A\nmetadata: {}\n",
		"kind: A\nmetadata:\n  name: a\n",
		"kind: A\nmetadata:\n  name: a\n  annotations: {}\n",
		"kind: A\nmetadata:\n  name: a\n  annotations:\n",
		"kind: A\nmetadata:\n  name: a\n  annotations: null\n",
		"kind: A\nmetadata:\n  name: a\n  annotations:\n    x: y # c\n",
		"kind: A\nmetadata:\n  name: a\n  annotations: {x: y}\n",
		"kind: A\nmetadata:\n  annotations:\n    config.kubernetes.io/path: a.yaml\n    config.kubernetes.io/index: '0'\n",
		"kind: A\nmetadata:\n  annotations:\n    internal.config.kubernetes.io/path: a.yaml\n    internal.config.kubernetes.io/index: '0'\n",
		"kind: A\nmetadata:\n  annotations:\n    internal.config.kubernetes.io/path: a.yaml\n    config.kubernetes.io/path: a.yaml\n",
		"kind: A\nmetadata:\n  annotations:\n    internal.config.kubernetes.io/path: a.yaml\n    config.kubernetes.io/path: b.yaml\n",
		"kind: A\nmetadata:\n  annotations:\n    internal.config.kubernetes.io/path: a.yaml\n    config.kubernetes.io/path: \"\"\n",
		"kind: A\nmetadata:\n  annotations:\n    x: 1\n    x: 2\n",
		"kind: A\nmetadata:\n  annotations:\n    x: 1\n  annotations:\n    y: 2\n",
		"kind: A\nmetadata:\n  name: a\nmetadata:\n  annotations:\n    y: 2\n",
		"kind: A\nmetadata:\n  annotations:\n    internal.config.kubernetes.io/annotations-migration-resource-id: '7'\n",
		"kind: A\nmetadata:\n  annotations:\n    config.kubernetes.io/id: '3'\n    internal.config.kubernetes.io/id: '3'\n",
		"kind: A\nmetadata:\n  annotations:\n    config.kubernetes.io/id: '3'\n",
		"kind: A\nmetadata: x\n",
		"kind: A\nmetadata:\n  annotations: [a]\n",
		"- a\n",
		"kind: A\nmetadata:\n  annotations:\n    a: b\n    internal.config.kubernetes.io/path: p\n    internal.config.kubernetes.io/index: '1'\n    internal.config.kubernetes.io/id: '2'\n",
		"kind: A\nmetadata:\n  annotations:\n    config.kubernetes.io/path: p\n    config.kubernetes.io/index: '1'\n    config.kubernetes.io/id: '2'\n",
		"kind: A\nmetadata:\n  annotations:\n    config.kubernetes.io/path: p\n    internal.config.kubernetes.io/index: '1'\n    config.kubernetes.io/index: ''\n",
		"kind: A\nmetadata:\n  annotations:\n    internal.config.kubernetes.io/path: p\n    config.kubernetes.io/path: ~\n",
	}
	for n, c := range cases {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var fast, slow []*yaml.RNode
			for i := 0; i < 3; i++ { // an item at index 0 and others after it
				fast = append(fast, yaml.MustParse(c))
				slow = append(slow, yaml.MustParse(c))
			}
			gm, gerr := preprocessParallel(fast)
			wm, werr := kio.PreprocessResourcesForInternalAnnotationMigration(slow)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("%q: errors differ: fast %v, kio %v", c, gerr, werr)
			}
			if werr != nil {
				return
			}
			if !reflect.DeepEqual(gm, wm) {
				t.Errorf("%q: maps differ:\nfast %v\nkio  %v", c, gm, wm)
			}
			for i := range fast {
				if d := testsupport.NodeDiff(fast[i].YNode(), slow[i].YNode(), "$"); d != "" {
					t.Errorf("%q item %d: %s", c, i, d)
				}
			}
		})
	}
}
