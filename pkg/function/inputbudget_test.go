package function_test

import (
	"fmt"
	"strings"
	"testing"
)

// configMaps is a ResourceList of n tiny ConfigMaps: 9 nodes an item as written, 13 once
// kyaml's preprocessing has added its id annotation.
func configMaps(n int) string {
	var b strings.Builder
	b.WriteString(rlHead + "items:\n")
	for i := range n {
		fmt.Fprintf(&b, "- {apiVersion: v1, kind: ConfigMap, metadata: {name: c%d}}\n", i)
	}
	return b.String()
}

// Memory grows with the YAML nodes of the input, several hundred times its bytes for
// tiny nodes (0.75 MB of `[[],[],...]` took 880 MiB): the whole input's nodes, aliases
// expanded, are bounded (KRM_MERGE_MAX_NODES), and an input past the bound is refused
// before any merge, with an error result naming the bound and how to raise it.
func TestNodeBudgetOverTheWholeInput(t *testing.T) {
	t.Setenv("KRM_MERGE_MAX_NODES", "2000")
	rl, err := runStdin(t, configMaps(300)) // 3,900 nodes
	if err == nil {
		t.Fatal("an input over the node budget ran")
	}
	checkFailure(t, rl, "")
	if res := resultsOf(rl); !strings.Contains(res, "more than 2000 YAML nodes") || !strings.Contains(res, "KRM_MERGE_MAX_NODES") {
		t.Errorf("the error result does not name the budget and its variable:\n%s", res)
	}
	if _, err := runStdin(t, configMaps(100)); err != nil { // 1,300 nodes
		t.Errorf("an input under the budget: %v", err)
	}
	// a list of empty lists: one node per 3 bytes
	rl, err = runStdin(t, rlHead+"items:\n- {apiVersion: v1, kind: X, metadata: {name: a}, spec: ["+strings.Repeat("[], ", 3000)+"]}\n")
	if err == nil || !strings.Contains(resultsOf(rl), "more than 2000 YAML nodes") {
		t.Errorf("3,000 empty lists in one item: %v\n%s", err, resultsOf(rl))
	}
	t.Setenv("KRM_MERGE_MAX_NODES", "lots")
	if rl, err := runStdin(t, configMaps(1)); err == nil || !strings.Contains(resultsOf(rl), `KRM_MERGE_MAX_NODES "lots"`) {
		t.Errorf("a malformed budget: %v\n%s", err, resultsOf(rl))
	}
}

// The function's stdin is bounded (KRM_MERGE_MAX_INPUT, default 64 MiB, as pkg update's
// --max-file-size): a longer input is refused with an error result naming the bound,
// without reading past it.
func TestInputByteLimit(t *testing.T) {
	t.Setenv("KRM_MERGE_MAX_INPUT", "2KiB")
	in := configMaps(60) // about 3.5 KB
	rl, err := runStdin(t, in)
	if err == nil {
		t.Fatal("an input over the byte limit ran")
	}
	checkFailure(t, rl, "")
	if res := resultsOf(rl); !strings.Contains(res, "longer than 2048 bytes") || !strings.Contains(res, "KRM_MERGE_MAX_INPUT") {
		t.Errorf("the error result does not name the limit and its variable:\n%s", res)
	}
	if _, err := runStdin(t, configMaps(20)); err != nil {
		t.Errorf("an input under the limit: %v", err)
	}
}
