package results

import (
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// TestValueOfADeepValue: a value nested 9,990 levels deep (valid YAML, under the
// parser's 10,000) is not put into a result as is, where the result's own levels would
// take it past the limit and fail the whole output; shallow values are shown.
func TestValueOfADeepValue(t *testing.T) {
	deep := yaml.MustParse(strings.Repeat("[", 9990) + strings.Repeat("]", 9990))
	if v, ok := Value(deep).(string); !ok || !strings.Contains(v, "not shown") {
		t.Fatalf("deep value shown: %T", Value(deep))
	}
	edge := yaml.MustParse(strings.Repeat("[", MaxValueDepth) + strings.Repeat("]", MaxValueDepth))
	if _, ok := Value(edge).([]interface{}); !ok {
		t.Fatalf("value %d levels deep not shown: %v", MaxValueDepth, Value(edge))
	}
	if v := Value(yaml.MustParse("{a: [1, {b: c}]}")); v == nil {
		t.Fatal("shallow value lost")
	}
	r := withValues(At{Path: "spec"}.result("warning", "conflict: changed on both sides"), Value(deep), "x")
	b, err := yaml.Marshal(r)
	if err == nil {
		_, err = yaml.Parse(string(b))
	}
	if err != nil {
		t.Fatalf("result with a deep value does not round-trip: %v", err)
	}
}

// A result about a whole resource names no field: no `field: {}` in the output.
func TestWholeResourceResultsNameNoField(t *testing.T) {
	for _, r := range []*framework.Result{
		DeletedUpstreamChangedLocally(At{Location: vocab.Location{File: "dest/a.yaml"}}, "ConfigMap a", vocab.Updated, false),
		StayedDeleted(At{Path: "spec"}, "ConfigMap a"),
		PlanAdd(At{Path: "spec"}, "3way"),
		PlanDelete(At{}, "3way"),
		ApplyRefusedObject(At{Path: "x"}, "kubectl says no"),
		ApplyCreate(At{}),
	} {
		if r.Field != nil {
			t.Errorf("%q names a field: %+v", r.Message, r.Field)
		}
		b, err := yaml.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "field: {}") {
			t.Errorf("%q is written with an empty field:\n%s", r.Message, b)
		}
	}
}

// TestValueMergedMessages: a value merged inside says what came from each side, in the
// value's order, and names its conflicting parts; a conflicting part's result proposes
// the merged value, not updated's whole value.
func TestValueMergedMessages(t *testing.T) {
	o := yaml.MustParse("image: quay.io/argoproj/argocd:v3.4.0")
	u := yaml.MustParse("image: quay.io/argoproj/argocd:v3.5.0")
	for _, tc := range []struct {
		dest, text, conflict string
	}{
		{"registry.example.com/mirror/argoproj/argocd:v3.4.0",
			"merged inside the image reference: from updated the tag (v3.4.0 -> v3.5.0); from dest the repository (quay.io/argoproj/argocd -> registry.example.com/mirror/argoproj/argocd)", ""},
		{"registry.example.com/mirror/argoproj/argocd:v3.4.1",
			"merged inside the image reference: from dest the repository (quay.io/argoproj/argocd -> registry.example.com/mirror/argoproj/argocd); changed on both sides: the tag, reported as a conflict",
			"conflict: changed on both sides: the tag (original v3.4.0, updated v3.5.0, dest v3.4.1); dest wins"},
	} {
		r, err := merge.ThreeWay(o, u, yaml.MustParse("image: "+tc.dest), merge.Options{ValueMerge: true, Winner: vocab.Dest})
		if err != nil || len(r.ValueMerges) != 1 {
			t.Fatalf("%s: %v, %d values merged inside", tc.dest, err, len(r.ValueMerges))
		}
		if got := ValueMergedText(r.ValueMerges[0]); got != tc.text {
			t.Errorf("got  %s\nwant %s", got, tc.text)
		}
		res := ValueMerged(At{Location: vocab.Location{File: "dest/a.yaml"}}, r.ValueMerges[0])
		if res.Severity != framework.Info || res.Field == nil || res.Field.Path != "image" ||
			res.Field.CurrentValue != tc.dest || res.Field.ProposedValue != r.Value.Field("image").Value.YNode().Value {
			t.Errorf("result %+v", res)
		}
		if tc.conflict == "" {
			continue
		}
		if len(r.Conflicts) != 1 {
			t.Fatalf("%d conflicts", len(r.Conflicts))
		}
		c := FieldConflict(At{}, r.Conflicts[0], false)
		if c.Message != tc.conflict || c.Field.ProposedValue != "registry.example.com/mirror/argoproj/argocd:v3.4.1" ||
			c.Field.CurrentValue != tc.dest {
			t.Errorf("conflict %s (current %v, proposed %v)", c.Message, c.Field.CurrentValue, c.Field.ProposedValue)
		}
	}
}

// TestConflictMessageShowsTheDigests: a conflict between long image references that
// differ in the digest (upstream bumped it; dest mirrored the image and pinned another
// digest) shows each digest in the message, each value at most 60 bytes, and the
// result's structured fields carry dest's and updated's whole values.
func TestConflictMessageShowsTheDigests(t *testing.T) {
	ref := "/knative.dev/eventing/cmd/apiserver_receive_adapter@sha256:"
	o := "gcr.io/knative-releases" + ref + strings.Repeat("a", 64)
	u := "gcr.io/knative-releases" + ref + strings.Repeat("b", 64)
	d := "registry.example.com/mirror" + ref + strings.Repeat("c", 64)
	r, err := merge.ThreeWay(yaml.MustParse("value: "+o), yaml.MustParse("value: "+u), yaml.MustParse("value: "+d),
		merge.Options{Winner: vocab.Updated})
	if err != nil || len(r.Conflicts) != 1 {
		t.Fatalf("%v, %d conflicts", err, len(r.Conflicts))
	}
	c := FieldConflict(At{}, r.Conflicts[0], false)
	want := "conflict: changed on both sides (original gcr.io/knative-releases/knat...@sha256:aaaaaaaaaaaaaaaaa..., " +
		"updated gcr.io/knative-releases/knat...@sha256:bbbbbbbbbbbbbbbbb..., " +
		"dest registry.example.com/mirror/...@sha256:ccccccccccccccccc...); updated wins"
	if c.Message != want {
		t.Errorf("message\n%s\nwant\n%s", c.Message, want)
	}
	if c.Field.CurrentValue != d || c.Field.ProposedValue != u {
		t.Errorf("current %v, proposed %v: want the whole values", c.Field.CurrentValue, c.Field.ProposedValue)
	}
}
