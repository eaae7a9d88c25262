package merge_test

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/merge"
)

// TestTwoWayNullElementsAreNoValue pins the difference from kubectl's strategic merge
// that docs/differences.md lists: kubectl keeps a null element of a list without a
// merge key (strategicpatch's case "not filter nulls from non-associative slice":
// `complex_nullable: [key1, null, key2]` stays as it is), where the 2-way merge, as
// the 3-way one, reads a null element of a list of scalars as no value
// (docs/merge-semantics.md, rule 5) and writes `[key1, key2]`: such an element has no
// value a Kubernetes list of strings or numbers can hold (the API server decodes it
// as "" or 0), and one rule for every mode means a null element is never a change or
// a conflict in one mode and an output value in another.
func TestTwoWayNullElementsAreNoValue(t *testing.T) {
	for _, c := range []struct{ name, src, dest, want string }{
		{"added", "complex_nullable: [key1, null, key2]\n", "name: foo\n", "[key1, key2]"},
		{"replacing dest's", "complex_nullable: [key1, null, key2]\n", "complex_nullable: [a]\n", "[key1, key2]"},
		{"in dest", "name: foo\n", "complex_nullable: [key1, ~, key2]\n", "[key1, key2]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := merge.TwoWay(yaml.MustParse(c.src), yaml.MustParse(c.dest), merge.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := res.Value.Pipe(yaml.Lookup("complex_nullable"))
			if err != nil || got == nil {
				t.Fatalf("no complex_nullable in\n%s", res.Value.MustString())
			}
			if s := got.MustString(); s != c.want+"\n" {
				t.Errorf("complex_nullable = %q, want %q", s, c.want)
			}
		})
	}
}
