package apply_test

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/apply"
)

// A live Deployment scaled by an HPA and carrying server defaults, and a local config
// that drops an env var, adds a label and switches the rollout strategy.
func ExampleApply() {
	live := yaml.MustParse(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"name":"web"},"spec":{"replicas":2,"template":{"spec":{"containers":[{"env":[{"name":"DEBUG","value":"1"}],"image":"web:1","name":"web"}]}}}}
spec:
  replicas: 5 # scaled by the HPA
  strategy: # defaulted by the API server
    type: RollingUpdate
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 25%}
  template:
    spec:
      containers:
      - name: web # the app
        image: web:1
        env:
        - {name: DEBUG, value: "1"}
        imagePullPolicy: IfNotPresent
`)
	config := yaml.MustParse(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  strategy: {type: Recreate}
  template:
    spec:
      containers:
      - name: web
        image: web:2
`)
	res, err := apply.Apply(live, config, apply.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(res.LastApplied)
	// the annotation is long: show the rest of the object without it
	_ = res.Object.PipeE(yaml.Lookup("metadata"), yaml.Clear("annotations"))
	fmt.Print(res.Object.MustString())
	fmt.Println("---")
	for _, c := range res.Plan {
		fmt.Printf("%s %s\n", c.Op, c.Path)
	}
	// Output:
	// {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"labels":{"app":"web"},"name":"web"},"spec":{"replicas":2,"strategy":{"type":"Recreate"},"template":{"spec":{"containers":[{"image":"web:2","name":"web"}]}}}}
	// apiVersion: apps/v1
	// kind: Deployment
	// metadata:
	//   name: web
	//   labels: {app: web}
	// spec:
	//   replicas: 2 # scaled by the HPA
	//   strategy: # defaulted by the API server
	//     type: Recreate
	//   template:
	//     spec:
	//       containers:
	//       - name: web # the app
	//         image: web:2
	//         imagePullPolicy: IfNotPresent
	// ---
	// add metadata.labels
	// change spec.replicas
	// delete spec.strategy.rollingUpdate
	// change spec.strategy.type
	// delete spec.template.spec.containers[name=web].env
	// change spec.template.spec.containers[name=web].image
}
