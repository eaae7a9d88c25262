package resources_test

import (
	"fmt"
	"log"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/resources"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

const roleAnnotation = "config.kubernetes.io/merge-source"

// item is a resource of one role: kind and name, the role annotation, and body (its
// other top-level fields).
func item(role, kind, name, body string) *yaml.RNode {
	apiVersion := "v1"
	if kind == "Deployment" {
		apiVersion = "apps/v1"
	}
	return yaml.MustParse(fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata:\n  name: %s\n  annotations: {%s: %s}\n%s",
		apiVersion, kind, name, roleAnnotation, role, body))
}

// A 3-way run over a few resources, each resource rule once: the Deployment is in
// original, updated and dest (merged field by field, with a conflict on replicas), the
// Service is new upstream (added), ConfigMap old was deleted upstream and not changed
// locally (deleted), ConfigMap tuned was deleted upstream but changed locally (a
// conflict on the whole resource; updated wins, so it is deleted), and ConfigMap local
// is only in dest (kept). Roles come from the role annotation (roles.Assign); package
// function does the same from a functionConfig.
func ExampleRun() {
	items := []*yaml.RNode{
		item("original", "Deployment", "web", "spec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: app\n        image: app:1\n"),
		item("updated", "Deployment", "web", "spec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n      - name: app\n        image: app:2\n"),
		item("updated", "Service", "web", "spec:\n  ports:\n  - port: 80\n"),
		item("original", "ConfigMap", "old", "data: {a: '1'}\n"),
		item("original", "ConfigMap", "tuned", "data: {a: '1'}\n"),
		item("dest", "Deployment", "web", "spec:\n  replicas: 5\n  template:\n    spec:\n      containers:\n      - name: app\n        image: app:1\n"),
		item("dest", "ConfigMap", "old", "data: {a: '1'}\n"),
		item("dest", "ConfigMap", "tuned", "data: {a: '2'}\n"),
		item("dest", "ConfigMap", "local", "data: {b: '1'}\n"),
	}
	ro := roles.Options{Mode: vocab.ThreeWay, Annotation: roleAnnotation}
	assigned, err := roles.Assign(items, ro)
	if err != nil {
		log.Fatal(err)
	}
	out, err := resources.Run(assigned, resources.Options{
		Roles: ro,
		Merge: merge.Options{Winner: vocab.Updated, Lists: schema.New(schema.Options{OpenAPI: true})},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%+v\n", out.Counts)
	for _, r := range out.Results {
		fmt.Println(r)
	}
	fmt.Println("output items:")
	for _, it := range out.Items {
		fmt.Printf("  %s/%s role=%q\n", it.GetKind(), it.GetName(), it.GetAnnotations()[roleAnnotation])
	}
	for d, m := range out.Merged { // one merged resource here
		fmt.Printf("merged %s/%s, spec:\n%s", d.Node.GetKind(), d.Node.GetName(), m.Field("spec").Value.MustString())
	}
	// Output:
	// {Merged:1 Added:1 Deleted:2 Kept:1 StayedDeleted:0 Conflicts:2}
	// [info]: 3way merge: 1 merged, 1 added, 2 deleted, 1 kept, 2 conflicts
	// [warning] apps/v1/Deployment/web spec.replicas: conflict: changed on both sides (original 1, updated 2, dest 5); updated wins
	// [warning] v1/ConfigMap/tuned: conflict: ConfigMap tuned was deleted upstream but changed locally; updated wins
	// output items:
	//   Deployment/web role="dest"
	//   ConfigMap/local role="dest"
	//   Service/web role=""
	// merged Deployment/web, spec:
	// replicas: 2
	// template:
	//   spec:
	//     containers:
	//     - name: app
	//       image: app:2
}
