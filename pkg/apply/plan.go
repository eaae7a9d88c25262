package apply

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/plan"
)

// Op is what an apply does to one field (package plan's Op).
type Op = plan.Op

const (
	// Changed: the field exists on the live object and gets another value.
	Changed = plan.Changed
	// Added: the field (or list element) is new on the live object.
	Added = plan.Added
	// Deleted: the field (or list element) is removed from the live object: it was in
	// the last-applied configuration and is gone from the config, or a retainKeys or
	// replace strategy clears it.
	Deleted = plan.Deleted
	// Reordered: a keyed list or set keeps its elements but changes their order (the
	// config's order, strategicpatch's $setElementOrder).
	Reordered = plan.Reordered
)

// Change is one field the apply changes on the live object.
type Change struct {
	// Op is what happens.
	Op Op
	// Path is the field, with keyed list elements as [key=value] and set elements as
	// [=value] (package fieldpath).
	Path fieldpath.Path
	// Current is the live value (nil for Added); for Reordered the element keys in live
	// order.
	Current interface{}
	// Proposed is the value after the apply (nil for Deleted); for Reordered the element
	// keys in the new order.
	Proposed interface{}
	// InLastApplied says whether the last-applied configuration has the field, and
	// LastApplied is its value there.
	InLastApplied bool
	LastApplied   interface{}
}

// OverwritesLiveChange reports a change or deletion of a field whose live value
// differs from the last-applied one: someone (a controller such as an HPA, kubectl
// edit, another tool) changed it since the last apply, and the apply overwrites or
// deletes that change. It marks the plan's info results; what onConflict: error refuses
// is kubectl's own check (Options.NoOverwrite), which also counts fields the live object
// removed or alone has.
func (c Change) OverwritesLiveChange() bool {
	return (c.Op == Changed || c.Op == Deleted) && c.InLastApplied && !equal(c.LastApplied, c.Current)
}

// Plan is the list of changes of one object, in field order (map keys sorted, list
// elements in list order).
type Plan []Change

// Overwrites returns the changes that overwrite a live change.
func (p Plan) Overwrites() Plan {
	var out Plan
	for _, c := range p {
		if c.OverwritesLiveChange() {
			out = append(out, c)
		}
	}
	return out
}

// Count returns how many changes have op.
func (p Plan) Count(op Op) int {
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
	changes := plan.Diff(live, result, original, original != nil, plan.Options{Meta: m,
		SkipAnnotation: func(k string) bool { return k == LastAppliedAnnotation }})
	out := make(Plan, len(changes))
	for i, c := range changes {
		out[i] = Change{Op: c.Op, Path: c.Path, Current: c.Current, Proposed: c.Proposed, InLastApplied: c.InBase, LastApplied: c.Base}
	}
	return out
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

// Describe renders a change for a result message, e.g. "apply would change this field:
// 1 -> 3 (changed on the live object since the last apply, which had 2)".
func (c Change) Describe() string {
	var s string
	switch c.Op {
	case Changed:
		s = fmt.Sprintf("apply would change this field: %s -> %s", brief(c.Current), brief(c.Proposed))
		if c.OverwritesLiveChange() {
			s += fmt.Sprintf(" (overwrites a change made on the live object since the last apply, which set %s)", brief(c.LastApplied))
		}
	case Added:
		s = fmt.Sprintf("apply would add %s", brief(c.Proposed))
	case Deleted:
		s = fmt.Sprintf("apply would delete %s", brief(c.Current))
		if c.OverwritesLiveChange() {
			s += fmt.Sprintf(" (in the last-applied configuration as %s, gone from the config; changed on the live object since)", brief(c.LastApplied))
		} else if c.InLastApplied {
			s += " (in the last-applied configuration, gone from the config)"
		} else {
			s += " (not set by the last apply; the config's patch clears it: a retainKeys or replace strategy, or an explicit null)"
		}
	case Reordered:
		s = fmt.Sprintf("apply would reorder the elements: %s -> %s", brief(c.Current), brief(c.Proposed))
	}
	return s
}

// brief renders a value compactly (JSON), cut to 80 characters (plan.Brief).
func brief(v interface{}) string { return plan.Brief(v) }
