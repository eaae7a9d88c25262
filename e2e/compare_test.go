package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// resID is a resource's identity as krm-merge defines it: API group (not version),
// kind, namespace, name.
type resID struct{ Group, Kind, Namespace, Name string }

func (id resID) String() string {
	g := id.Group
	if g == "" {
		g = "core"
	}
	ns := id.Namespace
	if ns == "" {
		ns = "_"
	}
	return g + "/" + id.Kind + "/" + ns + "/" + id.Name
}

func idOf(n *yaml.RNode) resID {
	group := ""
	if av := n.GetApiVersion(); strings.Contains(av, "/") {
		group = av[:strings.Index(av, "/")]
	}
	return resID{Group: group, Kind: n.GetKind(), Namespace: n.GetNamespace(), Name: n.GetName()}
}

// resource is one resource of a directory and the file (relative to the directory) it
// was read from.
type resource struct {
	File string
	Node *yaml.RNode
}

// readResources parses every YAML file under dir. A missing dir has no resources.
func readResources(t *testing.T, dir string) map[resID]resource {
	t.Helper()
	out := map[resID]resource{}
	for _, rel := range yamlFilesUnder(t, dir) {
		f := loadYAMLFile(t, filepath.Join(dir, rel))
		for _, d := range f.docs {
			id := idOf(d)
			if prev, dup := out[id]; dup {
				t.Fatalf("%s: %s appears twice (%s and %s)", dir, id, prev.File, rel)
			}
			out[id] = resource{File: rel, Node: d}
		}
	}
	return out
}

// jsonValue is n as a plain Go value (maps, lists, scalars), for comparing resources
// regardless of comments, field order and quoting.
func jsonValue(t *testing.T, n *yaml.RNode) any {
	t.Helper()
	b, err := n.MarshalJSON()
	if err != nil {
		t.Fatalf("marshal %s: %v", idOf(n), err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// sameValue reports whether a and b hold the same data; when not, it returns a short
// description of the first difference.
func sameValue(t *testing.T, a, b *yaml.RNode) (bool, string) {
	t.Helper()
	va, vb := jsonValue(t, a), jsonValue(t, b)
	if reflect.DeepEqual(va, vb) {
		return true, ""
	}
	return false, firstDifference("", va, vb)
}

func firstDifference(path string, a, b any) string {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %s, want %s", path, brief(a), brief(b))
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		var sorted []string
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			if !reflect.DeepEqual(av[k], bv[k]) {
				return firstDifference(path+"."+k, av[k], bv[k])
			}
		}
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return fmt.Sprintf("%s: got %s, want %s", path, brief(a), brief(b))
		}
		for i := range av {
			if !reflect.DeepEqual(av[i], bv[i]) {
				return firstDifference(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i])
			}
		}
	}
	return fmt.Sprintf("%s: got %s, want %s", path, brief(a), brief(b))
}

func brief(v any) string {
	if v == nil {
		return "<absent>"
	}
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}

// ---------------------------------------------------------------------------
// RNode edits and reads (fail the test on error)
