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

// Index after roles.Assign: one Set per resource with the item of each role that has
// it. Identity is group, kind, namespace and name, not the version, so the upstream
// release that moved PodDisruptionBudget to policy/v1 still pairs with the local copy;
// no namespace pairs with "default"; items without a name pair by their file path.
func ExampleIndex() {
	items := parse(`apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata:
  name: web
  annotations: {config.kubernetes.io/merge-source: original, internal.config.kubernetes.io/path: pdb.yaml}
`, `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
  annotations: {config.kubernetes.io/merge-source: updated, internal.config.kubernetes.io/path: pdb.yaml}
`, `apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata:
  name: web
  namespace: default
  annotations: {config.kubernetes.io/merge-source: dest, internal.config.kubernetes.io/path: pdb.yaml}
`, `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
metadata:
  annotations: {config.kubernetes.io/merge-source: updated, internal.config.kubernetes.io/path: base/kustomization.yaml}
`, `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
metadata:
  annotations: {config.kubernetes.io/merge-source: dest, internal.config.kubernetes.io/path: base/kustomization.yaml}
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
		fmt.Printf("%s:", s.ID)
		for _, r := range vocab.ThreeWay.Roles() {
			if it := s.Get(r); it != nil {
				fmt.Printf(" %s=%s", r, it.Node.GetApiVersion())
			}
		}
		fmt.Println()
	}
	// Output:
	// policy/PodDisruptionBudget default/web: original=policy/v1beta1 updated=policy/v1 dest=policy/v1beta1
	// kustomize.config.k8s.io/Kustomization (base/kustomization.yaml): updated=kustomize.config.k8s.io/v1beta1 dest=kustomize.config.k8s.io/v1beta1
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
