package resources

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/identity"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// TestPanicInAResourceNamesIt: a panic while merging or applying one resource (forced
// through prepareHook, on the parallel path: 200 resources) is a *vocab.ItemError
// naming that resource and its file, in every mode, and its results entry carries the
// resourceRef (a recovered panic is an error result naming the resource).
func TestPanicInAResourceNamesIt(t *testing.T) {
	defer func() { prepareHook = nil }()
	prepareHook = func(s *identity.Set) {
		if it := s.Get(vocab.Dest); it != nil && it.Node.GetName() == "cm-137" {
			panic("engine bug")
		}
	}
	for _, mode := range []vocab.Mode{vocab.ThreeWay, vocab.TwoWay, vocab.Apply} {
		var items []*yaml.RNode
		for i := 0; i < 200; i++ {
			for _, role := range mode.Roles() {
				items = append(items, yaml.MustParse(strings.NewReplacer("ROLE", string(role), "N", fmt.Sprintf("%03d", i)).Replace(
					"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-N\n  annotations:\n"+
						"    config.kubernetes.io/merge-source: ROLE\n    internal.config.kubernetes.io/path: ROLE/cm-N.yaml\ndata: {k: ROLE}\n")))
			}
		}
		ro := roles.Options{Mode: mode, Annotation: "config.kubernetes.io/merge-source"}
		assigned, err := roles.Assign(items, ro)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Run(assigned, Options{Roles: ro, Merge: merge.Options{Winner: vocab.Updated}})
		var ie *vocab.ItemError
		if out != nil || !errors.As(err, &ie) {
			t.Fatalf("%s: want an ItemError and no outcome, got %v, %T %v", mode, out != nil, err, err)
		}
		if ie.Resource == nil || ie.Resource.Name != "cm-137" || ie.File != "dest/cm-137.yaml" ||
			!strings.Contains(ie.Msg, "internal error") || !strings.Contains(ie.Msg, "engine bug") {
			t.Fatalf("%s: error does not name the resource and file: %+v", mode, ie)
		}
		rs := results.FromError(err)
		if len(rs) != 1 || rs[0].Severity != "error" || rs[0].ResourceRef == nil || rs[0].ResourceRef.Name != "cm-137" {
			t.Fatalf("%s: results entry %+v", mode, rs)
		}
	}
}
