package schema_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/schema"
)

func kptfile(pipeline string) *yaml.RNode {
	return yaml.MustParse("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\npipeline:\n" + pipeline)
}

func TestKptfilePipelineMergesByFunctionIdentity(t *testing.T) {
	original := kptfile(`  mutators:
  - image: gcr.io/kpt-fn/set-labels:v0.2.0
    configMap: {app: web}
  - image: gcr.io/kpt-fn/apply-setters:v0.2.0
    configPath: setters.yaml
  validators:
  - image: gcr.io/kpt-fn/kubeval:v0.3.0
`)
	updated := kptfile(`  mutators:
  - image: gcr.io/kpt-fn/set-labels:v0.2.0
    configMap: {app: web, tier: frontend}
  - image: gcr.io/kpt-fn/ensure-name-substring:v0.2.0
    name: prefix
    configMap: {prepend: web-}
  - image: gcr.io/kpt-fn/apply-setters:v0.2.0
    configPath: setters.yaml
  validators: []
`)
	dest := kptfile(`  mutators:
  - exec: ./bin/local-check # ours
  - image: gcr.io/kpt-fn/set-labels:v0.2.0
    configMap: {app: web}
  - image: gcr.io/kpt-fn/apply-setters:v0.2.0
    configPath: setters.yaml
  - image: gcr.io/kpt-fn/set-namespace:v0.4.1
    name: ns
    configMap: {namespace: shop}
  validators:
  - image: gcr.io/kpt-fn/kubeval:v0.3.0
  - image: gcr.io/kpt-fn/gatekeeper:v0.2.1
`)
	lists := schema.New(schema.Options{OpenAPI: true})
	res3, err := merge.ThreeWay(original, updated, dest, merge.Options{Lists: lists})
	out, conflicts := res3.Value, res3.Conflicts
	if err != nil {
		t.Fatal(err)
	}
	if len(conflicts) != 0 {
		t.Errorf("conflicts: %v", conflicts)
	}
	want := `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: app
pipeline:
  mutators:
  - exec: ./bin/local-check # ours
  - image: gcr.io/kpt-fn/set-labels:v0.2.0
    configMap: {app: web, tier: frontend}
  - image: gcr.io/kpt-fn/ensure-name-substring:v0.2.0
    name: prefix
    configMap: {prepend: web-}
  - image: gcr.io/kpt-fn/apply-setters:v0.2.0
    configPath: setters.yaml
  - image: gcr.io/kpt-fn/set-namespace:v0.4.1
    name: ns
    configMap: {namespace: shop}
  validators:
  - image: gcr.io/kpt-fn/gatekeeper:v0.2.1
`
	if got := out.MustString(); got != want {
		t.Errorf("merged Kptfile\n%s\nwant\n%s", got, want)
	}
}

func TestKptfilePipelineDecision(t *testing.T) {
	r := schema.New(schema.Options{OpenAPI: true})
	root := r.ForResource(kptfile(""))
	lists := yaml.MustParse("- image: a\n- exec: ./b\n- image: a\n  name: second\n").YNode()
	l := r.Decide(root.Field("pipeline").Field("mutators"), lists)
	if l.Type != schema.Map || !l.AnyKey || strings.Join(l.Keys, ",") != "image,exec,name" {
		t.Errorf("mutators: %+v", l)
	}
	// Two unnamed entries of one image cannot be told apart: atomic, as before.
	dup := yaml.MustParse("- image: a\n- image: a\n").YNode()
	if l := r.Decide(root.Field("pipeline").Field("validators"), dup); l.Type != schema.Atomic {
		t.Errorf("duplicate functions: %+v", l)
	}
	// An entry with neither image, exec nor name: atomic.
	none := yaml.MustParse("- configPath: x.yaml\n").YNode()
	if l := r.Decide(root.Field("pipeline").Field("mutators"), none); l.Type != schema.Atomic {
		t.Errorf("entry without identity: %+v", l)
	}
	// Other kinds are unaffected.
	if other := r.ForResource(yaml.MustParse("apiVersion: example.com/v1\nkind: Kptfile\nmetadata: {name: x}\n")); other.Field("pipeline").Known() {
		t.Errorf("a Kptfile kind of another group got the kpt schema")
	}
}

// An upstream version bump of a function is the same function: its image takes the new
// tag and the local configuration stays (kpt #2529). With the tag in the identity it
// was an upstream deletion of a locally changed entry (a conflict) plus an addition,
// and the default policy dropped the local configMap.
func TestKptfilePipelineImageTagBumpKeepsLocalConfig(t *testing.T) {
	original := kptfile(`  mutators:
  - image: gcr.io/kpt-fn/set-labels:v0.1.5
    configMap: {app: web}
  - image: localhost:5000/fn/check@sha256:aaaa
`)
	updated := kptfile(`  mutators:
  - image: gcr.io/kpt-fn/set-labels:v0.2.0
    configMap: {app: web}
  - image: localhost:5000/fn/check@sha256:bbbb
`)
	dest := kptfile(`  mutators:
  - image: gcr.io/kpt-fn/set-labels:v0.1.5
    configMap: {app: web, team: payments} # ours
  - image: localhost:5000/fn/check@sha256:aaaa
`)
	res3, err := merge.ThreeWay(original, updated, dest, merge.Options{Lists: schema.New(schema.Options{OpenAPI: true})})
	out, conflicts := res3.Value, res3.Conflicts
	if err != nil {
		t.Fatal(err)
	}
	if len(conflicts) != 0 {
		t.Errorf("conflicts: %v", conflicts)
	}
	want := `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: app
pipeline:
  mutators:
  - image: gcr.io/kpt-fn/set-labels:v0.2.0
    configMap: {app: web, team: payments} # ours
  - image: localhost:5000/fn/check@sha256:bbbb
`
	if got := out.MustString(); got != want {
		t.Errorf("merged Kptfile\n%s\nwant\n%s", got, want)
	}
}

func TestImageName(t *testing.T) {
	for in, want := range map[string]string{
		"gcr.io/kpt-fn/set-labels:v0.2.0":         "gcr.io/kpt-fn/set-labels",
		"gcr.io/kpt-fn/set-labels":                "gcr.io/kpt-fn/set-labels",
		"gcr.io/kpt-fn/set-labels@sha256:abc":     "gcr.io/kpt-fn/set-labels",
		"gcr.io/kpt-fn/set-labels:v1@sha256:abc":  "gcr.io/kpt-fn/set-labels",
		"localhost:5000/fn/check":                 "localhost:5000/fn/check",
		"localhost:5000/fn/check:v2":              "localhost:5000/fn/check",
		"ghcr.io/krm-merge/krm-merge:v0.1.0-rc.1": "ghcr.io/krm-merge/krm-merge",
	} {
		if got := schema.ImageName(in); got != want {
			t.Errorf("ImageName(%q) = %q, want %q", in, got, want)
		}
	}
}
