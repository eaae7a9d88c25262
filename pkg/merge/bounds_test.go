package merge_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/merge"
)

// aliasBomb is a 9-level billion-laughs map (10^9 scalars when expanded) with one
// extra field.
func aliasBomb(extra string) string {
	var b strings.Builder
	b.WriteString("data:\n  a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	prev := "a"
	for _, c := range "bcdefghi" {
		fmt.Fprintf(&b, "  %c: &%c [%s]\n", c, c, strings.TrimSuffix(strings.Repeat("*"+prev+", ", 10), ", "))
		prev = string(c)
	}
	return b.String() + "  " + extra + "\n"
}

// TestAliasBombsAreNotExpanded: updated and dest that both hold the same alias bomb
// (compared field by field) merge without expanding it (before the alias memo in equal,
// this took over a minute). The guard is against a hang, not a speed goal. (The 2-way
// engine writes aliased values out expanded: the function refuses items whose aliases
// expand past bounds.MaxExpandedNodes before any merge.)
func TestAliasBombsAreNotExpanded(t *testing.T) {
	done := make(chan string)
	go func() {
		o := yaml.MustParse("data: {z: b}")
		u, d := yaml.MustParse(aliasBomb("z: c")), yaml.MustParse(aliasBomb("z: b"))
		res3, err := merge.ThreeWay(o, u, d, merge.Options{})
		out, conflicts := res3.Value, res3.Conflicts
		if err != nil || len(conflicts) > 0 {
			done <- fmt.Sprintf("3-way: %v, %d conflicts", err, len(conflicts))
			return
		}
		if z, _ := out.Pipe(yaml.Lookup("data", "z")); z == nil || z.YNode().Value != "c" {
			done <- "3-way: upstream change lost"
			return
		}
		done <- ""
	}()
	select {
	case msg := <-done:
		if msg != "" {
			t.Fatal(msg)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("merging two alias bombs did not finish (expanded?)")
	}
}
