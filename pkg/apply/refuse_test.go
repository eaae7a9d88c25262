package apply

import (
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// An alias bomb in the live object (or the config) is refused before its JSON form is
// built, which would take unbounded time (FuzzApply stalled on one).
func TestApplyRefusesAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n")
	prev := "a"
	for _, l := range []string{"b", "c", "d", "e", "f", "g", "h"} {
		b.WriteString("  " + l + ": &" + l + " [" + strings.TrimSuffix(strings.Repeat("*"+prev+", ", 10), ", ") + "]\n")
		prev = l
	}
	live := yaml.MustParse(b.String())
	config := yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  k: v\n")
	for _, tc := range []struct{ live, config *yaml.RNode }{{live, config}, {config, live}} {
		_, err := Apply(tc.live, tc.config, Options{})
		if err == nil || !strings.Contains(err.Error(), "alias") {
			t.Errorf("alias bomb: error %v, want a refusal naming aliases", err)
		}
	}
}

// Values kubectl's strategicpatch compares with == and panics on (a merge key holding a
// map or a list, a map in a list merged as a set) are refused with an error naming the
// resource and the field, in live, config or last-applied (a FuzzApply finding:
// testdata/fuzz/FuzzApply/e05e61dbf4468c7c).
func TestUncomparableMergeKeyIsRefused(t *testing.T) {
	deployment := func(containers, finalizers, annotation string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: prod\n" + finalizers + annotation +
			"spec:\n  template:\n    spec:\n      containers:\n" + containers
	}
	good := "      - name: app\n        image: app:1\n"
	mapName := "      - name: {first: app}\n        image: app:1\n"
	listName := "      - name: [app]\n        image: app:1\n"
	mapFinalizer := "  finalizers:\n  - {a: b}\n"
	lastApplied := "  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\",\"namespace\":\"prod\"},\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":{\"x\":1}}]}}}}'\n"
	annotationField := "metadata.annotations.kubectl.kubernetes.io/last-applied-configuration"
	for _, tc := range []struct {
		name, live, config, field, msg string
		isConfig                       bool
	}{
		{"map merge key in live", deployment(mapName, "", ""), deployment(good, "", ""), "spec.template.spec.containers[0].name", "merge key name holds a map", false},
		{"list merge key in config", deployment(good, "", ""), deployment(listName, "", ""), "spec.template.spec.containers[0].name", "merge key name holds a list", true},
		{"map in a set list", deployment(good, mapFinalizer, ""), deployment(good, "", ""), "metadata.finalizers[0]", "a map in a list kubectl merges as a set", false},
		{"map merge key in last-applied", deployment(good, "", lastApplied), deployment(good, "", ""), annotationField, "containers[0].name: the merge key name holds a map", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Apply(yaml.MustParse(tc.live), yaml.MustParse(tc.config), Options{})
			var ie *vocab.ItemError
			if !errors.As(err, &ie) {
				t.Fatalf("want an ItemError, got %T %v", err, err)
			}
			var ce *ConfigError
			if errors.As(err, &ce) != tc.isConfig {
				t.Errorf("ConfigError: %v, want %v", errors.As(err, &ce), tc.isConfig)
			}
			if ie.Field != tc.field || ie.Resource == nil || ie.Resource.Name != "web" || ie.Resource.Namespace != "prod" {
				t.Errorf("error does not locate the field %s: %+v", tc.field, ie)
			}
			if !strings.Contains(ie.Msg, tc.msg) {
				t.Errorf("message %q does not say %q", ie.Msg, tc.msg)
			}
		})
	}
}
