package roles_test

import (
	"fmt"
	"log"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// parse reads items as a KRM host gives them, each YAML text a document.
func parse(docs ...string) []*yaml.RNode {
	var out []*yaml.RNode
	for _, d := range docs {
		out = append(out, yaml.MustParse(d))
	}
	return out
}

// Path roles, as `kpt fn eval` of a package holding two upstream releases beside the
// local copy makes them: the directory in each item's path annotation
// (internal.config.kubernetes.io/path, which kpt and kio.LocalPackageReader set) gives
// its role, the most specific directory winning (destPath "." takes the rest). The role
// annotation is honoured where present, whatever the directory. Package identity then
// groups the items by identity (its Index example continues this one).
func ExampleAssign() {
	items := parse(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations: {internal.config.kubernetes.io/path: upstream/v1/app.yaml}
`, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations: {internal.config.kubernetes.io/path: upstream/v2/app.yaml}
`, `apiVersion: v1
kind: Service
metadata:
  name: web
  annotations: {internal.config.kubernetes.io/path: upstream/v2/app.yaml, internal.config.kubernetes.io/index: "1"}
`, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations: {internal.config.kubernetes.io/path: app.yaml}
`, `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations:
    internal.config.kubernetes.io/path: extra/settings.yaml
    config.kubernetes.io/merge-source: updated
`)
	assigned, err := roles.Assign(items, roles.Options{
		Mode:        vocab.ThreeWay,
		Annotation:  "config.kubernetes.io/merge-source",
		OriginalDir: "upstream/v1",
		UpdatedDir:  "upstream/v2",
		DestDir:     ".",
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range assigned {
		fmt.Printf("%-8s %s/%s file=%s rel=%s dir=%q\n", it.Role, it.Node.GetKind(), it.Node.GetName(), it.File, it.RelFile, it.RoleDir)
	}
	// Output:
	// original Deployment/web file=upstream/v1/app.yaml rel=app.yaml dir="upstream/v1"
	// updated  Deployment/web file=upstream/v2/app.yaml rel=app.yaml dir="upstream/v2"
	// updated  Service/web file=upstream/v2/app.yaml rel=app.yaml dir="upstream/v2"
	// dest     Deployment/web file=app.yaml rel=app.yaml dir="."
	// updated  ConfigMap/settings file=extra/settings.yaml rel=extra/settings.yaml dir=""
}

// Annotation roles, as kyaml's filters.Merge3 sets them: items without the annotation
// pass through (role None). A role of another mode is an error naming the item and the
// annotation.
func ExampleAssign_annotations() {
	items := parse(`apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations: {config.kubernetes.io/merge-source: src}
`, `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations: {config.kubernetes.io/merge-source: dest}
`, `apiVersion: v1
kind: ConfigMap
metadata:
  name: unrelated
`)
	opts := roles.Options{Mode: vocab.TwoWay, Annotation: "config.kubernetes.io/merge-source"}
	assigned, err := roles.Assign(items, opts)
	if err != nil {
		log.Fatal(err)
	}
	for _, it := range assigned {
		fmt.Printf("%q %s\n", it.Role, it.Node.GetName())
	}
	opts.Mode = vocab.ThreeWay
	_, err = roles.Assign(items, opts)
	fmt.Println(err)
	// Output:
	// "src" settings
	// "dest" settings
	// "" unrelated
	// v1 ConfigMap settings: metadata.annotations.config.kubernetes.io/merge-source: role "src" is not a role of mode 3way; valid roles: original, updated, dest ("src" is a role of mode 2way: set mode: 2way, or change the annotation)
}
