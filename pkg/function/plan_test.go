package function_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

func TestPlanLeavesItemsAndListsChanges(t *testing.T) {
	input := threeWayInput + "functionConfig: {apiVersion: v1, kind: ConfigMap, metadata: {name: fc}, data: {plan: \"true\"}}\n"
	rl, err := run(t, input)
	if err != nil {
		t.Fatalf("plan failed: %v\n%s", err, resultsOf(rl))
	}
	gotItems := items(t, rl)
	wantItems := items(t, yaml.MustParse(input))
	if len(gotItems) != len(wantItems) {
		t.Fatalf("plan emitted %d items, input has %d", len(gotItems), len(wantItems))
	}
	for i := range gotItems {
		if gotItems[i].MustString() != wantItems[i].MustString() {
			t.Errorf("item %d changed:\n%s\nwant\n%s", i, gotItems[i].MustString(), wantItems[i].MustString())
		}
	}
	res := resultsOf(rl)
	for _, want := range []string{
		"3way plan, nothing written: 1 merged (1 would change), 1 added, 1 deleted, 1 kept, 0 conflicts",
		"path: spec.template.spec.containers[name=app].image",
		"3way plan: would add this resource",
		"3way plan: would delete this resource",
	} {
		if !strings.Contains(res, want) {
			t.Errorf("results lack %q:\n%s", want, res)
		}
	}
}

func TestPlanWithOnConflictErrorFails(t *testing.T) {
	input := strings.Replace(threeWayInput, "          image: app:1\n        - name: sidecar", "          image: app:local\n        - name: sidecar", 1) +
		"functionConfig: {apiVersion: v1, kind: ConfigMap, metadata: {name: fc}, data: {plan: \"true\", onConflict: error}}\n"
	rl, err := run(t, input)
	if err == nil {
		t.Fatalf("plan with a conflict under onConflict: error succeeded:\n%s", resultsOf(rl))
	}
	res := resultsOf(rl)
	for _, want := range []string{"the plan found 1 conflicts", "severity: error", "field:\n    path: spec.template.spec.containers[name=app].image", "3way plan, nothing written"} {
		if !strings.Contains(res, want) {
			t.Errorf("results lack %q:\n%s", want, res)
		}
	}
	if len(items(t, rl)) != 0 {
		t.Errorf("a failed plan emitted items")
	}
}
