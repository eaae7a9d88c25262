package merge_test

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/schema"
)

// benchDeployment is a Deployment with an image, 20 args and a 200-line embedded
// config; image, tag, arg and line choose the values each side changes.
func benchDeployment(registry, tag string, extraArg string, argChange, lineChange string) *yaml.RNode {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: {app: web}\nspec:\n  replicas: 2\n")
	fmt.Fprintf(&b, "  template:\n    metadata:\n      annotations:\n        config: |\n")
	for i := 0; i < 200; i++ {
		if i == 100 && lineChange != "" {
			fmt.Fprintf(&b, "          %s\n", lineChange)
			continue
		}
		fmt.Fprintf(&b, "          line %d of the config\n", i)
	}
	fmt.Fprintf(&b, "    spec:\n      containers:\n      - name: web\n        image: %s/app/web:%s\n        args:\n", registry, tag)
	for i := 0; i < 20; i++ {
		if i == 0 && argChange != "" {
			fmt.Fprintf(&b, "        - %s\n", argChange)
			continue
		}
		fmt.Fprintf(&b, "        - --flag-%d=value\n", i)
	}
	if extraArg != "" {
		fmt.Fprintf(&b, "        - %s\n", extraArg)
	}
	fmt.Fprintf(&b, "        ports:\n        - containerPort: 8080\n")
	return yaml.MustParse(b.String())
}

// BenchmarkValueMerge measures the 3-way merge of one Deployment with valueMerge off
// and on: "one side" (upstream changes the image, an arg and a config line; dest
// changes only other fields), where the merge inside never runs and on must cost what
// off costs; and "both sides" (dest also mirrors the image, appends an arg and changes
// another config line), where off reports three conflicts and on merges the three
// values inside (an image reference, a 21-element list, a 200-line string).
func BenchmarkValueMerge(b *testing.B) {
	o := benchDeployment("quay.io", "v1.0", "", "", "")
	u := benchDeployment("quay.io", "v1.1", "", "--flag-0=new", "changed upstream")
	oneSide := yaml.MustParse(strings.Replace(o.MustString(), "replicas: 2", "replicas: 5", 1))
	bothSides := benchDeployment("mirror.local", "v1.0", "--local", "", "")
	bothSides = yaml.MustParse(strings.Replace(bothSides.MustString(), "line 150 of the config", "changed locally", 1))
	lists := schema.New(schema.Options{OpenAPI: true})
	for _, c := range []struct {
		name string
		d    *yaml.RNode
	}{{"one side", oneSide}, {"both sides", bothSides}} {
		for _, on := range []bool{false, true} {
			opts := merge.Options{Lists: lists, ValueMerge: on, Share: true}
			b.Run(fmt.Sprintf("%s/valueMerge=%v", c.name, on), func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := merge.ThreeWay(o, u, c.d, opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestValueMergeBenchmarkCases checks that the benchmark's cases are what it says: no
// value merged inside for "one side"; three for "both sides", without conflicts.
func TestValueMergeBenchmarkCases(t *testing.T) {
	o := benchDeployment("quay.io", "v1.0", "", "", "")
	u := benchDeployment("quay.io", "v1.1", "", "--flag-0=new", "changed upstream")
	d := benchDeployment("mirror.local", "v1.0", "--local", "", "")
	d = yaml.MustParse(strings.Replace(d.MustString(), "line 150 of the config", "changed locally", 1))
	r, err := merge.ThreeWay(o, u, d, merge.Options{Lists: schema.New(schema.Options{OpenAPI: true}), ValueMerge: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ValueMerges) != 3 || len(r.Conflicts) != 0 {
		t.Errorf("%d values merged inside, %d conflicts; want 3 and 0", len(r.ValueMerges), len(r.Conflicts))
	}
	s := r.Value.MustString()
	for _, want := range []string{"image: mirror.local/app/web:v1.1", "- --flag-0=new", "- --local", "changed upstream", "changed locally"} {
		if !strings.Contains(s, want) {
			t.Errorf("merged Deployment lacks %q", want)
		}
	}
}
