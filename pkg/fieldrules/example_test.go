package fieldrules_test

import (
	"fmt"
	"log"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/fieldrules"
	"github.com/krm-merge/krm-merge/pkg/merge"
)

// The field rules of one resource, from a functionConfig fieldRules entry (matched
// against dest: group, kind and a label selector) and from dest's field-rules
// annotation, then applied to a 3-way merge (merge.Options.FieldRules, as package
// resources does per resource). The merge alone would take upstream's replicas, a
// conflict; keepDest keeps the local value and reports the decision as a RuleEffect.
// takeUpdated on the image holds what the merge wrote anyway (updated wins conflicts by
// default), but it decides the conflict there, so none is left to report.
func ExampleFor() {
	original := yaml.MustParse(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: app
        image: app:1
`)
	updated := yaml.MustParse(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: app
        image: app:2
`)
	dest := yaml.MustParse(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {tier: web}
  annotations:
    fn.krm-merge.dev/field-rules: spec.template.spec.containers[name=app].image=takeUpdated
spec:
  replicas: 5
  template:
    spec:
      containers:
      - name: app
        image: mirror.example.com/app:1
`)
	match, err := fieldrules.NewMatch("apps", "Deployment", "", "", "tier=web")
	if err != nil {
		log.Fatal(err)
	}
	replicas, err := fieldrules.ParsePath("spec.replicas")
	if err != nil {
		log.Fatal(err)
	}
	fromConfig := []fieldrules.Rule{{Match: match, Paths: []fieldpath.Path{replicas}, Policy: fieldrules.KeepDest, Source: "fieldRules[0]"}}

	rules, err := fieldrules.For(fromConfig, dest, updated, "updated")
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range rules {
		fmt.Printf("%s=%s (from %s)\n", r.Path, r.Policy, r.Source)
	}

	res, err := merge.ThreeWay(original, updated, dest, merge.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("conflicts before the rules:", len(res.Conflicts))
	res, err = merge.ThreeWay(original, updated, dest, merge.Options{FieldRules: rules})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("conflicts after the rules:", len(res.Conflicts))
	for _, e := range res.RuleEffects {
		fmt.Printf("effect %s: merge wrote %s, output holds %s, decided %d conflict(s)\n",
			e.Rule.Path, e.Merged.YNode().Value, e.Result.YNode().Value, len(e.Conflicts))
	}
	out := res.Value
	fmt.Print(out.Field("spec").Value.MustString())
	// Output:
	// spec.replicas=keepDest (from fieldRules[0])
	// spec.template.spec.containers[name=app].image=takeUpdated (from dest's fn.krm-merge.dev/field-rules annotation)
	// conflicts before the rules: 2
	// conflicts after the rules: 0
	// effect spec.replicas: merge wrote 2, output holds 5, decided 1 conflict(s)
	// effect spec.template.spec.containers[name=app].image: merge wrote app:2, output holds app:2, decided 1 conflict(s)
	// replicas: 5
	// template:
	//   spec:
	//     containers:
	//     - name: app
	//       image: app:2
}

// The annotation's syntax: "path=policy" entries separated by commas or newlines; a
// comma inside a [..] selector belongs to the path. Errors quote the entry.
func ExampleParseAnnotation() {
	rules, err := fieldrules.ParseAnnotation("spec.replicas=keepDest, spec.ports[port=80,protocol=TCP].nodePort=ignore", "dest")
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range rules {
		fmt.Println(r.Path, r.Policy)
	}
	_, err = fieldrules.ParseAnnotation("spec.replicas=mine", "dest")
	fmt.Println(err)
	_, err = fieldrules.ParseAnnotation("spec.containers[0].image=keepDest", "dest")
	fmt.Println(err)
	// Output:
	// spec.replicas keepDest
	// spec.ports[port=80,protocol=TCP].nodePort ignore
	// entry "spec.replicas=mine": policy "mine" is invalid; valid values: keepDest, takeUpdated, ignore
	// entry "spec.containers[0].image=keepDest": field path "spec.containers[0].image" has a positional selector [0]; select list elements by merge key ([name=app]) or value ([=value])
}
