package apply

// This file is a port of strategicpatch's two-way diff, diffMaps(original, modified,
// schema, options) with the options kubectl's overwrite=false check uses, and the list
// helpers it and the conflict walk (conflict.go) share: diffMaps, handleMapDiff,
// handleSliceDiff, diffLists, diffListsOfScalars, diffListsOfMaps,
// normalizeElementOrder, isOrderSame, sliceElementType, sliceOfMapsToMapOfMaps,
// extractRetainKeysPatchStrategy and the scalar dedup and sort helpers of
// k8s.io/apimachinery/pkg/util/strategicpatch/patch.go at the version in go.mod. The
// port exists because strategicpatch exports the diff only as a whole patch and with
// other options; the tests check its change map against strategicpatch's exported
// two-way diff (CreateTwoWayMergeMapPatchUsingLookupPatchMeta) on generated objects.

import (
	"fmt"
	"reflect"
	"sort"

	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// Strategic merge patch directives (strategicpatch/patch.go).
const (
	directiveMarker         = "$patch"
	deleteDirective         = "delete"
	replaceDirective        = "replace"
	mergeDirective          = "merge"
	retainKeysStrategy      = "retainKeys"
	retainKeysDirective     = "$retainKeys"
	deleteFromPrimitiveList = "$deleteFromPrimitiveList/"
	setElementOrder         = "$setElementOrder/"
)

// comparable reports whether == on the value would not panic.
func comparable(v interface{}) bool {
	switch v.(type) {
	case map[string]interface{}, []interface{}:
		return false
	}
	return true
}

// sliceElementKind is sliceElementType's check and answer: every element of the lists
// has the same Go type, not a list. A first element that is null makes
// strategicpatch panic (it asks a nil type for its kind); that is an error here.
func sliceElementKind(slices ...[]interface{}) (reflect.Kind, error) {
	var prev reflect.Type
	first := true
	for _, s := range slices {
		for _, v := range s {
			t := reflect.TypeOf(v)
			if first {
				first = false
				prev = t
				if t == nil {
					return reflect.Invalid, fmt.Errorf("a list starting with null (strategicpatch panics)")
				}
				if t.Kind() == reflect.Slice {
					return reflect.Invalid, mergepatch.ErrNoListOfLists
				}
				continue
			}
			if prev != t {
				return reflect.Invalid, fmt.Errorf("list element types are not identical: %v", fmt.Sprint(slices))
			}
		}
	}
	if prev == nil {
		return reflect.Invalid, fmt.Errorf("no elements in any of the given slices")
	}
	return prev.Kind(), nil
}

// sliceOfMapsToMapOfMaps indexes a merge list's elements by their merge key's value
// printed with %s (later duplicates win), as strategicpatch does, and returns the
// index keys in list order (first occurrence).
func sliceOfMapsToMapOfMaps(slice []interface{}, mergeKey string) (map[string]interface{}, []string, error) {
	out := make(map[string]interface{}, len(slice))
	var order []string
	for _, v := range slice {
		m, ok := v.(map[string]interface{})
		if !ok {
			return nil, nil, fmt.Errorf("invalid element type in merging list:%v", slice)
		}
		mv, ok := m[mergeKey]
		if !ok {
			return nil, nil, fmt.Errorf("cannot find merge key `%s` in merging list element:%v", mergeKey, m)
		}
		k := fmt.Sprintf("%s", mv)
		if _, seen := out[k]; !seen {
			order = append(order, k)
		}
		out[k] = m
	}
	return out, order, nil
}

// retainKeysAndStrategy is extractRetainKeysPatchStrategy: whether the field has the
// retainKeys strategy, and its other strategy. Errors: more than two strategies, or two
// without retainKeys.
func retainKeysAndStrategy(strategies []string) (bool, string, error) {
	switch len(strategies) {
	case 0:
		return false, "", nil
	case 1:
		if strategies[0] == retainKeysStrategy {
			return true, "", nil
		}
		return false, strategies[0], nil
	case 2:
		switch {
		case strategies[0] == retainKeysStrategy:
			return true, strategies[1], nil
		case strategies[1] == retainKeysStrategy:
			return true, strategies[0], nil
		}
	}
	return false, "", fmt.Errorf("unexpected patch strategy: %v", strategies)
}

// changeDiff is strategicpatch's diffMaps(original, modified, schema, options) with
// the options kubectl's overwrite=false check uses (none), plus SetElementOrder, which
// only the tests set, to compare with strategicpatch's exported two-way diff. It never
// changes its inputs (diffMaps sorts some of original's lists in place).
type changeDiff struct {
	setElementOrder bool
}

// maps returns the patch from original to modified: fields added or changed with
// their new value, deleted ones as null, nested maps and merge lists as their own
// patches, $retainKeys when buildRetainKeys (the field's retainKeys strategy).
func (d *changeDiff) maps(original, modified map[string]interface{}, schema strategicpatch.LookupPatchMeta, buildRetainKeys bool) (map[string]interface{}, error) {
	patch := map[string]interface{}{}
	var retain []interface{}
	for key, mv := range modified {
		if buildRetainKeys && mv != nil {
			retain = append(retain, key)
		}
		ov, ok := original[key]
		if !ok {
			patch[key] = mv
			continue
		}
		if key == directiveMarker {
			os, ok1 := ov.(string)
			ms, ok2 := mv.(string)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("invalid value for special key: %s", directiveMarker)
			}
			if ms != os {
				patch[key] = mv
			}
			continue
		}
		if reflect.TypeOf(ov) != reflect.TypeOf(mv) {
			patch[key] = mv
			continue
		}
		var err error
		switch o := ov.(type) {
		case map[string]interface{}:
			err = d.mapField(key, o, mv.(map[string]interface{}), patch, schema)
		case []interface{}:
			err = d.sliceField(key, o, mv.([]interface{}), patch, schema)
		default:
			if !reflect.DeepEqual(ov, mv) {
				patch[key] = mv
			}
		}
		if err != nil {
			return nil, err
		}
	}
	for key := range original {
		if _, ok := modified[key]; !ok {
			patch[key] = nil
		}
	}
	if len(retain) > 0 && (len(patch) > 0 || hasAdditionalNewField(original, modified)) {
		patch[retainKeysDirective] = sortScalars(retain)
	}
	return patch, nil
}

// mapField is handleMapDiff.
func (d *changeDiff) mapField(key string, original, modified, patch map[string]interface{}, schema strategicpatch.LookupPatchMeta) error {
	sub, pm, err := schema.LookupPatchMetadataForStruct(key)
	if err != nil {
		if reflect.DeepEqual(original, modified) {
			return nil
		}
		return err
	}
	retainKeys, strategy, err := retainKeysAndStrategy(pm.GetPatchStrategies())
	if err != nil {
		return err
	}
	if strategy == replaceDirective {
		patch[key] = modified
		return nil
	}
	pv, err := d.maps(original, modified, sub, retainKeys)
	if err != nil {
		return err
	}
	if len(pv) > 0 {
		patch[key] = pv
	}
	return nil
}

// sliceField is handleSliceDiff.
func (d *changeDiff) sliceField(key string, original, modified []interface{}, patch map[string]interface{}, schema strategicpatch.LookupPatchMeta) error {
	sub, pm, err := schema.LookupPatchMetadataForSlice(key)
	if err != nil {
		if reflect.DeepEqual(original, modified) {
			return nil
		}
		return err
	}
	retainKeys, strategy, err := retainKeysAndStrategy(pm.GetPatchStrategies())
	if err != nil {
		return err
	}
	if strategy != mergeDirective {
		if !reflect.DeepEqual(original, modified) {
			patch[key] = modified
		}
		return nil
	}
	add, del, order, err := d.lists(original, modified, sub, pm.GetPatchMergeKey(), retainKeys)
	if err != nil {
		return err
	}
	if len(add) > 0 {
		patch[key] = add
	}
	if len(del) > 0 {
		patch[deleteFromPrimitiveList+key] = del
	}
	if len(order) > 0 {
		patch[setElementOrder+key] = order
	}
	return nil
}

// lists is diffLists: the patch list (additions and changes, then deletion directives
// for maps), the deletion list of scalars, and the $setElementOrder list.
func (d *changeDiff) lists(original, modified []interface{}, schema strategicpatch.LookupPatchMeta, mergeKey string, retainKeys bool) ([]interface{}, []interface{}, []interface{}, error) {
	if len(original) == 0 {
		if len(modified) == 0 {
			return nil, nil, nil, nil
		}
		return modified, nil, nil, nil
	}
	kind, err := sliceElementKind(original, modified)
	if err != nil {
		return nil, nil, nil, err
	}
	switch kind {
	case reflect.Map:
		patchList, deleteList, err := d.listsOfMaps(original, modified, schema, mergeKey, retainKeys)
		if err != nil {
			return nil, nil, nil, err
		}
		if patchList, err = normalizeSliceOrder(patchList, modified, mergeKey, kind); err != nil {
			return nil, nil, nil, err
		}
		same, err := isOrderSame(original, modified, mergeKey)
		if err != nil {
			return nil, nil, nil, err
		}
		patchList = append(patchList, deleteList...)
		var order []interface{}
		if d.setElementOrder && (len(patchList) > 0 || !same) {
			order = make([]interface{}, len(modified))
			for i, v := range modified {
				order[i] = map[string]interface{}{mergeKey: v.(map[string]interface{})[mergeKey]}
			}
		}
		return patchList, nil, order, nil
	case reflect.Slice:
		return nil, nil, nil, mergepatch.ErrNoListOfLists
	}
	patchList, deleteList := listsOfScalars(original, modified)
	patchList, err = normalizeSliceOrder(patchList, modified, mergeKey, kind)
	var order []interface{}
	if d.setElementOrder && (len(deleteList) > 0 || !reflect.DeepEqual(original, modified)) {
		order = modified
	}
	return patchList, deleteList, order, err
}

// listsOfScalars is diffListsOfScalars: the scalars added, and those deleted (without
// duplicates), compared by their %v text.
func listsOfScalars(original, modified []interface{}) ([]interface{}, []interface{}) {
	os := sortScalars(append([]interface{}(nil), original...))
	ms := sortScalars(append([]interface{}(nil), modified...))
	add, del := []interface{}{}, []interface{}{}
	i, j := 0, 0
	for i < len(os) || j < len(ms) {
		var oText, mText string
		if i < len(os) {
			oText = fmt.Sprintf("%v", os[i])
		}
		if j < len(ms) {
			mText = fmt.Sprintf("%v", ms[j])
		}
		switch {
		case i < len(os) && j < len(ms) && oText == mText:
			i++
			j++
		case i >= len(os) || (j < len(ms) && oText > mText):
			add = append(add, ms[j])
			j++
		default:
			del = append(del, os[i])
			i++
		}
	}
	return add, deduplicateScalars(del)
}

// listsOfMaps is diffListsOfMaps: both lists sorted by the merge key's %v text, common
// elements diffed (kept when they differ, with their merge key), new ones whole,
// removed ones as {mergeKey: value, $patch: delete}.
func (d *changeDiff) listsOfMaps(original, modified []interface{}, schema strategicpatch.LookupPatchMeta, mergeKey string, retainKeys bool) ([]interface{}, []interface{}, error) {
	patch := make([]interface{}, 0, len(modified))
	deletions := make([]interface{}, 0, len(original))
	os, err := sortMapsByMergeKey(original, mergeKey)
	if err != nil {
		return nil, nil, err
	}
	ms, err := sortMapsByMergeKey(modified, mergeKey)
	if err != nil {
		return nil, nil, err
	}
	element := func(l []interface{}, i int) (map[string]interface{}, interface{}, string, error) {
		m, ok := l[i].(map[string]interface{})
		if !ok {
			return nil, nil, "", mergepatch.ErrBadArgType(m, l[i])
		}
		v, ok := m[mergeKey]
		if !ok {
			return nil, nil, "", mergepatch.ErrNoMergeKey(m, mergeKey)
		}
		return m, v, fmt.Sprintf("%v", v), nil
	}
	i, j := 0, 0
	for i < len(os) || j < len(ms) {
		var oe, me map[string]interface{}
		var ov, mv interface{}
		var oText, mText string
		if i < len(os) {
			if oe, ov, oText, err = element(os, i); err != nil {
				return nil, nil, err
			}
		}
		if j < len(ms) {
			if me, mv, mText, err = element(ms, j); err != nil {
				return nil, nil, err
			}
		}
		both := i < len(os) && j < len(ms)
		switch {
		case both && oText == mText:
			pv, err := d.maps(oe, me, schema, retainKeys)
			if err != nil {
				return nil, nil, err
			}
			if len(pv) > 0 {
				pv[mergeKey] = mv
				patch = append(patch, pv)
			}
			i++
			j++
		case i >= len(os) || (both && oText > mText):
			patch = append(patch, me)
			j++
		default:
			deletions = append(deletions, map[string]interface{}{mergeKey: ov, directiveMarker: deleteDirective})
			i++
		}
	}
	return patch, deletions, nil
}

// sortMapsByMergeKey is sortMergeListsByNameArray without recursion: a copy of a list
// of maps sorted by the merge key's %v text; other lists sorted as scalars without
// duplicates.
func sortMapsByMergeKey(s []interface{}, mergeKey string) ([]interface{}, error) {
	if len(s) == 0 {
		return s, nil
	}
	kind, err := sliceElementKind(s)
	if err != nil {
		return nil, err
	}
	if kind != reflect.Map {
		return deduplicateAndSortScalars(append([]interface{}(nil), s...)), nil
	}
	out := append([]interface{}(nil), s...)
	sort.Sort(byMergeKey{out, mergeKey})
	return out, nil
}

// byMergeKey is strategicpatch's SortableSliceOfMaps (its Less is <=, kept so that
// sort.Sort orders equal keys as it does).
type byMergeKey struct {
	s []interface{}
	k string
}

func (b byMergeKey) Len() int { return len(b.s) }
func (b byMergeKey) Less(i, j int) bool {
	return fmt.Sprintf("%v", b.s[i].(map[string]interface{})[b.k]) <= fmt.Sprintf("%v", b.s[j].(map[string]interface{})[b.k])
}
func (b byMergeKey) Swap(i, j int) { b.s[i], b.s[j] = b.s[j], b.s[i] }

// normalizeSliceOrder is strategicpatch's: a patch list sorted (stably) by the
// position of its elements in order, elements carrying $patch: delete moved last.
func normalizeSliceOrder(toSort, order []interface{}, mergeKey string, kind reflect.Kind) ([]interface{}, error) {
	var toDelete []interface{}
	if kind == reflect.Map {
		for _, l := range [][]interface{}{toSort, order} {
			for _, item := range l {
				m, ok := item.(map[string]interface{})
				if !ok {
					return nil, mergepatch.ErrBadArgType(m, item)
				}
				if _, ok := m[mergeKey]; !ok {
					return nil, mergepatch.ErrNoMergeKey(m, mergeKey)
				}
			}
		}
		var keep []interface{}
		for _, v := range toSort {
			if v.(map[string]interface{})[directiveMarker] == deleteDirective {
				toDelete = append(toDelete, v)
			} else {
				keep = append(keep, v)
			}
		}
		toSort = keep
	}
	sort.SliceStable(toSort, func(i, j int) bool {
		if ii := indexIn(order, toSort[i], mergeKey, kind); ii >= 0 {
			if ij := indexIn(order, toSort[j], mergeKey, kind); ij >= 0 {
				return ii < ij
			}
		}
		return true
	})
	return append(toSort, toDelete...), nil
}

// indexIn is strategicpatch's index: the position of v in l, maps by their merge key's
// value, other values by ==; -1 when absent.
func indexIn(l []interface{}, v interface{}, mergeKey string, kind reflect.Kind) int {
	get := func(x interface{}) interface{} { return x }
	if kind == reflect.Map {
		get = func(x interface{}) interface{} {
			m, _ := x.(map[string]interface{})
			return m[mergeKey]
		}
	}
	want := get(v)
	for i, x := range l {
		if got := get(x); comparable(want) && comparable(got) && want == got {
			return i
		}
	}
	return -1
}

// isOrderSame reports whether two lists of maps have the same merge key values in the
// same order. Errors: an element that is not a map or lacks the key.
func isOrderSame(original, modified []interface{}, mergeKey string) (bool, error) {
	if len(original) != len(modified) {
		return false, nil
	}
	for i := range modified {
		o, ok := original[i].(map[string]interface{})
		if !ok {
			return false, mergepatch.ErrBadArgType(o, original[i])
		}
		m, ok := modified[i].(map[string]interface{})
		if !ok {
			return false, mergepatch.ErrBadArgType(m, modified[i])
		}
		ov, ok := o[mergeKey]
		if !ok {
			return false, mergepatch.ErrNoMergeKey(o, mergeKey)
		}
		mv, ok := m[mergeKey]
		if !ok {
			return false, mergepatch.ErrNoMergeKey(m, mergeKey)
		}
		if !comparable(ov) || !comparable(mv) || ov != mv {
			return false, nil
		}
	}
	return true, nil
}

// hasAdditionalNewField reports whether original has a non-null field modified lacks.
func hasAdditionalNewField(original, modified map[string]interface{}) bool {
	for k, v := range original {
		if v == nil {
			continue
		}
		if _, ok := modified[k]; !ok {
			return true
		}
	}
	return false
}

// deduplicateAndSortScalars, sortScalars and deduplicateScalars are strategicpatch's:
// scalars ordered by their %v text (sort.Sort with a <= Less, as there), duplicates
// (by ==) removed by swapping in the last element. They work in place.
func deduplicateAndSortScalars(s []interface{}) []interface{} {
	return sortScalars(deduplicateScalars(s))
}

func sortScalars(s []interface{}) []interface{} {
	sort.Sort(byText(s))
	return s
}

type byText []interface{}

func (b byText) Len() int           { return len(b) }
func (b byText) Less(i, j int) bool { return fmt.Sprintf("%v", b[i]) <= fmt.Sprintf("%v", b[j]) }
func (b byText) Swap(i, j int)      { b[i], b[j] = b[j], b[i] }

func deduplicateScalars(s []interface{}) []interface{} {
	length := len(s) - 1
	for i := 0; i < length; i++ {
		for j := i + 1; j <= length; j++ {
			if comparable(s[i]) && comparable(s[j]) && s[i] == s[j] {
				s[j] = s[length]
				s = s[0:length]
				length--
				j--
			}
		}
	}
	return s
}
