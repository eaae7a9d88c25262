package apply

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
)

// Op is what an apply does to one field.
type Op string

const (
	// Changed: the field exists on the live object and gets another value.
	Changed Op = "change"
	// Added: the field (or list element) is new on the live object.
	Added Op = "add"
	// Deleted: the field (or list element) is removed from the live object: it was in
	// the last-applied configuration and is gone from the config, or a retainKeys or
	// replace strategy clears it.
	Deleted Op = "delete"
	// Reordered: a keyed list or set keeps its elements but changes their order (the
	// config's order, strategicpatch's $setElementOrder).
	Reordered Op = "reorder"
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
// deletes that change.
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
// for JSON merge patch kinds). The last-applied annotation itself is left out.
func diff(live, result map[string]interface{}, original interface{}, meta strategicpatch.LookupPatchMeta) Plan {
	d := &differ{}
	d.walk(nil, live, result, original, original != nil, meta, listMeta{})
	return d.plan
}

type differ struct{ plan Plan }

func (d *differ) add(op Op, path fieldpath.Path, cur, prop, orig interface{}, hasOrig bool) {
	d.plan = append(d.plan, Change{Op: op, Path: path, Current: cur, Proposed: prop, LastApplied: orig, InLastApplied: hasOrig})
}

// walk compares cur (live) and prop (result) at path. For lists, lm is the field's
// list metadata; for maps, meta the struct's.
func (d *differ) walk(path fieldpath.Path, cur, prop, orig interface{}, hasOrig bool, meta strategicpatch.LookupPatchMeta, lm listMeta) {
	switch c := cur.(type) {
	case map[string]interface{}:
		if p, ok := prop.(map[string]interface{}); ok {
			d.maps(path, c, p, orig, hasOrig, meta)
			return
		}
	case []interface{}:
		if p, ok := prop.([]interface{}); ok {
			d.lists(path, c, p, orig, hasOrig, lm)
			return
		}
	}
	if !equal(cur, prop) {
		d.add(Changed, path, cur, prop, orig, hasOrig)
	}
}

func (d *differ) maps(path fieldpath.Path, cur, prop map[string]interface{}, orig interface{}, hasOrig bool, meta strategicpatch.LookupPatchMeta) {
	om, _ := orig.(map[string]interface{})
	keys := make([]string, 0, len(cur)+len(prop))
	for k := range cur {
		keys = append(keys, k)
	}
	for k := range prop {
		if _, ok := cur[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	isAnnotations := len(path) == 2 && path[0].Name == "metadata" && path[1].Name == "annotations"
	for _, k := range keys {
		if isAnnotations && k == LastAppliedAnnotation {
			continue
		}
		cv, inCur := cur[k]
		pv, inProp := prop[k]
		ov, inOrig := om[k]
		inOrig = inOrig && hasOrig
		p := path.Field(k)
		switch {
		case !inProp:
			d.add(Deleted, p, cv, nil, ov, inOrig)
		case !inCur:
			d.add(Added, p, nil, pv, ov, inOrig)
		default:
			if _, isList := pv.([]interface{}); isList {
				d.walk(p, cv, pv, ov, inOrig, nil, sliceMeta(meta, k))
			} else {
				d.walk(p, cv, pv, ov, inOrig, structMeta(meta, k), listMeta{})
			}
		}
	}
}

func (d *differ) lists(path fieldpath.Path, cur, prop []interface{}, orig interface{}, hasOrig bool, lm listMeta) {
	if equal(cur, prop) {
		return
	}
	ol, _ := orig.([]interface{})
	switch {
	case lm.mergeKey != "" && allHaveKey(cur, lm.mergeKey) && allHaveKey(prop, lm.mergeKey):
		key := lm.mergeKey
		sel := func(v interface{}) fieldpath.Path {
			return path.Key([]string{key}, []string{scalarText(v.(map[string]interface{})[key])})
		}
		ident := func(v interface{}) string { return scalarText(v.(map[string]interface{})[key]) }
		d.elements(path, cur, prop, ol, hasOrig, ident, sel, func(p fieldpath.Path, c, pr, o interface{}, ho bool) {
			d.walk(p, c, pr, o, ho, lm.elem, listMeta{})
		})
	case lm.set && allScalars(cur) && allScalars(prop):
		d.elements(path, cur, prop, ol, hasOrig, scalarText, func(v interface{}) fieldpath.Path { return path.Value(scalarText(v)) }, nil)
	default:
		d.add(Changed, path, cur, prop, orig, hasOrig)
	}
}

// elements compares two lists whose elements are identified by ident: removed, added,
// and (through same) common elements, then a reorder of the common ones.
func (d *differ) elements(path fieldpath.Path, cur, prop, orig []interface{}, hasOrig bool, ident func(interface{}) string,
	sel func(interface{}) fieldpath.Path, same func(fieldpath.Path, interface{}, interface{}, interface{}, bool)) {
	index := func(l []interface{}) map[string]interface{} {
		m := make(map[string]interface{}, len(l))
		for _, v := range l {
			if _, dup := m[ident(v)]; !dup {
				m[ident(v)] = v
			}
		}
		return m
	}
	ci, pi, oi := index(cur), index(prop), index(orig)
	var curOrder, propOrder []interface{}
	for _, v := range cur {
		id := ident(v)
		ov, inOrig := oi[id]
		if pv, ok := pi[id]; ok {
			curOrder = append(curOrder, id)
			if same != nil {
				same(sel(v), v, pv, ov, inOrig && hasOrig)
			}
		} else {
			d.add(Deleted, sel(v), v, nil, ov, inOrig && hasOrig)
		}
	}
	for _, v := range prop {
		id := ident(v)
		ov, inOrig := oi[id]
		if _, ok := ci[id]; ok {
			propOrder = append(propOrder, id)
		} else {
			d.add(Added, sel(v), nil, v, ov, inOrig && hasOrig)
		}
	}
	if !equal(curOrder, propOrder) {
		d.add(Reordered, path, curOrder, propOrder, nil, false)
	}
}

func allHaveKey(l []interface{}, key string) bool {
	seen := map[string]bool{}
	for _, v := range l {
		m, ok := v.(map[string]interface{})
		if !ok {
			return false
		}
		kv, ok := m[key]
		if !ok || seen[scalarText(kv)] {
			return false
		}
		seen[scalarText(kv)] = true
	}
	return true
}

func allScalars(l []interface{}) bool {
	seen := map[string]bool{}
	for _, v := range l {
		switch v.(type) {
		case map[string]interface{}, []interface{}:
			return false
		}
		if seen[scalarText(v)] {
			return false
		}
		seen[scalarText(v)] = true
	}
	return true
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

// brief renders a value compactly (JSON), cut to 80 characters.
func brief(v interface{}) string {
	var s string
	if str, ok := v.(string); ok {
		s = str
	} else if b, err := toJSON(v); err == nil {
		s = string(b)
	} else {
		s = fmt.Sprint(v)
	}
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
