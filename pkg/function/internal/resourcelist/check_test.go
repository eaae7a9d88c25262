package resourcelist

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// nodes parses a ResourceList's items.
func nodes(t *testing.T, items string) []*yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("items:\n"+items), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0].Content[1].Content
}

// CheckItems finds, before any edit, what kyaml's framework would fail on (or change)
// before a processor runs, naming the item and the field.
func TestCheckItems(t *testing.T) {
	const (
		internalPath = "  metadata:\n    name: %s\n    annotations: {internal.config.kubernetes.io/path: %s.yaml}\n"
		legacyPath   = "  metadata:\n    name: %s\n    annotations: {config.kubernetes.io/path: %s.yaml}\n"
	)
	for _, tc := range []struct {
		name, items string
		item        int
		field, msg  string
	}{
		{name: "fine", items: "- kind: A\n  metadata: {name: a}\n- kind: B\n", item: -1},
		{name: "fine, both formats on every item", item: -1,
			items: "- kind: A\n  metadata: {annotations: {internal.config.kubernetes.io/path: a, config.kubernetes.io/path: a}}\n" +
				"- kind: A\n  metadata: {annotations: {internal.config.kubernetes.io/index: '0', config.k8s.io/id: '1'}}\n"},
		{name: "fine, one without host annotations", item: -1,
			items: "- kind: A\n  metadata: {annotations: {internal.config.kubernetes.io/path: a}}\n- kind: B\n  metadata: {annotations: {x: y}}\n"},
		{name: "bad head", items: "- kind: A\n- kind: B\n  metadata: {annotations: [a]}\n", item: 1,
			field: "metadata.annotations", msg: "metadata.annotations is a list; it is a map of string keys to string values"},
		{name: "path mismatch", items: "- kind: A\n  metadata: {annotations: {internal.config.kubernetes.io/path: a.yaml, config.kubernetes.io/path: b.yaml}}\n",
			item: 0, field: "metadata.annotations.config.kubernetes.io/path",
			msg: `internal.config.kubernetes.io/path "a.yaml" and config.kubernetes.io/path "b.yaml" differ`},
		{name: "index mismatch", items: "- kind: A\n  metadata: {annotations: {internal.config.kubernetes.io/index: '0', config.kubernetes.io/index: '1'}}\n",
			item: 0, field: "metadata.annotations.config.kubernetes.io/index", msg: `internal.config.kubernetes.io/index "0" and config.kubernetes.io/index "1" differ`},
		{name: "id mismatch", items: "- kind: A\n  metadata: {annotations: {internal.config.kubernetes.io/id: '1', config.k8s.io/id: '2'}}\n",
			item: 0, field: "metadata.annotations.config.k8s.io/id", msg: "differ"},
		{name: "formats mixed", items: "- kind: A\n" + strings.ReplaceAll(internalPath, "%s", "a") + "- kind: A\n" + strings.ReplaceAll(legacyPath, "%s", "b"),
			item: 1, field: "metadata.annotations",
			msg: "uses the legacy host annotations (config.kubernetes.io/path, index, config.k8s.io/id) where item 0 uses the internal host annotations (internal.config.kubernetes.io/path, index, id)"},
		{name: "formats mixed, both then one", item: 1, field: "metadata.annotations", msg: "where item 0 uses both",
			items: "- kind: A\n  metadata: {annotations: {internal.config.kubernetes.io/path: a, config.kubernetes.io/path: a}}\n" +
				"- kind: A\n  metadata: {annotations: {internal.config.kubernetes.io/index: '0'}}\n"},
	} {
		p := CheckItems(nodes(t, tc.items))
		switch {
		case tc.item < 0 && p != nil:
			t.Errorf("%s: %+v, want none", tc.name, p)
		case tc.item < 0:
		case p == nil:
			t.Errorf("%s: none, want item %d %s: %s", tc.name, tc.item, tc.field, tc.msg)
		case p.Item != tc.item || p.Field != tc.field || !strings.Contains(p.Msg, tc.msg):
			t.Errorf("%s: item %d field %q msg %q, want %d %q %q", tc.name, p.Item, p.Field, p.Msg, tc.item, tc.field, tc.msg)
		}
	}
}

// What CheckItems finds is exactly what kyaml's annotation edits fail on: for each input,
// CheckItems finds a problem if and only if kio's preprocessing and reconciling of the
// items (unchanged by any processor) fails or panics.
func TestCheckItemsAgreesWithKio(t *testing.T) {
	heads := []string{
		"metadata: {name: a}",
		"metadata: {annotations: {internal.config.kubernetes.io/path: a.yaml}}",
		"metadata: {annotations: {config.kubernetes.io/path: a.yaml}}",
		"metadata: {annotations: {internal.config.kubernetes.io/path: a.yaml, config.kubernetes.io/path: a.yaml}}",
		"metadata: {annotations: {internal.config.kubernetes.io/path: a.yaml, config.kubernetes.io/path: b.yaml}}",
		"metadata: {annotations: {internal.config.kubernetes.io/index: '1', config.kubernetes.io/index: '2'}}",
		"metadata: {annotations: {config.k8s.io/id: '1'}}",
		"metadata: {annotations: {internal.config.kubernetes.io/id: '1', config.k8s.io/id: '3'}}",
		"metadata: {annotations: [a]}",
		"metadata: [a]",
		"metadata: x",
	}
	for _, a := range heads {
		for _, b := range heads {
			items := "- kind: A\n  " + a + "\n- kind: B\n  " + b + "\n"
			found := CheckItems(nodes(t, items)) != nil
			fails := kioFails(nodes(t, items))
			if found != fails {
				t.Errorf("CheckItems found a problem: %v, kio failed: %v, on\n%s", found, fails, items)
			}
		}
	}
}

// kioFails runs kyaml's annotation migration around a processor that changes nothing.
func kioFails(items []*yaml.Node) (failed bool) {
	defer func() {
		if recover() != nil {
			failed = true
		}
	}()
	rs := make([]*yaml.RNode, len(items))
	for i, n := range items {
		rs[i] = yaml.NewRNode(n)
	}
	annos, err := kio.PreprocessResourcesForInternalAnnotationMigration(rs)
	if err != nil {
		return true
	}
	return kio.ReconcileInternalAnnotations(rs, annos) != nil
}
