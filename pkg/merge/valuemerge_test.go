package merge_test

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/render"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// valueMergeCase is one case of testdata/valuemerge.yaml (its header says what each
// field means).
type valueMergeCase struct {
	Name      string   `yaml:"name"`
	Schema    string   `yaml:"schema"`
	Original  string   `yaml:"original"`
	Updated   string   `yaml:"updated"`
	Dest      string   `yaml:"dest"`
	Want      string   `yaml:"want"`
	WantDest  string   `yaml:"wantDest"`
	Conflicts []string `yaml:"conflicts"`
	Merged    []string `yaml:"merged"`
}

// summary renders a ValueMerge as the test data writes it: "<path>: <who> <where>, ...".
func summary(v merge.ValueMerge) string {
	var parts []string
	for _, p := range v.Parts {
		parts = append(parts, string(p.Change)+" "+p.Where())
	}
	return v.Path.String() + ": " + strings.Join(parts, ", ")
}

// valueMergeCases reads testdata/valuemerge.yaml, then testdata/valuemerge-images.yaml.
func valueMergeCases(t testing.TB) []valueMergeCase {
	var cases []valueMergeCase
	for _, file := range []string{"testdata/valuemerge.yaml", "testdata/valuemerge-images.yaml"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var more []valueMergeCase
		if err := yaml.Unmarshal(b, &more); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, more...)
	}
	return cases
}

// TestValueMergeRules runs the rule cases of testdata/valuemerge*.yaml under both
// policies with valueMerge on, and checks that with it off every value all three hold
// differently is one whole conflict again.
func TestValueMergeRules(t *testing.T) {
	cases := valueMergeCases(t)
	if len(cases) < 20 {
		t.Fatalf("%d cases read", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			lists := schema.New(schema.Options{OpenAPI: c.Schema == "kubernetes"})
			for _, policy := range []vocab.Role{vocab.Updated, vocab.Dest} {
				o, u, d := parse(t, c.Original), parse(t, c.Updated), parse(t, c.Dest)
				in := [3]string{str(o), str(u), str(d)}
				r, err := merge.ThreeWay(o, u, d, merge.Options{Winner: policy, Lists: lists, ValueMerge: true})
				if err != nil {
					t.Fatal(err)
				}
				if after := [3]string{str(o), str(u), str(d)}; after != in {
					t.Fatal("ThreeWay changed its inputs")
				}
				want, winner := c.Want, "updated"
				if policy == vocab.Dest {
					winner = "dest"
					if c.WantDest != "" {
						want = c.WantDest
					}
				}
				if got := str(r.Value); got != want {
					t.Errorf("policy %s: got\n%s\nwant\n%s", winner, got, want)
				}
				var gotC, wantC []string
				for _, x := range r.Conflicts {
					gotC = append(gotC, x.String())
					if x.Part != nil && !merge.Equal(x.Merged, merge.LookupPath(r.Value, x.Path)) {
						t.Errorf("conflict %s: Merged %s is not the output's value", x, render.Render(x.Merged, render.Short))
					}
				}
				for _, x := range c.Conflicts {
					wantC = append(wantC, strings.Replace(x, "; updated wins", "; "+winner+" wins", 1))
				}
				if strings.Join(gotC, "\n") != strings.Join(wantC, "\n") {
					t.Errorf("policy %s: conflicts\n%s\nwant\n%s", winner, strings.Join(gotC, "\n"), strings.Join(wantC, "\n"))
				}
				var gotM []string
				for _, v := range r.ValueMerges {
					gotM = append(gotM, summary(v))
				}
				if strings.Join(gotM, "\n") != strings.Join(c.Merged, "\n") {
					t.Errorf("policy %s: merged inside\n%s\nwant\n%s", winner, strings.Join(gotM, "\n"), strings.Join(c.Merged, "\n"))
				}
			}
			// Off: each value merged inside, and each conflicting one, is one conflict.
			r, err := merge.ThreeWay(parse(t, c.Original), parse(t, c.Updated), parse(t, c.Dest), merge.Options{Lists: lists})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for _, x := range append(append([]string(nil), c.Merged...), c.Conflicts...) {
				want[x[:strings.Index(x, ": ")]] = true
			}
			got := map[string]bool{}
			for _, x := range r.Conflicts {
				if x.Part != nil || x.Merged != nil {
					t.Errorf("valueMerge off: conflict %s has a part", x)
				}
				got[x.Path.String()] = true
			}
			if len(r.ValueMerges) > 0 || !reflect.DeepEqual(got, want) {
				t.Errorf("valueMerge off: conflicts at %v, want %v; %d values merged inside", got, want, len(r.ValueMerges))
			}
		})
	}
}
