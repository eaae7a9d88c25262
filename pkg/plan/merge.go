package plan

import (
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/listkind"
	"github.com/krm-merge/krm-merge/pkg/resources"
	"github.com/krm-merge/krm-merge/pkg/results"
	"github.com/krm-merge/krm-merge/pkg/roles"
)

// Counts are a plan's field changes, by operation.
type Counts struct {
	// Changed, Added, Deleted and Reordered count the field changes by Op.
	Changed, Added, Deleted, Reordered int
	// Resources is how many merged resources would change at all.
	Resources int
}

// ForMerge is the plan of a 3-way or 2-way run (`plan: true`): what out (from
// resources.Merge over items) would write, without writing it. Results, in order:
//
//   - an info summary: "3way plan, nothing written: 2 merged (1 would change), 1 added,
//     0 deleted, 3 kept, 1 conflicts; fields: 2 changed, 1 added, 0 deleted, 0 reordered";
//   - per merged dest item, one info result per field the merge would change (Diff of
//     dest against the merged item, lists paired by lists' merge keys), with resourceRef
//     and file of the dest item, field.path, currentValue (dest) and proposedValue
//     (merged); host annotations (path, index, id, the role annotation) are left out;
//   - the conflict results of out (warnings, errors under onConflict: error) in place of
//     the field changes at or under their path, so each field is reported once;
//   - one info result per resource added (with the file it would be written to) or
//     deleted, and out's other warnings.
//
// lists decides which lists are keyed, as for the merge (nil: heuristic keys only).
func ForMerge(out *resources.Outcome, cfg *config.Config, lists *listkind.Resolver) framework.Results {
	mode := string(cfg.Mode)
	conflictPaths := map[string][]string{}
	for _, c := range out.Conflicts {
		k := resultKey(c)
		if c.Field != nil {
			conflictPaths[k] = append(conflictPaths[k], c.Field.Path)
		}
	}
	var fields framework.Results
	var counts Counts
	var merged []*roles.Item
	for it := range out.Merged {
		merged = append(merged, it)
	}
	sortItems(merged)
	skip := func(k string) bool { return roles.IsHostAnnotation(k, cfg.RoleAnnotation) }
	for _, d := range merged {
		m := out.Merged[d]
		cur, _ := results.Value(d.Node).(map[string]interface{})
		prop, _ := results.Value(m).(map[string]interface{})
		var meta Meta
		if lists != nil {
			meta = schemaMeta{n: lists.ForResource(d.Node, m), r: lists}
		}
		changes := Diff(cur, prop, nil, false, Options{Meta: meta, SkipAnnotation: skip})
		covered := conflictPaths[itemKey(d)]
		changed := false
		for _, c := range changes {
			if under(c.Path.String(), covered) {
				continue
			}
			changed = true
			switch c.Op {
			case Changed:
				counts.Changed++
			case Added:
				counts.Added++
			case Deleted:
				counts.Deleted++
			case Reordered:
				counts.Reordered++
			}
			r := &framework.Result{Severity: framework.Info, ResourceRef: d.Ref(), Message: Describe(c, mode),
				Field: &framework.Field{Path: c.Path.String(), CurrentValue: c.Current, ProposedValue: c.Proposed}}
			if d.File != "" {
				r.File = &framework.File{Path: d.File, Index: d.Index}
			}
			fields = append(fields, r)
		}
		if changed || len(covered) > 0 {
			counts.Resources++
		}
	}
	var resourcesLevel framework.Results
	for _, n := range out.Added {
		r := &framework.Result{Severity: framework.Info, ResourceRef: results.ResourceRef(n),
			Message: fmt.Sprintf("%s plan: would add this resource", mode)}
		if file, idx, _ := kioutil.GetFileAnnotations(n); file != "" {
			i := 0
			fmt.Sscanf(idx, "%d", &i)
			r.File = &framework.File{Path: file, Index: i}
		}
		resourcesLevel = append(resourcesLevel, r)
	}
	for _, d := range out.Deleted {
		r := &framework.Result{Severity: framework.Info, ResourceRef: d.Ref(),
			Message: fmt.Sprintf("%s plan: would delete this resource (deleted upstream)", mode)}
		if d.File != "" {
			r.File = &framework.File{Path: d.File, Index: d.Index}
		}
		resourcesLevel = append(resourcesLevel, r)
	}
	c := out.Counts
	summary := &framework.Result{Severity: framework.Info, Message: fmt.Sprintf(
		"%s plan, nothing written: %d merged (%d would change), %d added, %d deleted, %d kept, %d conflicts; fields: %d changed, %d added, %d deleted, %d reordered",
		mode, c.Merged, counts.Resources, c.Added, c.Deleted, c.Kept, c.Conflicts, counts.Changed, counts.Added, counts.Deleted, counts.Reordered)}
	if c.StayedDeleted > 0 {
		summary.Message += fmt.Sprintf("; %d stay deleted locally", c.StayedDeleted)
	}
	res := framework.Results{summary}
	res = append(res, fields...)
	res = append(res, out.Conflicts...)
	res = append(res, resourcesLevel...)
	// out's warnings: every result after its summary that is not a conflict.
	for _, r := range out.Results[1:] {
		if !isIn(r, out.Conflicts) {
			res = append(res, r)
		}
	}
	return res
}

// Describe renders a change for a result message, e.g. "3way plan: would change this
// field: 1 -> 3".
func Describe(c Change, mode string) string {
	switch c.Op {
	case Changed:
		return fmt.Sprintf("%s plan: would change this field: %s -> %s", mode, Brief(c.Current), Brief(c.Proposed))
	case Added:
		return fmt.Sprintf("%s plan: would add %s", mode, Brief(c.Proposed))
	case Deleted:
		return fmt.Sprintf("%s plan: would delete %s", mode, Brief(c.Current))
	default:
		return fmt.Sprintf("%s plan: would reorder the elements: %s -> %s", mode, Brief(c.Current), Brief(c.Proposed))
	}
}

// Brief renders a value compactly (JSON; strings as they are), cut to 80 characters.
func Brief(v interface{}) string {
	s, ok := v.(string)
	if !ok {
		s = ScalarText(v)
	}
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// under reports whether path is one of paths or lies under one of them.
func under(path string, paths []string) bool {
	for _, p := range paths {
		if p == "" || path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[") {
			return true
		}
	}
	return false
}

func isIn(r *framework.Result, rs framework.Results) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// resultKey and itemKey identify a dest item in a conflict result: file, index and
// resource.
func resultKey(r *framework.Result) string {
	file, idx := "", 0
	if r.File != nil {
		file, idx = r.File.Path, r.File.Index
	}
	return fmt.Sprintf("%s\x00%d\x00%v", file, idx, refText(r.ResourceRef))
}

func itemKey(it *roles.Item) string {
	return fmt.Sprintf("%s\x00%d\x00%v", it.File, it.Index, refText(it.Ref()))
}

func refText(r *yaml.ResourceIdentifier) string {
	if r == nil {
		return ""
	}
	return r.APIVersion + "/" + r.Kind + "/" + r.Namespace + "/" + r.Name
}

// sortItems orders items by input position.
func sortItems(items []*roles.Item) {
	sort.Slice(items, func(i, j int) bool { return items[i].Position < items[j].Position })
}

// schemaMeta is package listkind's list decisions as the differ's Meta: the same keys the
// merge used (a field's inline OpenAPI comment aside, which the values no longer carry).
type schemaMeta struct {
	n listkind.Node
	r *listkind.Resolver
}

func (s schemaMeta) Field(name string) Meta { return schemaMeta{n: s.n.Field(name), r: s.r} }

func (s schemaMeta) List(name string, cur, prop []interface{}) List {
	field := s.n.Field(name)
	var cn, pn yaml.Node
	if cn.Encode(cur) != nil || pn.Encode(prop) != nil {
		return List{}
	}
	l := s.r.Decide(field, &cn, &pn)
	out := List{Elem: schemaMeta{n: field.Elements(), r: s.r}}
	switch l.Kind {
	case listkind.Keyed:
		out.Keys, out.AnyKey, out.Untagged = l.Keys, l.AnyKey, l.Untagged
	case listkind.Set:
		out.Set = true
	}
	return out
}
