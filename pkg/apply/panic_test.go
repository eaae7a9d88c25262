package apply

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/roles"
)

// TestPanicInAnApplyNamesTheResource: a panic while applying one resource (forced
// through resourceHook) is an *results.ItemError naming that live resource and its
// file, with a results entry carrying the resourceRef (issue 7).
func TestPanicInAnApplyNamesTheResource(t *testing.T) {
	defer func() { resourceHook = nil }()
	resourceHook = func(s *roles.Set) {
		if it := s.Get(roles.Dest); it != nil && it.Node.GetName() == "cm-007" {
			panic("apply bug")
		}
	}
	var items []*yaml.RNode
	for i := 0; i < 20; i++ {
		for _, role := range []string{"updated", "dest"} {
			items = append(items, yaml.MustParse(fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%03d\n"+
				"  annotations:\n    config.kubernetes.io/merge-source: %s\n    internal.config.kubernetes.io/path: %s/cm-%03d.yaml\n"+
				"data: {k: %s}\n", i, role, role, i, role)))
		}
	}
	cfg := config.Defaults()
	cfg.Mode = config.ModeApply
	assigned, err := roles.Assign(items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Run(assigned, cfg)
	var ie *results.ItemError
	if out != nil || !errors.As(err, &ie) {
		t.Fatalf("want an ItemError and no outcome, got %v, %T %v", out != nil, err, err)
	}
	if ie.Resource == nil || ie.Resource.Name != "cm-007" || ie.File != "dest/cm-007.yaml" ||
		!strings.Contains(ie.Msg, "internal error") || !strings.Contains(ie.Msg, "apply bug") {
		t.Fatalf("error does not name the resource and file: %+v", ie)
	}
	if rs := results.FromError(err); len(rs) != 1 || rs[0].ResourceRef == nil || rs[0].ResourceRef.Name != "cm-007" {
		t.Fatalf("results entry %+v", rs)
	}
}
