package schema_test

// One named test per rule of docs/merge-semantics.md, "Which lists are associative,
// and by which key": the inline fieldmeta comment (rule 0), the Kubernetes schema for
// known kinds (rule 1: list-map-keys over patch-merge-key, sets, strategy-less lists
// atomic, ObjectMeta for every kind), the associative keys with the uniqueness rule
// (rule 2), atomic-never-error, and the wildcard secondary key (rule 3) as the decision
// reports it. The engine's use of the decisions is tested in pkg/merge.

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/schema"
)

func node(t *testing.T, s string) *yaml.Node {
	t.Helper()
	if s == "" {
		return nil
	}
	r, err := yaml.Parse(s)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return r.YNode()
}

func rnode(t *testing.T, s string) *yaml.RNode {
	t.Helper()
	r, err := yaml.Parse(s)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return r
}

// at walks a schema along dotted fields; "[]" steps into list elements.
func at(n schema.Node, path string) schema.Node {
	for _, f := range strings.Split(path, ".") {
		if f == "[]" {
			n = n.Elements()
		} else {
			n = n.Field(f)
		}
	}
	return n
}

func render(l schema.List) string {
	s := l.Type.String()
	if len(l.Keys) > 0 {
		s += "[" + strings.Join(l.Keys, ",") + "]"
	}
	if l.Wildcard {
		s += "*"
	}
	return s
}

func TestListKindString(t *testing.T) {
	for k, want := range map[schema.ListType]string{schema.Atomic: "atomic", schema.Map: "map", schema.Set: "set"} {
		if got := k.String(); got != want {
			t.Errorf("%d: %q, want %q", k, got, want)
		}
	}
}

const deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"

// TestKnownKinds is rule 1: for a known kind the Kubernetes schema decides, whatever the
// elements look like.
func TestKnownKinds(t *testing.T) {
	r := schema.New(schema.Options{OpenAPI: true})
	for _, c := range []struct {
		name, resource, path string
		lists                []string
		want                 string
	}{
		{"containers: patch-merge-key name", deployment, "spec.template.spec.containers", []string{"- name: a\n- name: b\n"}, "map[name]"},
		{"container ports: list-map-keys over patch-merge-key, wildcard on protocol", deployment, "spec.template.spec.containers.[].ports",
			[]string{"- containerPort: 80\n  protocol: TCP\n- containerPort: 80\n  protocol: UDP\n"}, "map[containerPort,protocol]*"},
		{"service ports: port and protocol", "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n", "spec.ports",
			[]string{"- port: 80\n"}, "map[port,protocol]*"},
		{"volumeMounts: patch-merge-key mountPath, although elements also carry name", deployment, "spec.template.spec.containers.[].volumeMounts",
			[]string{"- name: a\n  mountPath: /a\n- name: a\n  mountPath: /b\n"}, "map[mountPath]"},
		{"topologySpreadConstraints: two list-map-keys", deployment, "spec.template.spec.topologySpreadConstraints",
			[]string{"- topologyKey: zone\n  whenUnsatisfiable: DoNotSchedule\n"}, "map[topologyKey,whenUnsatisfiable]*"},
		{"metadata.finalizers: merge strategy without key is a set", deployment, "metadata.finalizers", []string{"- a\n- b\n"}, "set"},
		{"metadata.ownerReferences: keyed by uid, not by the heuristic name", deployment, "metadata.ownerReferences",
			[]string{"- name: p\n  uid: u1\n- name: p\n  uid: u2\n"}, "map[uid]"},
		{"a list without strategy is atomic although elements carry the associative key name (sysctls)", deployment, "spec.template.spec.securityContext.sysctls",
			[]string{"- name: a\n  value: \"1\"\n- name: b\n  value: \"2\"\n"}, "atomic"},
		{"tolerations: no strategy, atomic", deployment, "spec.template.spec.tolerations", []string{"- key: a\n"}, "atomic"},
		{"args: no strategy, atomic", deployment, "spec.template.spec.containers.[].args", []string{"- a\n- a\n"}, "atomic"},
		{"a known list decided with no values at all", deployment, "spec.template.spec.containers", nil, "map[name]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var lists []*yaml.Node
			for _, l := range c.lists {
				lists = append(lists, node(t, l))
			}
			sch := at(r.ForResource(rnode(t, c.resource)), c.path)
			if !sch.Known() {
				t.Fatalf("no schema at %s", c.path)
			}
			if got := render(r.Decide(sch, lists...)); got != c.want {
				t.Fatalf("got %s, want %s", got, c.want)
			}
		})
	}
}

// TestSchemaDecisionDemotedWhereDataDoesNotFit: a keyed list whose elements repeat a key
// or lack the primary key, or a set with repeated or non-scalar elements, is atomic, so
// that pairing loses nothing. A missing secondary key (wildcard) is fine.
func TestSchemaDecisionDemotedWhereDataDoesNotFit(t *testing.T) {
	r := schema.New(schema.Options{OpenAPI: true})
	d := r.ForResource(rnode(t, deployment))
	containers := at(d, "spec.template.spec.containers")
	ports := at(d, "spec.template.spec.containers.[].ports")
	finalizers := at(d, "metadata.finalizers")
	for _, c := range []struct {
		name  string
		sch   schema.Node
		lists []string
		want  string
	}{
		{"duplicate merge key in one source", containers, []string{"- name: a\n", "- name: a\n- name: a\n"}, "atomic"},
		{"an element without the merge key", containers, []string{"- name: a\n- image: x\n"}, "atomic"},
		{"an element with a null merge key", containers, []string{"- name: a\n- name: null\n"}, "atomic"},
		{"an element that is not a map", containers, []string{"- name: a\n- b\n"}, "atomic"},
		{"a missing secondary key is a wildcard, still keyed", ports, []string{"- containerPort: 80\n- containerPort: 81\n  protocol: UDP\n"}, "map[containerPort,protocol]*"},
		{"a missing primary key is not", ports, []string{"- protocol: UDP\n"}, "atomic"},
		{"the same partial tuple twice is a duplicate", ports, []string{"- containerPort: 80\n- containerPort: 80\n"}, "atomic"},
		{"set with a repeated value", finalizers, []string{"- a\n- a\n"}, "atomic"},
		{"set with a map element", finalizers, []string{"- a\n- {b: c}\n"}, "atomic"},
		{"set values differing only in tag are distinct", finalizers, []string{"- 1\n- \"1\"\n"}, "set"},
		{"a non-list source is ignored", containers, []string{"- name: a\n", "scalar\n"}, "map[name]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var lists []*yaml.Node
			for _, l := range c.lists {
				lists = append(lists, node(t, l))
			}
			if got := render(r.Decide(c.sch, lists...)); got != c.want {
				t.Fatalf("got %s, want %s", got, c.want)
			}
		})
	}
}

// TestHeuristicKeys is rule 2: no schema for the list (custom kinds, unknown fields, or
// schema: none): the first associative key every element of every source carries, with unique
// values in each source; else atomic, never an error.
func TestHeuristicKeys(t *testing.T) {
	for _, c := range []struct {
		name  string
		keys  []string
		lists []string
		want  string
	}{
		{"name", schema.DefaultAssociativeKeys(), []string{"- name: a\n- name: b\n"}, "map[name]"},
		{"associative key precedence: mountPath before name", schema.DefaultAssociativeKeys(), []string{"- name: a\n  mountPath: /a\n- name: b\n  mountPath: /b\n"}, "map[mountPath]"},
		{"associative key precedence: type before name when type is unique", schema.DefaultAssociativeKeys(),
			[]string{"- name: Age\n  type: date\n- name: Ready\n  type: string\n"}, "map[type]"},
		{"uniqueness: additionalPrinterColumns with type repeated and name unique is keyed by name (kustomize #2148)", schema.DefaultAssociativeKeys(),
			[]string{"- name: Ready\n  type: string\n  jsonPath: .a\n- name: Age\n  type: date\n  jsonPath: .b\n- name: Status\n  type: string\n  jsonPath: .c\n"}, "map[name]"},
		{"uniqueness is per source: a repeat in any source disqualifies the key", schema.DefaultAssociativeKeys(),
			[]string{"- name: a\n  type: x\n- name: b\n  type: y\n", "- name: a\n  type: x\n- name: b\n  type: x\n"}, "map[name]"},
		{"the key must be carried in every source", schema.DefaultAssociativeKeys(),
			[]string{"- ip: 1.1.1.1\n  name: a\n", "- name: a\n"}, "map[name]"},
		{"no associative key at all: atomic", schema.DefaultAssociativeKeys(), []string{"- run: a\n- run: b\n"}, "atomic"},
		{"an element lacking the key (kyaml: conflicting merge keys): atomic", schema.DefaultAssociativeKeys(), []string{"- name: a\n", "- name: a\n- value: x\n"}, "atomic"},
		{"no key unique: atomic", schema.DefaultAssociativeKeys(), []string{"- name: a\n  type: t\n- name: a\n  type: t\n"}, "atomic"},
		{"primitives: atomic (only a schema makes a set)", schema.DefaultAssociativeKeys(), []string{"- a\n- b\n"}, "atomic"},
		{"a null key value does not count", schema.DefaultAssociativeKeys(), []string{"- name: a\n- name: ~\n"}, "atomic"},
		{"a map as key value does not count", schema.DefaultAssociativeKeys(), []string{"- name: a\n- name: {x: 1}\n"}, "atomic"},
		{"empty lists: atomic", schema.DefaultAssociativeKeys(), []string{"[]\n", "[]\n"}, "atomic"},
		{"one empty source does not decide", schema.DefaultAssociativeKeys(), []string{"[]\n", "- name: a\n"}, "map[name]"},
		{"configured keys replace the defaults", []string{"id"}, []string{"- id: 1\n  name: a\n- id: 2\n  name: a\n"}, "map[id]"},
		{"configured keys: the defaults no longer apply", []string{"id"}, []string{"- name: a\n- name: b\n"}, "atomic"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var lists []*yaml.Node
			for _, l := range c.lists {
				lists = append(lists, node(t, l))
			}
			for _, r := range []*schema.Resolver{schema.New(schema.Options{AssociativeKeys: c.keys}), schema.New(schema.Options{OpenAPI: true, AssociativeKeys: c.keys})} {
				// custom kind: no schema for spec; with openAPI false, none at all
				sch := at(r.ForResource(rnode(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n")), "spec.items")
				if sch.Known() {
					t.Fatalf("custom kind has a schema for spec.items")
				}
				if got := render(r.Decide(sch, lists...)); got != c.want {
					t.Fatalf("got %s, want %s", got, c.want)
				}
			}
		})
	}
}

// TestSchemaNone: with the Kubernetes schema off, known kinds use the heuristic too.
func TestSchemaNone(t *testing.T) {
	r := schema.New(schema.Options{})
	d := r.ForResource(rnode(t, deployment))
	if d.Known() {
		t.Fatal("schema: none still knows Deployment")
	}
	sysctls := node(t, "- name: a\n  value: \"1\"\n")
	if got := render(r.Decide(at(d, "spec.template.spec.securityContext.sysctls"), sysctls)); got != "map[name]" {
		t.Fatalf("sysctls: %s, want the heuristic map[name]", got)
	}
	if got := render(r.Decide(at(d, "metadata.finalizers"), node(t, "- a\n"))); got != "atomic" {
		t.Fatalf("finalizers: %s, want atomic without a schema", got)
	}
	var nilResolver *schema.Resolver
	if nilResolver.ForResource(rnode(t, deployment)).Known() || render(nilResolver.Decide(schema.Node{}, sysctls)) != "atomic" {
		t.Fatal("a nil resolver knows nothing and keys nothing")
	}
}

// TestObjectMetaForEveryKind: metadata follows ObjectMeta for custom resources too.
func TestObjectMetaForEveryKind(t *testing.T) {
	r := schema.New(schema.Options{OpenAPI: true})
	w := r.ForResource(rnode(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"))
	if got := render(r.Decide(at(w, "metadata.ownerReferences"), node(t, "- {name: p, uid: a}\n- {name: p, uid: b}\n"))); got != "map[uid]" {
		t.Errorf("ownerReferences: %s, want map[uid]", got)
	}
	if got := render(r.Decide(at(w, "metadata.finalizers"), node(t, "- a\n- b\n"))); got != "set" {
		t.Errorf("finalizers: %s, want set", got)
	}
	if !at(w, "metadata.labels").Known() || at(w, "spec").Known() {
		t.Fatal("only metadata is known for a custom kind")
	}
}

// TestForResource: the first of the nodes with apiVersion and kind names the schema.
func TestForResource(t *testing.T) {
	r := schema.New(schema.Options{OpenAPI: true})
	svc := rnode(t, "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n")
	noKind := rnode(t, "metadata:\n  name: s\n")
	n := r.ForResource(nil, noKind, yaml.NewRNode(&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}), svc, rnode(t, deployment))
	if got := render(r.Decide(at(n, "spec.ports"))); got != "map[port,protocol]*" {
		t.Fatalf("Service ports: %s", got)
	}
	if n := r.ForResource(nil, noKind); !at(n, "metadata.finalizers").Known() || at(n, "spec").Known() {
		t.Fatal("no kind anywhere: metadata only")
	}
}

// TestInlineFieldMeta is rule 0: a field's own inline OpenAPI comment, on its key or its
// value, in any source, overrides every other source for that field.
func TestInlineFieldMeta(t *testing.T) {
	r := schema.New(schema.Options{OpenAPI: true})
	keyed := `{"type":"array","x-kubernetes-patch-strategy":"merge","x-kubernetes-patch-merge-key":"id"}`
	pair := func(t *testing.T, s string) (key, value *yaml.Node) {
		m := node(t, s)
		return m.Content[0], m.Content[1]
	}
	t.Run("comment on a custom list's key makes it keyed by its key", func(t *testing.T) {
		k, v := pair(t, "rules: # "+keyed+"\n- id: a\n- id: b\n")
		got := r.Decide(schema.WithComments(schema.Node{}, k, v), v)
		if render(got) != "map[id]" {
			t.Fatalf("got %s", render(got))
		}
	})
	t.Run("list-type map with several keys in a comment", func(t *testing.T) {
		k, v := pair(t, "rules: # {\"type\":\"array\",\"x-kubernetes-list-type\":\"map\",\"x-kubernetes-list-map-keys\":[\"a\",\"b\"]}\n- {a: 1, b: 2}\n")
		if got := render(r.Decide(schema.WithComments(schema.Node{}, k, v), v)); got != "map[a,b]*" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("list-map-keys over patch-merge-key in a patch-strategy comment", func(t *testing.T) {
		k, v := pair(t, "rules: # {\"type\":\"array\",\"x-kubernetes-patch-strategy\":\"merge\",\"x-kubernetes-patch-merge-key\":\"a\",\"x-kubernetes-list-map-keys\":[\"a\",\"b\"]}\n- {a: 1, b: 2}\n")
		if got := render(r.Decide(schema.WithComments(schema.Node{}, k, v), v)); got != "map[a,b]*" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("patch strategy retainKeys without merge: atomic", func(t *testing.T) {
		k, v := pair(t, "rules: # {\"type\":\"array\",\"x-kubernetes-patch-strategy\":\"retainKeys\",\"x-kubernetes-patch-merge-key\":\"name\"}\n- {name: a}\n")
		if got := render(r.Decide(schema.WithComments(schema.Node{}, k, v), v)); got != "atomic" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("patch strategy merge,retainKeys: keyed", func(t *testing.T) {
		k, v := pair(t, "rules: # {\"type\":\"array\",\"x-kubernetes-patch-strategy\":\"merge,retainKeys\",\"x-kubernetes-patch-merge-key\":\"name\"}\n- {name: a}\n")
		if got := render(r.Decide(schema.WithComments(schema.Node{}, k, v), v)); got != "map[name]" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("list-type atomic in a comment beats a associative key", func(t *testing.T) {
		k, v := pair(t, "rules: # {\"type\":\"array\",\"x-kubernetes-list-type\":\"atomic\"}\n- {name: a}\n")
		if got := render(r.Decide(schema.WithComments(schema.Node{}, k, v), v)); got != "atomic" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("comment in another source counts", func(t *testing.T) {
		k1, v1 := pair(t, "rules:\n- id: a\n")
		k2, v2 := pair(t, "rules: # "+keyed+"\n- id: a\n")
		if got := render(r.Decide(schema.WithComments(schema.Node{}, k1, v1, k2, v2), v1, v2)); got != "map[id]" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("comment overrides the Kubernetes schema: containers made atomic", func(t *testing.T) {
		containers := at(r.ForResource(rnode(t, deployment)), "spec.template.spec.containers")
		k, v := pair(t, "containers: # {\"type\":\"array\"}\n- name: a\n")
		if got := render(r.Decide(schema.WithComments(containers, k, v), v)); got != "atomic" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("comment overrides the heuristic: a set of primitives", func(t *testing.T) {
		k, v := pair(t, "tags: # {\"type\":\"array\",\"x-kubernetes-list-type\":\"set\"}\n- a\n- b\n")
		if got := render(r.Decide(schema.WithComments(schema.Node{}, k, v), v)); got != "set" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("comment with a $ref to a Kubernetes definition", func(t *testing.T) {
		k, v := pair(t, "spec: # {\"$ref\":\"#/definitions/io.k8s.api.core.v1.PodSpec\"}\n  containers: []\n")
		sch := schema.WithComments(schema.Node{}, k, v)
		if got := render(r.Decide(sch.Field("containers"), node(t, "- name: a\n"))); got != "map[name]" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("an ordinary comment changes nothing", func(t *testing.T) {
		containers := at(r.ForResource(rnode(t, deployment)), "spec.template.spec.containers")
		k, v := pair(t, "containers: # the app\n- name: a\n")
		if got := render(r.Decide(schema.WithComments(containers, k, v), v)); got != "map[name]" {
			t.Fatalf("got %s", got)
		}
	})
}

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          metadata: {type: object}
          spec:
            type: object
            properties:
              items:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [id, zone]
                items:
                  type: object
                  properties:
                    id: {type: string}
                    zone: {type: string}
              tags:
                type: array
                x-kubernetes-list-type: set
                items: {type: string}
              steps:
                type: array
                items:
                  type: object
                  properties:
                    name: {type: string}
              stages:
                type: array
                x-kubernetes-list-type: atomic
                items:
                  type: object
              rules:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  properties:
                    name: {type: string}
                    hosts:
                      type: array
                      x-kubernetes-list-type: map
                      x-kubernetes-list-map-keys: [host]
                      items: {type: object}
            x-kubernetes-preserve-unknown-fields: true
  - name: v2
    served: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              items:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [id]
                items: {type: object}
`

// TestCRDsInTheInput is rule 1's "plus any CustomResourceDefinition present in the
// input": the CRD's schema decides for its kind, like the built-in schema for built-in
// kinds.
func TestCRDsInTheInput(t *testing.T) {
	base := schema.New(schema.Options{OpenAPI: true})
	r := base.WithCRDs([]*yaml.RNode{rnode(t, deployment), rnode(t, widgetCRD), nil})
	w := func(apiVersion string) schema.Node {
		return r.ForResource(rnode(t, "apiVersion: "+apiVersion+"\nkind: Widget\nmetadata:\n  name: w\n"))
	}
	for _, c := range []struct {
		name, apiVersion, path string
		list                   string
		want                   string
	}{
		{"list-type map with two keys", "example.com/v1", "spec.items", "- {id: a, zone: z}\n", "map[id,zone]*"},
		{"list-type set", "example.com/v1", "spec.tags", "- a\n- b\n", "set"},
		{"a list without list-type gets the associative-key inference (kube-prometheus style CRDs)", "example.com/v1", "spec.steps", "- name: a\n- name: b\n", "map[name]"},
		{"a list without list-type and no associative key: atomic by inference", "example.com/v1", "spec.steps", "- port: a\n- port: b\n", "atomic"},
		{"list-type atomic, although its elements carry the associative key name", "example.com/v1", "spec.stages", "- name: a\n- name: b\n", "atomic"},
		{"nested keyed list", "example.com/v1", "spec.rules.[].hosts", "- host: a\n", "map[host]"},
		{"a field the schema does not describe: heuristic keys", "example.com/v1", "spec.other", "- name: a\n", "map[name]"},
		{"metadata is ObjectMeta whatever the CRD says", "example.com/v1", "metadata.finalizers", "- a\n", "set"},
		{"each version its own schema", "example.com/v2", "spec.items", "- {id: a}\n", "map[id]"},
		{"a version the CRD does not list: another version's schema", "example.com/v9", "spec.items", "- {id: a, zone: z}\n", "map[id,zone]*"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := render(r.Decide(at(w(c.apiVersion), c.path), node(t, c.list))); got != c.want {
				t.Fatalf("got %s, want %s", got, c.want)
			}
		})
	}
	t.Run("another group's Widget is not the CRD's", func(t *testing.T) {
		n := r.ForResource(rnode(t, "apiVersion: other.io/v1\nkind: Widget\nmetadata:\n  name: w\n"))
		if at(n, "spec").Known() {
			t.Fatal("other.io/Widget got example.com's schema")
		}
	})
	t.Run("the resolver WithCRDs was called on is unchanged", func(t *testing.T) {
		n := base.ForResource(rnode(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"))
		if at(n, "spec").Known() {
			t.Fatal("base resolver learned the CRD")
		}
	})
	t.Run("v1beta1 validation schema applies to every version", func(t *testing.T) {
		crd := rnode(t, "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.example.com\nspec:\n  group: example.com\n  version: v1alpha1\n  names: {kind: Gadget}\n  validation:\n    openAPIV3Schema:\n      type: object\n      properties:\n        spec:\n          type: object\n          properties:\n            parts:\n              type: array\n              x-kubernetes-list-type: map\n              x-kubernetes-list-map-keys: [part]\n              items: {type: object}\n")
		r := base.WithCRDs([]*yaml.RNode{crd})
		for _, v := range []string{"v1alpha1", "v1"} {
			n := r.ForResource(rnode(t, "apiVersion: example.com/"+v+"\nkind: Gadget\nmetadata:\n  name: g\n"))
			if got := render(r.Decide(at(n, "spec.parts"), node(t, "- part: a\n"))); got != "map[part]" {
				t.Fatalf("%s: got %s", v, got)
			}
		}
	})
	t.Run("schema: none ignores CRDs", func(t *testing.T) {
		r := schema.New(schema.Options{}).WithCRDs([]*yaml.RNode{rnode(t, widgetCRD)})
		if r.ForResource(rnode(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n")).Known() {
			t.Fatal("schema none used a CRD")
		}
	})
	t.Run("a CRD without a readable schema is skipped", func(t *testing.T) {
		r := base.WithCRDs([]*yaml.RNode{rnode(t, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: x\nspec:\n  group: example.com\n  names: {kind: Widget}\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema: [not, a, map]\n")})
		n := r.ForResource(rnode(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"))
		if at(n, "spec").Known() || render(r.Decide(at(n, "spec.steps"), node(t, "- name: a\n"))) != "map[name]" {
			t.Fatal("unreadable CRD schema was used")
		}
	})
}
