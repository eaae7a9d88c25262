package schema_test

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/schema"
)

// TestOverrides: the functionConfig's mergeKeys entries decide before every schema source
// (CRD, built-in OpenAPI, inline comment) and the associative-key inference, per group and kind,
// passing through lists on their path.
func TestOverrides(t *testing.T) {
	entries := []schema.ListOverride{
		{Kind: "Widget", Path: []string{"spec", "endpoints"}, List: schema.List{Type: schema.Map, Keys: []string{"port"}}},
		{Group: "example.com", Kind: "Widget", Path: []string{"spec", "groups", "rules"}, List: schema.List{Type: schema.Map, Keys: []string{"alert", "record"}}},
		{Kind: "Widget", Path: []string{"spec", "items"}, List: schema.List{Type: schema.Atomic}},
		{Kind: "Widget", Path: []string{"spec", "steps"}, List: schema.List{Type: schema.Set}},
		{Kind: "Deployment", Path: []string{"spec", "template", "spec", "containers"}, List: schema.List{Type: schema.Atomic}},
		{Group: "other.io", Kind: "Widget", Path: []string{"spec", "steps"}, List: schema.List{Type: schema.Atomic}},
	}
	r := schema.New(schema.Options{OpenAPI: true}).WithOverrides(entries).WithCRDs([]*yaml.RNode{rnode(t, widgetCRD)})
	res := func(apiVersion, kind string) schema.Node {
		return r.ForResource(rnode(t, "apiVersion: "+apiVersion+"\nkind: "+kind+"\nmetadata:\n  name: w\n"))
	}
	for _, c := range []struct {
		name, apiVersion, kind, path, list, want string
	}{
		{"keyed by a key no associative key lists", "example.com/v1", "Widget", "spec.endpoints", "- port: a\n- port: b\n", "map[port]"},
		{"through a list", "example.com/v1", "Widget", "spec.groups.[].rules", "- alert: a\n- alert: b\n", "map[alert,record]*"},
		{"atomic over the CRD's map", "example.com/v1", "Widget", "spec.items", "- {id: a, zone: z}\n", "atomic"},
		{"set over inference", "example.com/v1", "Widget", "spec.steps", "- a\n- b\n", "set"},
		{"atomic over the built-in schema", "apps/v1", "Deployment", "spec.template.spec.containers", "- name: a\n", "atomic"},
		{"a group's entry wins over an any-group one", "other.io/v1", "Widget", "spec.steps", "- a\n- b\n", "atomic"},
		{"another kind is not touched", "example.com/v1", "Gadget", "spec.endpoints", "- port: a\n", "atomic"},
		{"the data must fit: a repeated key is atomic", "example.com/v1", "Widget", "spec.endpoints", "- port: a\n- port: a\n", "atomic"},
		{"places without an entry keep the schema", "example.com/v1", "Widget", "spec.tags", "- a\n", "set"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := render(r.Decide(at(res(c.apiVersion, c.kind), c.path), node(t, c.list))); got != c.want {
				t.Fatalf("got %s, want %s", got, c.want)
			}
		})
	}
	t.Run("schema none still applies mergeKeys", func(t *testing.T) {
		r := schema.New(schema.Options{}).WithOverrides(entries)
		n := r.ForResource(rnode(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"))
		if got := render(r.Decide(at(n, "spec.endpoints"), node(t, "- port: a\n"))); got != "map[port]" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("an inline comment does not beat mergeKeys", func(t *testing.T) {
		n := at(res("example.com/v1", "Widget"), "spec")
		y := node(t, "endpoints: # {\"type\":\"array\",\"x-kubernetes-list-type\":\"atomic\"}\n- port: a\n")
		n = schema.WithComments(n.Field("endpoints"), y.Content[0], y.Content[1])
		if got := render(r.Decide(n, y.Content[1])); got != "map[port]" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("no entries: the same resolver", func(t *testing.T) {
		base := schema.New(schema.Options{OpenAPI: true})
		if base.WithOverrides(nil) != base {
			t.Fatal("WithOverrides(nil) made a new resolver")
		}
	})
}

// TestWithOverridesKeepsCRDScopes: a Resolver given CRDs and then mergeKeys still knows
// which custom kinds are namespaced, whatever the order of the two calls.
func TestWithOverridesKeepsCRDScopes(t *testing.T) {
	crd := yaml.MustParse(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: clusterwidgets.example.com
spec:
  group: example.com
  scope: Cluster
  names: {kind: ClusterWidget, plural: clusterwidgets}
  versions:
  - name: v1
    served: true
    schema:
      openAPIV3Schema:
        type: object
`)
	over := []schema.ListOverride{{Kind: "ClusterWidget", Path: []string{"spec", "items"}, List: schema.List{Type: schema.Atomic}}}
	for name, r := range map[string]*schema.Resolver{
		"CRDs first":      schema.New(schema.Options{OpenAPI: true}).WithCRDs([]*yaml.RNode{crd}).WithOverrides(over),
		"overrides first": schema.New(schema.Options{OpenAPI: true}).WithOverrides(over).WithCRDs([]*yaml.RNode{crd}),
	} {
		if namespaced, known := r.Namespaced("example.com/v1", "ClusterWidget"); namespaced || !known {
			t.Errorf("%s: ClusterWidget (scope Cluster) reads as namespaced=%v known=%v", name, namespaced, known)
		}
	}
}
