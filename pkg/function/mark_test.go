package function_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/function"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// onConflict mark is pkg update's: the function refuses it, in both functionConfig
// forms, with an error result naming the field, and writes no items.
func TestOnConflictMarkRefused(t *testing.T) {
	for _, fc := range []struct{ config, field string }{
		{"functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: m}\n  data: {onConflict: mark}\n", "path: data.onConflict"},
		{"functionConfig:\n  apiVersion: fn.krm-merge.dev/v1alpha1\n  kind: ResourceMerge\n  metadata: {name: m}\n  spec: {onConflict: mark}\n", "path: spec.onConflict"},
	} {
		rl, err := run(t, threeWayInput+fc.config)
		if err == nil {
			t.Fatalf("%s: want an error", fc.field)
		}
		res := resultsOf(rl)
		for _, want := range []string{"severity: error", fc.field, "only `krm-merge pkg update --on-conflict mark`", "use updated, dest or error"} {
			if !strings.Contains(res, want) {
				t.Errorf("results lack %q:\n%s", want, res)
			}
		}
		if n := len(items(t, rl)); n != 0 {
			t.Errorf("%d items written", n)
		}
	}
	cfg := config.Defaults()
	cfg.OnConflict = config.MarkConflicts
	if _, err := function.Run(nil, cfg); err == nil || !strings.Contains(err.Error(), "krm-merge pkg update") {
		t.Errorf("Run with onConflict mark: %v", err)
	}
}

// MergeTakingOriginal, which a Go caller runs (pkg update, for the base of its conflict
// markers), gives each conflict original's value while the rest merges; Load refuses
// onConflict original as a functionConfig value.
func TestConflictOriginal(t *testing.T) {
	rl, err := yaml.Parse(threeWayInput)
	if err != nil {
		t.Fatal(err)
	}
	its := items(t, rl)
	if err := its[1].PipeE(yaml.Lookup("spec"), yaml.SetField("replicas", yaml.NewScalarRNode("2"))); err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	assigned, err := roles.Assign(its, roles.Options{Mode: cfg.Mode, Annotation: cfg.RoleAnnotation})
	if err != nil {
		t.Fatal(err)
	}
	out, err := function.MergeTakingOriginal(assigned, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Conflicts) != 1 || out.Conflicts[0].Field == nil || out.Conflicts[0].Field.Winner != vocab.Original {
		t.Fatalf("conflicts: %+v", out.Conflicts)
	}
	web := out.Items[0].MustString()
	for _, want := range []string{"replicas: 1 ", "image: app:2", "name: sidecar"} {
		if !strings.Contains(web, want) {
			t.Errorf("merged Deployment lacks %q:\n%s", want, web)
		}
	}
	fc, _ := yaml.Parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\ndata: {onConflict: original}\n")
	if _, err := function.LoadConfig(fc); err == nil {
		t.Error("LoadConfig accepts onConflict original")
	}
}
