package schema_test

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/schema"
)

func kustomization(body string) *yaml.RNode {
	return yaml.MustParse("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n" + body)
}

// A flux2 base's upgrade: upstream replaces the two release URLs and bumps an image; the
// local copy added a resource, pinned a mirror for the image and added a replica count.
func TestKustomizationMergesWithBuiltInKeys(t *testing.T) {
	original := kustomization(`resources:
- https://example.com/v1.4.0/crds.yaml
- https://example.com/v1.4.0/deployment.yaml
- account.yaml
images:
- name: controller
  newTag: v1.4.0
patches:
- path: patch.yaml
`)
	updated := kustomization(`resources:
- https://example.com/v1.6.3/crds.yaml
- https://example.com/v1.6.3/deployment.yaml
- account.yaml
images:
- name: controller
  newTag: v1.6.3
patches:
- path: patch.yaml
`)
	dest := kustomization(`resources:
- https://example.com/v1.4.0/crds.yaml
- https://example.com/v1.4.0/deployment.yaml
- account.yaml
- netpol.yaml # ours
images:
- name: controller
  newName: mirror.example.com/controller
  newTag: v1.4.0
replicas:
- name: controller
  count: 2
patches:
- path: patch.yaml
`)
	res3, err := merge.ThreeWay(original, updated, dest, merge.Options{Lists: schema.New(schema.Options{OpenAPI: true})})
	out, conflicts := res3.Value, res3.Conflicts
	if err != nil {
		t.Fatal(err)
	}
	if len(conflicts) != 0 {
		t.Errorf("conflicts: %v", conflicts)
	}
	want := `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- account.yaml
- netpol.yaml # ours
- https://example.com/v1.6.3/crds.yaml
- https://example.com/v1.6.3/deployment.yaml
images:
- name: controller
  newName: mirror.example.com/controller
  newTag: v1.6.3
replicas:
- name: controller
  count: 2
patches:
- path: patch.yaml
`
	if got := out.MustString(); got != want {
		t.Errorf("merged Kustomization\n%s\nwant\n%s", got, want)
	}
}

func TestKustomizationListDecisions(t *testing.T) {
	r := schema.New(schema.Options{OpenAPI: true})
	for _, kind := range []string{"Kustomization", "Component"} {
		root := r.ForResource(yaml.MustParse("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: " + kind + "\n"))
		for _, f := range []string{"resources", "components", "crds", "generators", "transformers", "validators", "configurations"} {
			if l := r.Decide(root.Field(f)); l.Type != schema.Set {
				t.Errorf("%s %s: %v, want set", kind, f, l.Type)
			}
		}
		for _, f := range []string{"images", "replicas", "configMapGenerator", "secretGenerator", "helmCharts"} {
			if l := r.Decide(root.Field(f)); l.Type != schema.Map || len(l.Keys) != 1 || l.Keys[0] != "name" {
				t.Errorf("%s %s: %v %v, want keyed by name", kind, f, l.Type, l.Keys)
			}
		}
	}
	// Another group's Kustomization (flux's) is not kustomize's.
	root := r.ForResource(yaml.MustParse("apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n"))
	if l := r.Decide(root.Field("resources")); l.Type == schema.Set {
		t.Errorf("flux Kustomization resources: set, want no built-in rule")
	}
}
