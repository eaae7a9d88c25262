package config

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/testsupport"
)

// TestJSONReady: jsonReady is sure only of nodes kyaml's MarshalJSON reads, and says
// "not sure" for the shapes that have no JSON form.
func TestJSONReady(t *testing.T) {
	for in, want := range map[string]bool{
		"a: 1\nb: [x, 2.5, true, null, ~, '']\nc: {d: 2001-12-14}\n": true,
		"a: !!str 1\n":        true,
		"a: 1\na: 2\n":        false, // a repeated key
		"1: a\n":              false, // a key that is not a string
		"a: .nan\n":           false,
		"a: -.Inf\n":          false,
		"a: !!binary aGk=\n":  false,
		"a: !custom x\n":      false,
		"a: &x 1\nb: *x\n":    false,
		"<<: {a: 1}\n":        false,
		"? [a]\n: 1\n":        false,
		"a: !!int notanint\n": false,
	} {
		n, err := yaml.Parse(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if got := jsonReady(n.YNode()); got != want {
			t.Errorf("jsonReady(%q) = %v, want %v", in, got, want)
		}
	}
	// Sure means readable: every document of the cases and examples.
	for _, s := range testsupport.SeedDocs(t) {
		n, err := yaml.Parse(s)
		if err != nil || n.YNode().Kind != yaml.MappingNode || !jsonReady(n.YNode()) {
			continue
		}
		var v interface{}
		if err := readJSON(n.YNode(), &v); err != nil {
			t.Errorf("jsonReady but no JSON form (%v):\n%s", err, s)
		}
	}
}

// TestInlineResourceWithoutJSONForm: an inline resource with no JSON form makes the
// whole functionConfig unreadable, with the error of reading it whole, and a schema
// failure inside an inline resource is reported as the schema reports it.
func TestInlineResourceWithoutJSONForm(t *testing.T) {
	head := "apiVersion: fn.krm-merge.dev/v1alpha1\nkind: ResourceMerge\nspec:\n  original: []\n  updated:\n"
	for _, item := range []string{
		"  - {apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {k: 1, k: 2}}\n",
		"  - {apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {1: x}}\n",
	} {
		fc := yaml.MustParse(head + item)
		var whole interface{}
		werr := readJSON(rootNode(fc), &whole)
		if werr == nil {
			t.Fatalf("%q has a JSON form", item)
		}
		_, err := Load(fc)
		if want := fmt.Sprintf("cannot read the %s: %v", Kind, werr); err == nil || !strings.Contains(oneLine(err.Error()), oneLine(want)) {
			t.Errorf("Load(%q) = %v, want %q", item, err, want)
		}
	}
	_, err := Load(yaml.MustParse(head + "  - {apiVersion: v1, kind: ConfigMap, metadata: {name: 3}, data: {k: v}}\n"))
	if err == nil || !strings.Contains(err.Error(), "spec.updated[0].metadata.name in body must be of type string") {
		t.Errorf("a name of the wrong type: %v", err)
	}
}
