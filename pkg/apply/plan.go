package apply

import (
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/krm-merge/krm-merge/pkg/plan"
)

// Plan is the list of changes of one object, in field order (map keys sorted, list
// elements in list order): package plan's changes, Base being the value in the
// last-applied configuration (InBase false: the last apply did not set the field).
type Plan []plan.Change

// Overwrites returns the changes that overwrite a change made on the live object since
// the last apply (plan.Change.OverwritesBase). They mark the plan's info results; what
// onConflict: error refuses is kubectl's own check (Options.NoOverwrite), which also
// counts fields the live object removed or alone has.
func (p Plan) Overwrites() Plan {
	var out Plan
	for _, c := range p {
		if c.OverwritesBase() {
			out = append(out, c)
		}
	}
	return out
}

// Count returns how many changes have op.
func (p Plan) Count(op plan.Op) int {
	n := 0
	for _, c := range p {
		if c.Op == op {
			n++
		}
	}
	return n
}

// diff lists the changes from live to result (both object values); original is the
// last-applied configuration (nil when absent), meta the object's patch metadata (nil
// for JSON merge patch kinds). The last-applied annotation itself is left out. The
// comparison is package plan's differ, with the patch metadata as its schema.
func diff(live, result map[string]interface{}, original interface{}, meta strategicpatch.LookupPatchMeta) Plan {
	var m plan.Meta
	if meta != nil {
		m = patchMeta{meta}
	}
	changes := plan.Diff(live, result, plan.Options{Meta: m, Base: original, HasBase: original != nil,
		SkipAnnotation: func(k string) bool { return k == LastAppliedAnnotation }})
	return Plan(changes)
}

// patchMeta is kubectl's patch metadata as the plan differ's schema: keyed lists by
// their patchMergeKey (strategy merge), merge lists of primitives as sets.
type patchMeta struct {
	m strategicpatch.LookupPatchMeta
}

func (p patchMeta) Field(name string) plan.Meta {
	if sub := structMeta(p.m, name); sub != nil {
		return patchMeta{sub}
	}
	return nil
}

func (p patchMeta) List(name string, _, _ []interface{}) plan.List {
	lm := sliceMeta(p.m, name)
	l := plan.List{Set: lm.set}
	if lm.mergeKey != "" {
		l.Keys = []string{lm.mergeKey}
	}
	if lm.elem != nil {
		l.Elem = patchMeta{lm.elem}
	}
	return l
}
