package merge_test

import (
	"fmt"
	"log"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// A 3-way merge of one Deployment: upstream (original to updated) bumps the image, adds
// a port and a sidecar; the local copy (dest) scales up, sets its own image and keeps
// its comment. The containers list is keyed by name (the built-in Kubernetes schema), so
// the sidecar is added next to the local container, and the image, changed on both
// sides, is a conflict reported at its path; updated wins by default.
func ExampleThreeWay() {
	original := yaml.MustParse(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
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
metadata:
  name: web
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: app
        image: app:2
        ports:
        - containerPort: 8080
      - name: proxy
        image: proxy:1
`)
	dest := yaml.MustParse(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 5 # scaled for production
  template:
    spec:
      containers:
      - name: app
        image: mirror.example.com/app:1
`)
	// Lists: kyaml's built-in Kubernetes OpenAPI, then the default associative keys.
	opts := merge.Options{Lists: schema.New(schema.Options{OpenAPI: true})}
	res, err := merge.ThreeWay(original, updated, dest, opts)
	if err != nil {
		log.Fatal(err)
	}
	out, conflicts := res.Value, res.Conflicts
	fmt.Print(out.MustString())
	for _, c := range conflicts {
		fmt.Println("conflict:", c.Path, "|", c.Kind, "|", c.Winner, "wins")
		fmt.Println(c)
	}
	// Output:
	// apiVersion: apps/v1
	// kind: Deployment
	// metadata:
	//   name: web
	// spec:
	//   replicas: 5 # scaled for production
	//   template:
	//     spec:
	//       containers:
	//       - name: app
	//         image: app:2
	//         ports:
	//         - containerPort: 8080
	//       - name: proxy
	//         image: proxy:1
	// conflict: spec.template.spec.containers[name=app].image | changed on both sides | updated wins
	// spec.template.spec.containers[name=app].image: changed on both sides (original app:1, updated app:2, dest mirror.example.com/app:1); updated wins
}

// The same conflict decided the other way: with Winner vocab.Dest the local value stays,
// and the conflict is still reported.
func ExampleThreeWay_keepDest() {
	original := yaml.MustParse("data:\n  image: app:1\n  level: info\n")
	updated := yaml.MustParse("data:\n  image: app:2\n  level: info\n  timeout: 30s\n")
	dest := yaml.MustParse("data:\n  image: mirror.example.com/app:1\n  level: debug\n")
	res, err := merge.ThreeWay(original, updated, dest, merge.Options{Winner: vocab.Dest})
	if err != nil {
		log.Fatal(err)
	}
	out, conflicts := res.Value, res.Conflicts
	fmt.Print(out.MustString())
	for _, c := range conflicts {
		fmt.Println(c)
	}
	// Output:
	// data:
	//   image: mirror.example.com/app:1
	//   level: debug
	//   timeout: 30s
	// data.image: changed on both sides (original app:1, updated app:2, dest mirror.example.com/app:1); dest wins
}

// A 2-way merge of src into dest (kyaml merge2's rules): src's values win, `null`
// clears a field, dest-only fields and list elements stay, a keyed element is merged
// with its counterpart and new ones are appended, and a strategic-merge `$patch:
// delete` removes an element.
func ExampleTwoWay() {
	src := yaml.MustParse(`apiVersion: v1
kind: Service
metadata:
  name: web
  labels:
    tier: null
spec:
  type: LoadBalancer
  ports:
  - port: 443
    name: https
  - port: 8080
    $patch: delete
`)
	dest := yaml.MustParse(`apiVersion: v1
kind: Service
metadata:
  name: web
  labels:
    app: web # set by the team
    tier: frontend
spec:
  type: ClusterIP
  ports:
  - port: 80
    name: http
  - port: 8080
    name: admin
`)
	res, err := merge.TwoWay(src, dest, merge.Options{Lists: schema.New(schema.Options{OpenAPI: true})})
	if err != nil {
		log.Fatal(err)
	}
	out := res.Value
	fmt.Print(out.MustString())
	// Output:
	// apiVersion: v1
	// kind: Service
	// metadata:
	//   name: web
	//   labels:
	//     app: web # set by the team
	// spec:
	//   type: LoadBalancer
	//   ports:
	//   - port: 80
	//     name: http
	//   - port: 443
	//     name: https
}

// An unknown `$patch` value in src is an error naming its field.
func ExampleTwoWay_directiveError() {
	src := yaml.MustParse("spec:\n  template:\n    $patch: rebuild\n")
	dest := yaml.MustParse("spec:\n  template: {a: 1}\n")
	_, err := merge.TwoWay(src, dest, merge.Options{})
	fmt.Println(err)
	// Output:
	// spec.template: unknown patch strategy "rebuild"; valid: merge, replace, delete
}
