package schema_test

import (
	"fmt"
	"log"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/schema"
)

// decide asks r how the list at the field path fields of resource res merges. The
// schema is walked from the resource's root (ForResource) one map field at a time
// (Node.Field; Node.Elements steps into a list's elements), and Decide gets the list's
// value, to check that the data fits the keys, or to infer keys where no schema has
// any. In a merge, Decide gets the list's value in every source (original, updated,
// dest).
func decide(r *schema.Resolver, res *yaml.RNode, fields ...string) schema.List {
	n := r.ForResource(res)
	for _, f := range fields {
		n = n.Field(f)
	}
	list, err := res.Pipe(yaml.Lookup(fields...))
	if err != nil || list == nil {
		log.Fatalf("no list at %v", fields)
	}
	return r.Decide(n, list.YNode())
}

// Built-in kinds: the Kubernetes OpenAPI that kyaml embeds gives merge keys
// (x-kubernetes-patch-merge-key), sets of primitives (patch strategy merge without a
// key: metadata.finalizers, for every kind) and atomic lists (no strategy). The
// HorizontalPodAutoscaler's metrics are atomic although every element carries `type`,
// one of the associative keys: the schema wins over inference. Without the schema
// (New(Options{}), the functionConfig's `schema: none`) the associative keys decide.
func ExampleResolver_Decide() {
	deploy := yaml.MustParse(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  finalizers: [example.com/protect]
spec:
  template:
    spec:
      containers:
      - {name: app, image: app:1}
`)
	svc := yaml.MustParse(`apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  ports:
  - {port: 80, protocol: TCP}
`)
	hpa := yaml.MustParse(`apiVersion: autoscaling/v2beta2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  metrics:
  - type: Resource
    resource: {name: cpu}
`)
	builtin := schema.New(schema.Options{OpenAPI: true})
	keysOnly := schema.New(schema.Options{})
	for _, c := range []struct {
		what string
		r    *schema.Resolver
		res  *yaml.RNode
		path []string
	}{
		{"Deployment containers", builtin, deploy, []string{"spec", "template", "spec", "containers"}},
		{"Deployment finalizers", builtin, deploy, []string{"metadata", "finalizers"}},
		{"Service ports", builtin, svc, []string{"spec", "ports"}},
		{"HPA metrics", builtin, hpa, []string{"spec", "metrics"}},
		{"HPA metrics, schema none", keysOnly, hpa, []string{"spec", "metrics"}},
	} {
		l := decide(c.r, c.res, c.path...)
		fmt.Printf("%s: %s %v wildcard=%v\n", c.what, l.Type, l.Keys, l.Wildcard)
	}
	// Output:
	// Deployment containers: map [name] wildcard=false
	// Deployment finalizers: set [] wildcard=false
	// Service ports: map [port protocol] wildcard=true
	// HPA metrics: atomic [] wildcard=false
	// HPA metrics, schema none: map [type] wildcard=false
}

// A CustomResourceDefinition in the input describes its kind's lists: here
// x-kubernetes-list-type map with x-kubernetes-list-map-keys. A list the CRD leaves
// without a list type (spec.hosts) gets the associative-key inference, as if no schema described
// it; here `ip`, the first associative key every element carries with unique values. The CRD's
// scope answers Namespaced.
func ExampleResolver_WithCRDs() {
	crd := yaml.MustParse(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
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
          spec:
            type: object
            properties:
              endpoints:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [port]
                items:
                  type: object
                  properties:
                    port: {type: integer}
                    path: {type: string}
              hosts:
                type: array
                items:
                  type: object
                  properties:
                    ip: {type: string}
                    name: {type: string}
`)
	widget := yaml.MustParse(`apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec:
  endpoints:
  - {port: 8080, path: /metrics}
  hosts:
  - {ip: 10.0.0.1, name: a}
  - {ip: 10.0.0.2, name: a}
`)
	r := schema.New(schema.Options{OpenAPI: true}).WithCRDs([]*yaml.RNode{crd})
	for _, f := range []string{"endpoints", "hosts"} {
		l := decide(r, widget, "spec", f)
		fmt.Printf("spec.%s: %s %v\n", f, l.Type, l.Keys)
	}
	namespaced, known := r.Namespaced("example.com/v1", "Widget")
	fmt.Println("namespaced:", namespaced, "known:", known)
	// Output:
	// spec.endpoints: map [port]
	// spec.hosts: map [ip]
	// namespaced: true known: true
}

// The functionConfig's mergeKeys entries (config.Config.MergeKeys) are the strongest
// source: here a ServiceMonitor whose CRD is not in the input. Without the entry its
// endpoints would be inferred from the associative keys, and no associative key fits them (atomic).
func ExampleResolver_WithOverrides() {
	sm := yaml.MustParse(`apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web}
spec:
  endpoints:
  - {port: http, path: /metrics}
  - {port: admin, path: /healthz}
`)
	plain := schema.New(schema.Options{OpenAPI: true})
	withEntry := plain.WithOverrides([]schema.ListOverride{{
		Group: "monitoring.coreos.com",
		Kind:  "ServiceMonitor",
		Path:  []string{"spec", "endpoints"},
		List:  schema.List{Type: schema.Map, Keys: []string{"port"}},
	}})
	l := decide(plain, sm, "spec", "endpoints")
	fmt.Printf("without mergeKeys: %s %v\n", l.Type, l.Keys)
	l = decide(withEntry, sm, "spec", "endpoints")
	fmt.Printf("with mergeKeys: %s %v\n", l.Type, l.Keys)
	// Output:
	// without mergeKeys: atomic []
	// with mergeKeys: map [port]
}

// With no schema for a list, the associative keys are tried in order (DefaultAssociativeKeys): the first
// that every element carries, with values unique in the list, is the merge key
// (mountPath comes before name). A list where no key qualifies (two elements named the
// same) is atomic, so that nothing is lost by pairing, and so is a list of scalars
// without a schema saying it is a set. schema.Node{} is "no schema here".
func ExampleNew() {
	r := schema.New(schema.Options{})
	for _, text := range []string{
		"items:\n- {name: a, mountPath: /a}\n- {name: b, mountPath: /b}\n",
		"items:\n- {name: a, value: 1}\n- {name: b, value: 2}\n",
		"items:\n- {name: a, value: 1}\n- {name: a, value: 2}\n",
		"items: [x, y]\n",
	} {
		list := yaml.MustParse(text).Field("items").Value.YNode()
		l := r.Decide(schema.Node{}, list)
		fmt.Printf("%s %v\n", l.Type, l.Keys)
	}
	// Output:
	// map [mountPath]
	// map [name]
	// atomic []
	// atomic []
}
