package resources

import (
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/plan"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/roles"
	"github.com/krm-merge/krm-merge/pkg/schema"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// mergePlan lists, per merged dest item (in input order), the fields a 3-way or 2-way
// run would change: package plan's Diff of dest against the merged item, lists paired
// by the merge's own list decisions, host annotations left out; a change at or under a
// conflict's path on that item is left out (the conflict reports it). It records the
// changes in o.Changes and returns one info result per change (results.PlanChange) and
// the counts.
func (r *run) mergePlan(o *Outcome) (framework.Results, results.ChangeCounts) {
	covered := map[*roles.Item][]string{}
	for _, c := range o.Conflicts {
		path := ""
		if c.Field != nil {
			path = c.Field.Path.String()
		}
		covered[c.Item] = append(covered[c.Item], path)
	}
	merged := make([]*roles.Item, 0, len(o.Merged))
	for it := range o.Merged {
		merged = append(merged, it)
	}
	sort.Slice(merged, func(i, j int) bool { return merged[i].Position < merged[j].Position })
	skip := func(k string) bool { return vocab.IsHostAnnotation(k, r.opts.Roles.Annotation) }
	var out framework.Results
	var counts results.ChangeCounts
	for _, d := range merged {
		m := o.Merged[d]
		cur, _ := results.Value(d.Node).(map[string]interface{})
		prop, _ := results.Value(m).(map[string]interface{})
		var meta plan.Meta
		if lists := r.opts.Merge.Lists; lists != nil {
			meta = listMeta{n: lists.ForResource(d.Node, m), r: lists}
		}
		changed := false
		for _, c := range plan.Diff(cur, prop, plan.Options{Meta: meta, SkipAnnotation: skip}) {
			if under(c.Path.String(), covered[d]) {
				continue
			}
			changed = true
			counts.Count(c)
			o.Changes = append(o.Changes, FieldChange{Item: d, Change: c})
			out = append(out, results.PlanChange(r.valuesAt(d), c, r.opts.Roles.Mode))
		}
		if changed || len(covered[d]) > 0 {
			counts.Resources++
		}
	}
	return out, counts
}

// under reports whether path is one of paths or lies under one of them ("" covers all).
func under(path string, paths []string) bool {
	for _, p := range paths {
		if p == "" || path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[") {
			return true
		}
	}
	return false
}

// listMeta is package schema's list decisions as the differ's Meta: the same keys the
// merge used (a field's inline OpenAPI comment aside, which the values no longer carry).
type listMeta struct {
	n schema.Node
	r *schema.Resolver
}

func (s listMeta) Field(name string) plan.Meta { return listMeta{n: s.n.Field(name), r: s.r} }

func (s listMeta) List(name string, cur, prop []interface{}) plan.List {
	field := s.n.Field(name)
	var cn, pn yaml.Node
	if cn.Encode(cur) != nil || pn.Encode(prop) != nil {
		return plan.List{}
	}
	l := s.r.Decide(field, &cn, &pn)
	out := plan.List{Elem: listMeta{n: field.Elements(), r: s.r}}
	switch l.Type {
	case schema.Map:
		out.Keys, out.AnyKey, out.Untagged = l.Keys, l.AnyKey, l.Untagged
	case schema.Set:
		out.Set = true
	}
	return out
}
