package function_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/krm-merge/krm-merge/internal/bounds"
)

// aliasAcrossItems is a ResourceList whose first item anchors a list of elems elements
// and whose next n items each alias it: each item stays under the per-item alias bound,
// the list as a whole does not.
func aliasAcrossItems(elems, n int) string {
	var b strings.Builder
	b.WriteString(rlHead + "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: anchor\n  data:\n    big: &big [")
	b.WriteString(strings.TrimSuffix(strings.Repeat("1,", elems), ","))
	b.WriteString("]\n")
	for i := range n {
		fmt.Fprintf(&b, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c%d\n  data:\n    x: *big\n", i)
	}
	return b.String()
}

// An alias bomb spread across items: a ResourceList is one YAML document, so an item
// may alias an anchor in another. With the bound counted per item, 10 items aliasing
// one 200,000-element anchor (401 KB) took 2.35 GiB and 40 of them ran the function out
// of memory with no results. The bound is on the whole list: the item whose aliases
// take the list past it is refused, named, with an error result and no items.
func TestAliasBombAcrossItemsIsRefused(t *testing.T) {
	elems := bounds.MaxExpandedNodes / 20
	in := aliasAcrossItems(elems, 25) // each item adds elems+1 nodes: the 20th crosses the bound
	start := time.Now()
	rl, err := runStdin(t, in)
	if err == nil {
		t.Fatalf("the run succeeded (%s)", time.Since(start))
	}
	checkFailure(t, rl, "")
	res := resultsOf(rl)
	if !strings.Contains(res, "name: c19") || !strings.Contains(res, "added by aliases across the ResourceList") {
		t.Errorf("the error result does not name the item (c19) and the list's bound:\n%s", res)
	}
	// under the bound, the same shape merges
	if _, err := runStdin(t, aliasAcrossItems(elems, 3)); err != nil {
		t.Errorf("3 items aliasing one anchor: %v", err)
	}
}
