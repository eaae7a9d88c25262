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
// annotation is honoured where present, whatever the directory. Index then groups the
// items by identity (group, kind, namespace, name; not the version): one Set per
// resource with the item of each role that has it.
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
	sets, err := roles.Index(assigned, roles.IndexOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range sets {
		fmt.Printf("%s:", s.ID)
		for _, r := range vocab.ThreeWay.Roles() {
			if it := s.Get(r); it != nil {
				fmt.Printf(" %s=%s", r, it.File)
			}
		}
		fmt.Println()
	}
	// Output:
	// original Deployment/web file=upstream/v1/app.yaml rel=app.yaml dir="upstream/v1"
	// updated  Deployment/web file=upstream/v2/app.yaml rel=app.yaml dir="upstream/v2"
	// updated  Service/web file=upstream/v2/app.yaml rel=app.yaml dir="upstream/v2"
	// dest     Deployment/web file=app.yaml rel=app.yaml dir="."
	// updated  ConfigMap/settings file=extra/settings.yaml rel=extra/settings.yaml dir=""
	// apps/Deployment web: original=upstream/v1/app.yaml updated=upstream/v2/app.yaml dest=app.yaml
	// Service web: updated=upstream/v2/app.yaml
	// ConfigMap settings: updated=extra/settings.yaml
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

// Identity overrides: a local copy renamed downstream still pairs with its upstream when
// it names the upstream resource, here with kpt's line comment on metadata (as `kpt pkg
// get` writes it). The set's ID is the upstream identity; the item keeps its own name.
func ExampleIndex() {
	items := parse(`apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations: {config.kubernetes.io/merge-source: updated}
`, `apiVersion: v1
kind: ConfigMap
metadata: # kpt-merge: /settings
  name: prod-settings
  namespace: prod
  annotations: {config.kubernetes.io/merge-source: dest}
`)
	assigned, err := roles.Assign(items, roles.Options{Mode: vocab.ThreeWay, Annotation: "config.kubernetes.io/merge-source"})
	if err != nil {
		log.Fatal(err)
	}
	sets, err := roles.Index(assigned, roles.IndexOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range sets {
		fmt.Printf("%s: updated=%s dest=%s/%s\n", s.ID, s.Get(vocab.Updated).Node.GetName(),
			s.Get(vocab.Dest).Node.GetNamespace(), s.Get(vocab.Dest).Node.GetName())
	}
	// Output:
	// ConfigMap settings: updated=settings dest=prod/prod-settings
}
