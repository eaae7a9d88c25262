package resources_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/resources"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

func cm(t *testing.T, role, name, data string) *yaml.RNode {
	t.Helper()
	return yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name +
		"\n  annotations: {config.kubernetes.io/merge-source: " + role + "}\ndata: " + data + "\n")
}

// setup is a test's options: roles by annotation, 3-way, updated wins, the Kubernetes
// schema.
type setup struct {
	run resources.Options
}

func defaults() *setup {
	return &setup{
		run: resources.Options{Roles: roles.Options{Mode: vocab.ThreeWay, Annotation: "config.kubernetes.io/merge-source"},
			Merge: merge.Options{Winner: vocab.Updated, Lists: schema.New(schema.Options{OpenAPI: true})}},
	}
}

func mergeItems(t *testing.T, s *setup, items ...*yaml.RNode) *resources.Outcome {
	t.Helper()
	assigned, err := roles.Assign(items, s.run.Roles)
	if err != nil {
		t.Fatal(err)
	}
	out, err := resources.Run(assigned, s.run)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func names(out *resources.Outcome) string {
	var n []string
	for _, it := range out.Items {
		n = append(n, it.GetName())
	}
	return strings.Join(n, ",")
}

func TestDeletedUpstreamChangedLocally(t *testing.T) {
	for _, tt := range []struct {
		winner vocab.Role
		items  string
	}{{vocab.Updated, ""}, {vocab.Dest, "x"}} {
		cfg := defaults()
		cfg.run.Merge.Winner = tt.winner
		out := mergeItems(t, cfg, cm(t, "original", "x", "{a: '1'}"), cm(t, "dest", "x", "{a: '2'}"))
		if names(out) != tt.items || out.Counts.Conflicts != 1 {
			t.Errorf("winner %s: items %q conflicts %d, want %q and 1", tt.winner, names(out), out.Counts.Conflicts, tt.items)
		}
	}
}

func TestDeletedUpstreamUnchangedLocallyGoesQuietly(t *testing.T) {
	out := mergeItems(t, defaults(), cm(t, "original", "x", "{a: '1'}"), cm(t, "dest", "x", "{a: '1'}"))
	if names(out) != "" || out.Counts.Deleted != 1 || out.Counts.Conflicts != 0 {
		t.Errorf("items %q counts %+v", names(out), out.Counts)
	}
}

func TestDeletedLocallyStaysDeleted(t *testing.T) {
	out := mergeItems(t, defaults(), cm(t, "original", "x", "{a: '1'}"), cm(t, "updated", "x", "{a: '2'}"))
	if names(out) != "" || out.Counts.StayedDeleted != 1 {
		t.Fatalf("items %q counts %+v", names(out), out.Counts)
	}
	var warned bool
	for _, r := range out.Results {
		warned = warned || strings.Contains(r.Message, "deleted locally and stays deleted, but upstream changed it")
	}
	if !warned {
		t.Errorf("no warning that upstream changed a locally deleted resource: %v", out.Results)
	}
	quiet := mergeItems(t, defaults(), cm(t, "original", "x", "{a: '1'}"), cm(t, "updated", "x", "{a: '1'}"))
	if len(quiet.Results) != 1 {
		t.Errorf("unchanged upstream: want only the summary, got %v", quiet.Results)
	}
}

func TestAddedOnBothSidesMergesAsIfOriginalEmpty(t *testing.T) {
	out := mergeItems(t, defaults(), cm(t, "updated", "x", "{a: '1', b: '2'}"), cm(t, "dest", "x", "{a: '1', b: '3', c: '4'}"))
	if out.Counts.Merged != 1 || out.Counts.Conflicts != 1 {
		t.Fatalf("counts %+v, want 1 merged and 1 conflict (b)", out.Counts)
	}
	if s := out.Items[0].MustString(); !strings.Contains(s, "b: '2'") || !strings.Contains(s, "c: '4'") {
		t.Errorf("merged:\n%s", s)
	}
}

func TestVersionBumpStillPairs(t *testing.T) {
	pdb := func(role, apiVersion, min string) *yaml.RNode {
		return yaml.MustParse("apiVersion: " + apiVersion + "\nkind: PodDisruptionBudget\nmetadata:\n  name: p\n  annotations: {config.kubernetes.io/merge-source: " + role + "}\nspec:\n  minAvailable: " + min + "\n")
	}
	out := mergeItems(t, defaults(), pdb("original", "policy/v1beta1", "1"), pdb("updated", "policy/v1", "1"), pdb("dest", "policy/v1beta1", "2"))
	if len(out.Items) != 1 || out.Counts.Merged != 1 {
		t.Fatalf("items %d counts %+v", len(out.Items), out.Counts)
	}
	if s := out.Items[0].MustString(); !strings.Contains(s, "apiVersion: policy/v1\n") || !strings.Contains(s, "minAvailable: 2") {
		t.Errorf("want the new apiVersion with the local minAvailable:\n%s", s)
	}
}

func TestHostAnnotationsAreNotMerged(t *testing.T) {
	cfg := defaults()
	cfg.run.Roles.OriginalDir, cfg.run.Roles.UpdatedDir, cfg.run.Roles.DestDir = "o", "u", "d"
	at := func(path, data string) *yaml.RNode {
		return yaml.MustParse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n    internal.config.kubernetes.io/path: " + path +
			"\n    internal.config.kubernetes.io/index: '0'\ndata: " + data + "\n")
	}
	out := mergeItems(t, cfg, at("o/x.yaml", "{a: '1'}"), at("u/x.yaml", "{a: '2'}"), at("d/x.yaml", "{a: '1'}"))
	if out.Counts.Conflicts != 0 {
		t.Fatalf("path annotations were merged as fields: %v", out.Results)
	}
	if got := out.Items[0].GetAnnotations()["internal.config.kubernetes.io/path"]; got != "d/x.yaml" {
		t.Errorf("merged item path = %q, want dest's", got)
	}
}

func TestKeepSources(t *testing.T) {
	cfg := defaults()
	cfg.run.KeepSources = true
	out := mergeItems(t, cfg, cm(t, "original", "x", "{a: '1'}"), cm(t, "updated", "x", "{a: '2'}"), cm(t, "dest", "x", "{a: '1'}"))
	if len(out.Items) != 3 {
		t.Errorf("keepSources: want original, updated and merged dest; got %d items", len(out.Items))
	}
}
