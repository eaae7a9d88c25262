package apply_test

import (
	"errors"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/testsupport"
	"github.com/krm-merge/krm-merge/pkg/apply"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// FuzzApply: for any live object and config (YAML maps, as items are), Apply never
// panics and either fails with an error naming the live resource (*vocab.ItemError,
// or *apply.ConflictError under NoOverwrite, its contract) or returns an object that
// prints as valid YAML, without changing its inputs; and applying the same config again
// to that object changes no field, as a second `kubectl apply` of unchanged config does
// nothing (checked for custom kinds: see below for built-in ones). Seeds: the (live, config) pair of examples/apply and the (dest, updated)
// resources of the e2e 3-way case packages.
func FuzzApply(f *testing.F) {
	testsupport.SetupFuzz(f)
	for i, tr := range testsupport.SeedTriples(f) {
		f.Add(tr[2], tr[1], i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, liveText, configText string, noOverwrite bool) {
		defer testsupport.Guard(t, liveText, configText, noOverwrite)()
		live, err1 := yaml.Parse(liveText)
		config, err2 := yaml.Parse(configText)
		if err1 != nil || err2 != nil || live.YNode().Kind != yaml.MappingNode || config.YNode().Kind != yaml.MappingNode {
			return
		}
		before := [2]string{live.MustString(), config.MustString()}
		opts := apply.Options{NoOverwrite: noOverwrite}
		res, err := apply.Apply(live, config, opts)
		if after := [2]string{live.MustString(), config.MustString()}; after != before {
			t.Fatalf("Apply changed its inputs")
		}
		if err != nil {
			var ie *vocab.ItemError
			var ce *apply.ConflictError
			if !errors.As(err, &ie) && !errors.As(err, &ce) {
				t.Fatalf("error is neither an ItemError nor a ConflictError: %T %v", err, err)
			}
			if err.Error() == "" {
				t.Fatalf("empty error message")
			}
			return
		}
		s, err := res.Object.String()
		if err != nil {
			t.Fatalf("result does not print: %v", err)
		}
		if _, err := yaml.Parse(s); err != nil {
			t.Fatalf("result is not valid YAML: %v\n%s", err, s)
		}
		if res.PatchType.Strategy != apply.JSONMerge {
			// Built-in kinds go through kubectl's strategicpatch, which matches JSON
			// fields to the Go type case-insensitively: a StatefulSet with `1: {}` or a
			// list under `speC` is applied once, then refused by the second apply, and
			// one with `speC.volumeClAimTemplAtes` is changed again (the fuzzer's
			// findings; kubectl does the same). Idempotence is checked for custom kinds
			// (JSON merge patch) only.
			return
		}
		again, err := apply.Apply(res.Object, config, apply.Options{})
		if err != nil {
			t.Fatalf("applying the same config again: %v\nresult:\n%s", err, s)
		}
		if len(again.Plan) > 0 {
			t.Fatalf("applying the same config again changes %d fields, first: %s\nresult:\n%s",
				len(again.Plan), again.Plan[0].Path.String(), s)
		}
	})
}
