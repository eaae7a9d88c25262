package merge_test

// Helpers the rule tests (rules_test.go, rules_examples_test.go) share with the other
// tests of the package: parsing inputs, the expected shape of a conflict, and comparing
// an output with the expected one.

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// parse parses YAML; "" is an absent input (nil).
func parse(t *testing.T, s string) *yaml.RNode {
	t.Helper()
	if s == "" {
		return nil
	}
	r, err := yaml.Parse(s)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return r
}

// kubeOpts merges under policy p with the built-in Kubernetes schema.
func kubeOpts(p vocab.Role) merge.Options {
	return merge.Options{Winner: p, Lists: schema.New(schema.Options{OpenAPI: true})}
}

// conflictWant is the expected shape of one conflict.
type conflictWant struct {
	path   string
	kind   merge.ConflictKind
	winner string
}

// checkOutput fails t unless got is want: "" means absent (nil); text compares the YAML
// text byte for byte, else the values semantically (map field order ignored, list order
// kept).
func checkOutput(t *testing.T, got *yaml.RNode, want string, text bool) {
	t.Helper()
	if want == "" {
		if !got.IsNil() {
			t.Fatalf("want absent, got:\n%s", str(got))
		}
		return
	}
	if got.IsNil() {
		t.Fatalf("got absent, want:\n%s", want)
	}
	if text {
		if s := got.MustString(); s != want {
			t.Fatalf("got:\n%s\nwant:\n%s", s, want)
		}
		return
	}
	w := yaml.MustParse(want)
	var diffs []difference
	comparer{ordered: true}.compare(yn(got), yn(w), schema.New(schema.Options{OpenAPI: true}).ForResource(w), nil, &diffs)
	if len(diffs) > 0 {
		t.Fatalf("at %q: got %s, want %s\ngot:\n%s\nwant:\n%s", diffs[0].path.String(), strN(diffs[0].ours), strN(diffs[0].other), str(got), want)
	}
}

// checkConflicts fails t unless got are the conflicts want, in order.
func checkConflicts(t *testing.T, got []merge.Conflict, want []conflictWant) {
	t.Helper()
	var g, w []string
	for _, c := range got {
		g = append(g, c.Path.String()+" | "+string(c.Kind)+" | "+string(c.Winner))
	}
	for _, c := range want {
		w = append(w, c.path+" | "+string(c.kind)+" | "+c.winner)
	}
	if strings.Join(g, "\n") != strings.Join(w, "\n") {
		t.Fatalf("conflicts:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
}

const deployHead = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
const widgetHead = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n"
