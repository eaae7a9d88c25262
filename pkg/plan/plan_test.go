package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/krm-merge/krm-merge/pkg/plan"
)

func TestDiffKeyedSetAndReorder(t *testing.T) {
	cur := map[string]interface{}{
		"ports": []interface{}{
			map[string]interface{}{"containerPort": 80, "protocol": "TCP"},
			map[string]interface{}{"containerPort": 53, "protocol": "UDP"},
		},
		"finalizers": []interface{}{"a", "b"},
	}
	prop := map[string]interface{}{
		"ports": []interface{}{
			map[string]interface{}{"containerPort": 53, "protocol": "UDP"},
			map[string]interface{}{"containerPort": 80, "protocol": "TCP", "name": "http"},
		},
		"finalizers": []interface{}{"b", "c"},
	}
	meta := listsMeta{"ports": {Keys: []string{"containerPort", "protocol"}}, "finalizers": {Set: true}}
	var got []string
	for _, c := range plan.Diff(cur, prop, plan.Options{Meta: meta}) {
		got = append(got, fmt.Sprintf("%s %s", c.Op, c.Path))
	}
	want := []string{"delete finalizers[=a]", "add finalizers[=c]", "add ports[containerPort=80,protocol=TCP].name", "reorder ports"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("changes\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

type listsMeta map[string]plan.List

func (m listsMeta) Field(string) plan.Meta                         { return nil }
func (m listsMeta) List(name string, _, _ []interface{}) plan.List { return m[name] }
