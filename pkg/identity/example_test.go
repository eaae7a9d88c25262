package identity_test

import (
	"fmt"
	"log"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/identity"
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

// Path roles (roles.Assign's example), then Index: one Set per resource with the item
// of each role that has it, by identity (group, kind, namespace, name; not the version).
func ExampleIndex() {
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
	sets, err := identity.Index(assigned, identity.Options{})
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
	// apps/Deployment web: original=upstream/v1/app.yaml updated=upstream/v2/app.yaml dest=app.yaml
	// Service web: updated=upstream/v2/app.yaml
	// ConfigMap settings: updated=extra/settings.yaml
}

// Identity overrides: a local copy renamed downstream still pairs with its upstream when
// it names the upstream resource, here with kpt's line comment on metadata (as `kpt pkg
// get` writes it). The set's ID is the upstream identity; the item keeps its own name.
func ExampleIndex_claim() {
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
	sets, err := identity.Index(assigned, identity.Options{})
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

// Upstream is the identity kpt recorded for a resource's upstream origin, as written.
func ExampleUpstream() {
	n := yaml.MustParse(`apiVersion: v1
kind: Namespace
metadata: # kpt-merge: /team-prod
  name: team-prod
  annotations: {internal.kpt.dev/upstream-identifier: '|Namespace|~C|team'}
`)
	fmt.Println(identity.Upstream(n))
	if err := n.SetAnnotations(nil); err != nil {
		log.Fatal(err)
	}
	fmt.Println(identity.Upstream(n))
	// Output:
	// Namespace ~C/team
	// Namespace team-prod
}
