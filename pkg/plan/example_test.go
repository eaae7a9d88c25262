package plan_test

import (
	"fmt"
	"log"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/plan"
)

// values turns a YAML object into the JSON-like value Diff compares.
func values(text string) map[string]interface{} {
	m, err := yaml.MustParse(text).Map()
	if err != nil {
		log.Fatal(err)
	}
	return m
}

// containers is a fixed schema for the example: spec.containers is keyed by name, each
// container's args atomic. A run gets its schema from package schema instead (package
// resources adapts a schema.Resolver to Meta).
type containers struct{ depth int }

func (c containers) Field(name string) plan.Meta {
	if c.depth == 0 && name == "spec" {
		return containers{depth: 1}
	}
	return nil
}

func (c containers) List(name string, cur, prop []interface{}) plan.List {
	if c.depth == 1 && name == "containers" {
		return plan.List{Keys: []string{"name"}}
	}
	return plan.List{}
}

// The field changes between two objects: one Change per field, in field order, with the
// current and proposed values. With a schema that says containers are keyed by name,
// a change inside a container is reported at its element ([name=app]) and an element
// that moves is a reorder; without one (nil Meta) the whole list changes.
func ExampleDiff() {
	cur := values(`metadata:
  name: web
  labels: {tier: web}
spec:
  replicas: 2
  containers:
  - {name: app, image: app:1}
  - {name: log, image: log:1}
`)
	prop := values(`metadata:
  name: web
  labels: {tier: web, team: a}
spec:
  containers:
  - {name: log, image: log:1}
  - {name: app, image: app:2}
`)
	for _, c := range plan.Diff(cur, prop, plan.Options{Meta: containers{}}) {
		fmt.Printf("%-7s %s: %v -> %v\n", c.Op, c.Path, c.Current, c.Proposed)
	}
	fmt.Println("--- no schema")
	for _, c := range plan.Diff(cur, prop, plan.Options{}) {
		fmt.Printf("%-7s %s\n", c.Op, c.Path)
	}
	// Output:
	// add     metadata.labels.team: <nil> -> a
	// change  spec.containers[name=app].image: app:1 -> app:2
	// reorder spec.containers: [app log] -> [log app]
	// delete  spec.replicas: 2 -> <nil>
	// --- no schema
	// add     metadata.labels.team
	// change  spec.containers
	// delete  spec.replicas
}

// With a base (the common ancestor: apply mode's last-applied configuration, 3-way's
// original), each change carries the base's value, and OverwritesBase tells a change
// that undoes someone else's edit made since the base.
func ExampleChange_OverwritesBase() {
	base := values("spec: {replicas: 2}\n")
	live := values("spec: {replicas: 5}\n") // scaled by an HPA since the last apply
	config := values("spec: {replicas: 3}\n")
	for _, c := range plan.Diff(live, config, plan.Options{Base: base, HasBase: true}) {
		fmt.Println(c.Op, c.Path, c.Current, "->", c.Proposed, "base", c.Base, "overwrites:", c.OverwritesBase())
	}
	// Output:
	// change spec.replicas 5 -> 3 base 2 overwrites: true
}
