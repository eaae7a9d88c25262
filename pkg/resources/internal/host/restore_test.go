package host

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/schema"
)

const ids = "    internal.config.kubernetes.io/id: '3'\n    config.k8s.io/id: '3'\n"

func parse(t *testing.T, s string) *yaml.RNode {
	t.Helper()
	n, err := yaml.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func kptfile(annos, mutators string) string {
	return "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n  annotations:\n" + annos + "pipeline:\n  mutators:\n" + mutators
}

func TestFinish(t *testing.T) {
	lists := schema.New(schema.Options{OpenAPI: true})
	in := kptfile(ids+"    a: x\n    b: y\n", "  - image: a:1 # mine\n  - image: b:1 # bee\n")
	for _, tt := range []struct {
		name   string
		out    string
		want   string // the item emitted: always with the id
		copied []Copy
	}{
		{"a changed value: nothing else changes",
			kptfile("    a: z\n    b: y\n", "  - image: a:1 # mine\n  - image: b:1 # bee\n"),
			kptfile(ids+"    a: z\n    b: y\n", "  - image: a:1 # mine\n  - image: b:1 # bee\n"), nil},
		{"a field new in the middle of a map goes last, where the host sorts it",
			kptfile("    a: x\n    new: n\n    b: y\n", "  - image: a:1 # mine\n  - image: b:1 # bee\n"),
			kptfile(ids+"    a: x\n    b: y\n    new: n\n", "  - image: a:1 # mine\n  - image: b:1 # bee\n"), nil},
		{"a comment the merge removed is restored by the host on the same node",
			kptfile("    a: x\n    b: y\n", "  - image: a:1\n  - image: b:1 # bee\n"),
			kptfile(ids+"    a: x\n    b: y\n", "  - image: a:1 # mine\n  - image: b:1 # bee\n"), nil},
		{"an element in the middle takes dest's comment of the element at its position: named",
			kptfile("    a: x\n    b: y\n", "  - image: a:1 # mine\n  - image: c:1\n  - image: b:1 # bee\n"),
			kptfile(ids+"    a: x\n    b: y\n", "  - image: a:1 # mine\n  - image: c:1 # bee\n  - image: b:1 # bee\n"),
			[]Copy{{Path: "pipeline.mutators[1].image", Comment: "# bee"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			inNode, out := parse(t, in), parse(t, tt.out)
			before := out.MustString()
			got := Finish(inNode, out, lists)
			if out.MustString() != before || inNode.MustString() != in {
				t.Fatal("Finish changed its inputs")
			}
			if fmt.Sprint(got.Copied) != fmt.Sprint(tt.copied) {
				t.Errorf("copied %v, want %v", got.Copied, tt.copied)
			}
			if s := got.Item.MustString(); s != tt.want {
				t.Errorf("item:\n%s\nwant:\n%s", s, tt.want)
			}
			if !HasID(got.Item) {
				t.Error("the item went out without the id")
			}
		})
	}
}

func TestHasID(t *testing.T) {
	for _, a := range []string{"internal.config.kubernetes.io/id: '1'", "config.k8s.io/id: '1'"} {
		if !HasID(parse(t, "metadata:\n  annotations:\n    "+a+"\n")) {
			t.Errorf("%s: no id found", a)
		}
	}
	if HasID(parse(t, "metadata:\n  annotations:\n    config.kubernetes.io/path: x\n")) {
		t.Error("an item without an id has one")
	}
	if !strings.Contains(strings.Join(idAnnotations, ","), "config.k8s.io/id") {
		t.Error("the legacy id is not listed")
	}
}
