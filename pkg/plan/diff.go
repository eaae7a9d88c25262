package plan

import (
	"sort"
	"strings"

	"github.com/krm-merge/krm-merge/internal/jsonvalue"
	"github.com/krm-merge/krm-merge/internal/render"
	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/schema"
)

// Op is what a run does to one field.
type Op string

const (
	// Changed: the field exists and gets another value.
	Changed Op = "change"
	// Added: the field (or list element) is new.
	Added Op = "add"
	// Deleted: the field (or list element) is removed.
	Deleted Op = "delete"
	// Reordered: a keyed list or set keeps its elements but changes their order.
	Reordered Op = "reorder"
)

// Change is one field a run changes.
type Change struct {
	// Op is what happens.
	Op Op
	// Path is the field, with keyed list elements as [key=value] and set elements as
	// [=value].
	Path fieldpath.Path
	// Current is the value before (nil for Added); for Reordered the element ids in the
	// current order.
	Current interface{}
	// Proposed is the value after (nil for Deleted); for Reordered the element ids in the
	// new order.
	Proposed interface{}
	// InBase says whether the common ancestor (apply: the last-applied configuration;
	// 3-way: original) has the field, and Base is its value there.
	InBase bool
	Base   interface{}
}

// OverwritesBase reports a change or deletion of a field whose current value differs
// from the base's: someone changed it since the base (apply mode: a controller such as
// an HPA, kubectl edit, another tool changed the live object since the last apply), and
// the run overwrites or deletes that change.
func (c Change) OverwritesBase() bool {
	return (c.Op == Changed || c.Op == Deleted) && c.InBase && !jsonvalue.Equal(c.Base, c.Current)
}

// List says how the elements of one list are paired.
type List struct {
	// Keys are the merge keys of a keyed list, primary first; nil otherwise.
	Keys []string
	// AnyKey pairs elements that carry any of Keys, none required (schema.List.AnyKey,
	// the Kptfile pipeline); else every element needs the primary key.
	AnyKey bool
	// Untagged are keys compared without image tag (schema.List.Untagged).
	Untagged []string
	// Set is true for a set of primitives, paired by value.
	Set bool
	// Elem is the schema of the elements (nil: unknown).
	Elem Meta
}

// Meta is the schema at one place of the compared values. A nil Meta knows nothing:
// maps are compared field by field, lists as a whole.
type Meta interface {
	// Field returns the schema of map field name, nil when unknown.
	Field(name string) Meta
	// List returns how the list in map field name pairs its elements; cur and prop are
	// the list's two values, for schemas that infer keys from the data.
	List(name string, cur, prop []interface{}) List
}

// Options tune Diff.
type Options struct {
	// Meta is the schema of the object root; nil for none.
	Meta Meta
	// SkipAnnotation leaves out the metadata.annotations keys it returns true for (the
	// last-applied annotation in apply mode, a KRM host's path and id annotations).
	SkipAnnotation func(key string) bool
	// Base is the common ancestor of cur and prop (apply mode: the last-applied
	// configuration; 3-way: original), an object value as they are, read only with
	// HasBase; each Change carries its value there (Change.InBase, Change.Base).
	Base interface{}
	// HasBase says there is a Base; false (the zero value): none.
	HasBase bool
}

// Diff lists the changes from cur to prop (object values), in field order (map keys
// sorted, list elements in list order), each with its value in opts.Base when
// opts.HasBase.
func Diff(cur, prop map[string]interface{}, opts Options) []Change {
	d := &differ{skip: opts.SkipAnnotation}
	var base interface{}
	if opts.HasBase {
		base = opts.Base
	}
	d.walk(nil, cur, prop, base, opts.HasBase, opts.Meta, List{})
	return d.out
}

type differ struct {
	out  []Change
	skip func(string) bool
}

func (d *differ) add(op Op, path fieldpath.Path, cur, prop, base interface{}, hasBase bool) {
	d.out = append(d.out, Change{Op: op, Path: path, Current: cur, Proposed: prop, Base: base, InBase: hasBase})
}

// walk compares cur and prop at path. For lists, lm is the field's list schema; for
// maps, meta the map's.
func (d *differ) walk(path fieldpath.Path, cur, prop, base interface{}, hasBase bool, meta Meta, lm List) {
	switch c := cur.(type) {
	case map[string]interface{}:
		if p, ok := prop.(map[string]interface{}); ok {
			d.maps(path, c, p, base, hasBase, meta)
			return
		}
	case []interface{}:
		if p, ok := prop.([]interface{}); ok {
			d.lists(path, c, p, base, hasBase, lm)
			return
		}
	}
	if !jsonvalue.Equal(cur, prop) {
		d.add(Changed, path, cur, prop, base, hasBase)
	}
}

func (d *differ) maps(path fieldpath.Path, cur, prop map[string]interface{}, base interface{}, hasBase bool, meta Meta) {
	bm, _ := base.(map[string]interface{})
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
		if isAnnotations && d.skip != nil && d.skip(k) {
			continue
		}
		cv, inCur := cur[k]
		pv, inProp := prop[k]
		bv, inBase := bm[k]
		inBase = inBase && hasBase
		p := path.Field(k)
		switch {
		case !inProp:
			d.add(Deleted, p, cv, nil, bv, inBase)
		case !inCur:
			d.add(Added, p, nil, pv, bv, inBase)
		default:
			pl, isList := pv.([]interface{})
			switch {
			case isList && meta != nil:
				cl, _ := cv.([]interface{})
				d.walk(p, cv, pv, bv, inBase, nil, meta.List(k, cl, pl))
			case isList:
				d.walk(p, cv, pv, bv, inBase, nil, List{})
			case meta != nil:
				d.walk(p, cv, pv, bv, inBase, meta.Field(k), List{})
			default:
				d.walk(p, cv, pv, bv, inBase, nil, List{})
			}
		}
	}
}

func (d *differ) lists(path fieldpath.Path, cur, prop []interface{}, base interface{}, hasBase bool, lm List) {
	if jsonvalue.Equal(cur, prop) {
		return
	}
	bl, _ := base.([]interface{})
	switch {
	case len(lm.Keys) > 0 && allHaveKeys(cur, lm) && allHaveKeys(prop, lm):
		keys := lm.Keys
		sel := func(v interface{}) fieldpath.Path {
			ks, vs := keyValues(v.(map[string]interface{}), keys, lm.Untagged)
			return path.Key(ks, vs)
		}
		ident := func(v interface{}) string {
			ks, vs := keyValues(v.(map[string]interface{}), keys, lm.Untagged)
			return strings.Join(ks, "\x00") + "\x01" + strings.Join(vs, "\x00")
		}
		d.elements(path, cur, prop, bl, hasBase, ident, sel, func(p fieldpath.Path, c, pr, b interface{}, hb bool) {
			d.walk(p, c, pr, b, hb, lm.Elem, List{})
		})
	case lm.Set && allScalars(cur) && allScalars(prop):
		d.elements(path, cur, prop, bl, hasBase, scalarText, func(v interface{}) fieldpath.Path { return path.Value(scalarText(v)) }, nil)
	default:
		d.add(Changed, path, cur, prop, base, hasBase)
	}
}

// keyValues returns the merge keys an element carries and their values, in key order.
func keyValues(m map[string]interface{}, keys, untagged []string) (ks, vs []string) {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			ks, vs = append(ks, k), append(vs, schema.KeyValue(untagged, k, scalarText(v)))
		}
	}
	return ks, vs
}

// elements compares two lists whose elements are identified by ident: removed, added,
// and (through same) common elements, then a reorder of the common ones.
func (d *differ) elements(path fieldpath.Path, cur, prop, base []interface{}, hasBase bool, ident func(interface{}) string,
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
	ci, pi, bi := index(cur), index(prop), index(base)
	var curOrder, propOrder []interface{}
	for _, v := range cur {
		id := ident(v)
		bv, inBase := bi[id]
		if pv, ok := pi[id]; ok {
			curOrder = append(curOrder, id)
			if same != nil {
				same(sel(v), v, pv, bv, inBase && hasBase)
			}
		} else {
			d.add(Deleted, sel(v), v, nil, bv, inBase && hasBase)
		}
	}
	for _, v := range prop {
		id := ident(v)
		bv, inBase := bi[id]
		if _, ok := ci[id]; ok {
			propOrder = append(propOrder, id)
		} else {
			d.add(Added, sel(v), nil, v, bv, inBase && hasBase)
		}
	}
	if !jsonvalue.Equal(curOrder, propOrder) {
		d.add(Reordered, path, readable(curOrder), readable(propOrder), nil, false)
	}
}

// readable turns element ids (key values joined by NUL) into text for a result.
func readable(ids []interface{}) []interface{} {
	out := make([]interface{}, len(ids))
	for i, id := range ids {
		s := id.(string)
		if i := strings.Index(s, "\x01"); i >= 0 { // keyed: the values
			s = s[i+1:]
		}
		out[i] = strings.ReplaceAll(s, "\x00", ",")
	}
	return out
}

// allHaveKeys reports whether every element is a map with the primary key (with anyKey:
// with one of the keys), and no two elements carry the same key values.
func allHaveKeys(l []interface{}, lm List) bool {
	keys, anyKey := lm.Keys, lm.AnyKey
	seen := map[string]bool{}
	for _, v := range l {
		m, ok := v.(map[string]interface{})
		if !ok {
			return false
		}
		if _, ok := m[keys[0]]; !ok && !anyKey {
			return false
		}
		ks, vs := keyValues(m, keys, lm.Untagged)
		if len(ks) == 0 {
			return false
		}
		id := strings.Join(ks, "\x00") + "\x01" + strings.Join(vs, "\x00")
		if seen[id] {
			return false
		}
		seen[id] = true
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

// scalarText renders a value for a field path selector ([name=x], [=x]): render.Render
// in its Whole form.
func scalarText(v interface{}) string { return render.Render(v, render.Whole) }
