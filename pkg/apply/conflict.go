package apply

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	kjson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
	"github.com/krm-merge/krm-merge/pkg/plan"
)

// kubectl apply --overwrite=false (onConflict: error), for kinds patched with a
// strategic merge patch. The verdict is kubectl's own code:
// strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta,
// overwrite=false) refuses the object when it returns an error (a mergepatch conflict,
// or another error its conflict check runs into). That check compares two maps with
// strategicpatch.MergingMapsHaveConflicts: the patch (what the apply sends) and the
// changes from the last-applied configuration to the live object (strategicpatch's
// diffMaps with no options). A field conflicts where both touch it differently: the
// patch sets a value and the live changes hold another (the live value changed, the live
// object removed the field, or only the live object has the field), the patch deletes a
// field the live object changed, or a keyed list element carries a $patch directive on
// one side only.
//
// This file holds the verdict and the walk: noOverwriteConflicts and
// kubectlNoOverwrite call CreateThreeWayMergePatch for kubectl's answer, and
// conflictWalk runs strategicpatch's mergingMapFieldsHaveConflicts comparison over every
// key instead of stopping at the first conflict, recording each field it would refuse
// (mergingMapFieldsHaveConflicts, mapsHaveConflicts and slicesHaveConflicts in
// k8s.io/apimachinery/pkg/util/strategicpatch/patch.go at the version in go.mod). The
// change map the walk compares the patch with comes from strategicdiff.go, the port of
// strategicpatch's diffMaps (it does not export it with these options). The tests check
// the verdict and fields against CreateThreeWayMergePatch on generated objects and on
// strategicpatch's own conflict test cases.

// noOverwriteConflicts is kubectl apply --overwrite=false's verdict on one object of a
// built-in kind, with the fields it refuses.
//
// original, modified and current are the JSON of the last-applied configuration (nil
// when there is none), the config and the live object, all three without the
// last-applied annotation (see Options.NoOverwrite); result is the object the apply
// would store (for the values a conflict shows). It returns nil when
// strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, false)
// succeeds, else a *ConflictError: Fields holds every field conflictWalk finds, Reason
// says why kubectl refuses where no field accounts for it (its check failed with another
// error, or panicked, or no field was found: then kubectl's own message).
func noOverwriteConflicts(meta strategicpatch.LookupPatchMeta, original, modified, current []byte, result map[string]interface{}) *ConflictError {
	verdict := kubectlNoOverwrite(meta, original, modified, current)
	if verdict == nil {
		return nil
	}
	ce := &ConflictError{}
	var o, c map[string]interface{}
	if len(original) > 0 {
		if err := kjson.Unmarshal(original, &o); err != nil {
			ce.Reason = verdict.Error()
			return ce
		}
	}
	if err := kjson.Unmarshal(current, &c); err != nil {
		ce.Reason = verdict.Error()
		return ce
	}
	// the patch kubectl computes before its check is the overwrite=true patch
	patchJSON, err := strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, true)
	var p map[string]interface{}
	if err == nil {
		err = kjson.Unmarshal(patchJSON, &p)
	}
	if err != nil {
		ce.Reason = verdict.Error()
		return ce
	}
	changed, err := (&changeDiff{}).maps(o, c, meta, false)
	if err != nil {
		ce.Reason = "kubectl cannot compute the changes made on the live object since the last apply: " + err.Error()
		return ce
	}
	w := &conflictWalk{}
	w.fields(nil, p, changed, meta, "", "")
	for _, path := range w.conflicts {
		la, inLA := valueAt(o, path)
		cur, inCur := valueAt(c, path)
		res, inRes := valueAt(result, path)
		op := plan.Changed
		switch {
		case !inCur && inRes:
			op = plan.Added
		case inCur && !inRes:
			op = plan.Deleted
		}
		ce.Fields = append(ce.Fields, plan.Change{Op: op, Path: path, Current: cur, Proposed: res, InBase: inLA, Base: la})
	}
	ce.Reason = strings.Join(w.failures, "; ")
	if len(ce.Fields) == 0 && ce.Reason == "" {
		ce.Reason = "kubectl apply --overwrite=false refuses this object: " + verdict.Error()
	}
	return ce
}

// kubectlNoOverwrite runs strategicpatch.CreateThreeWayMergePatch with overwrite=false
// and returns its error (nil when kubectl would send the patch). A panic in it (its
// conflict check indexes past the end of a list of scalars with duplicates) is returned
// as an error: kubectl would crash there, so it does not apply the object either.
func kubectlNoOverwrite(meta strategicpatch.LookupPatchMeta, original, modified, current []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("kubectl's conflict check panics on this object: %v", p)
		}
	}()
	_, err = strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, false)
	return err
}

// conflictWalk records where strategicpatch's mergingMapFieldsHaveConflicts(patch,
// changes) finds a conflict (conflicts, field paths: map fields, keyed list elements as
// [key=value], a list without merge strategy as a whole) and where it fails instead
// (failures, messages naming the field).
type conflictWalk struct {
	conflicts []fieldpath.Path
	failures  []string
}

func (w *conflictWalk) conflict(path fieldpath.Path) { w.conflicts = append(w.conflicts, path) }

func (w *conflictWalk) fail(path fieldpath.Path, format string, args ...interface{}) {
	w.failures = append(w.failures, fmt.Sprintf("%s: kubectl's conflict check fails here: %s", displayPath(path), fmt.Sprintf(format, args...)))
}

func displayPath(path fieldpath.Path) string {
	if len(path) == 0 {
		return "the object"
	}
	return path.String()
}

// fields is mergingMapFieldsHaveConflicts: left is the patch's value at path, right the
// changes' value, schema the patch metadata of left (of its elements for a list),
// strategy and mergeKey the field's.
func (w *conflictWalk) fields(path fieldpath.Path, left, right interface{}, schema strategicpatch.LookupPatchMeta, strategy, mergeKey string) {
	switch l := left.(type) {
	case map[string]interface{}:
		r, ok := right.(map[string]interface{})
		if !ok {
			w.conflict(path)
			return
		}
		lm, okL := l[directiveMarker]
		rm, okR := r[directiveMarker]
		if okL || okR {
			if okL != okR {
				w.conflict(path)
				return
			}
			if !comparable(lm) || !comparable(rm) {
				w.fail(path, "a %s directive that is not a string", directiveMarker)
				return
			}
			if lm != rm {
				w.conflict(path)
				return
			}
		}
		if strategy == replaceDirective {
			return
		}
		w.maps(path, l, r, schema)
	case []interface{}:
		r, ok := right.([]interface{})
		if !ok {
			w.conflict(path)
			return
		}
		w.slices(path, l, r, schema, strategy, mergeKey)
	case string, float64, bool, int64, nil:
		if !reflect.DeepEqual(left, right) {
			w.conflict(path)
		}
	default:
		w.fail(path, "unknown type: %v", reflect.TypeOf(left))
	}
}

// maps is mapsHaveConflicts: the keys both maps have, directives aside.
func (w *conflictWalk) maps(path fieldpath.Path, left, right map[string]interface{}, schema strategicpatch.LookupPatchMeta) {
	for _, key := range sortedMapKeys(left) {
		if key == directiveMarker || key == retainKeysDirective {
			continue
		}
		rv, ok := right[key]
		if !ok {
			continue
		}
		lv := left[key]
		p := path.Field(strings.TrimPrefix(key, deleteFromPrimitiveList))
		var sub strategicpatch.LookupPatchMeta
		var pm strategicpatch.PatchMeta
		var strategy string
		var err error
		switch lv.(type) {
		case []interface{}:
			sub, pm, err = schema.LookupPatchMetadataForSlice(key)
		case map[string]interface{}:
			sub, pm, err = schema.LookupPatchMetadataForStruct(key)
		}
		if err == nil {
			_, strategy, err = retainKeysAndStrategy(pm.GetPatchStrategies())
		}
		if err != nil {
			if strings.HasPrefix(key, deleteFromPrimitiveList) {
				w.fail(p, "the config drops elements the last apply set and the live object dropped elements too, and the check looks the deletion list %q up as a field (%v)", key, err)
			} else {
				w.fail(p, "%v", err)
			}
			continue
		}
		w.fields(p, lv, rv, sub, strategy, pm.GetPatchMergeKey())
	}
}

// slices is slicesHaveConflicts: merge lists of maps pair their elements by merge key,
// merge lists of scalars never conflict, other lists compare whole (scalars sorted).
func (w *conflictWalk) slices(path fieldpath.Path, left, right []interface{}, schema strategicpatch.LookupPatchMeta, strategy, mergeKey string) {
	kind, err := sliceElementKind(left, right)
	if err != nil {
		w.fail(path, "%v", err)
		return
	}
	if strategy == mergeDirective {
		if kind != reflect.Map {
			return
		}
		lm, lorder, err := sliceOfMapsToMapOfMaps(left, mergeKey)
		var rm map[string]interface{}
		if err == nil {
			rm, _, err = sliceOfMapsToMapOfMaps(right, mergeKey)
		}
		if err != nil {
			w.fail(path, "%v", err)
			return
		}
		for _, k := range lorder {
			rv, ok := rm[k]
			if !ok {
				continue
			}
			lv := lm[k].(map[string]interface{})
			w.fields(path.Key([]string{mergeKey}, []string{scalarText(lv[mergeKey])}), lv, rv, schema, "", "")
		}
		return
	}
	if len(left) != len(right) {
		w.conflict(path)
		return
	}
	if kind != reflect.Map {
		left = deduplicateAndSortScalars(append([]interface{}(nil), left...))
		right = deduplicateAndSortScalars(append([]interface{}(nil), right...))
	}
	// the list is one field: a conflict in any element is a conflict of the list
	for i := range left {
		if i >= len(right) {
			w.fail(path, "the live list has duplicate values, and the check indexes past its end (kubectl panics)")
			return
		}
		sub := &conflictWalk{}
		sub.fields(path.Index(i), left[i], right[i], schema, "", "")
		if len(sub.conflicts) > 0 {
			w.conflict(path)
			return
		}
		if len(sub.failures) > 0 {
			w.failures = append(w.failures, sub.failures...)
			return
		}
	}
}

// valueAt returns the value at a conflict path (map fields, keyed elements found by
// their key values' text) and whether it is there.
func valueAt(v interface{}, path fieldpath.Path) (interface{}, bool) {
	for _, s := range path {
		switch s.Kind {
		case fieldpath.Field:
			m, ok := v.(map[string]interface{})
			if !ok {
				return nil, false
			}
			if v, ok = m[s.Name]; !ok {
				return nil, false
			}
		case fieldpath.Key:
			l, ok := v.([]interface{})
			if !ok {
				return nil, false
			}
			found := false
			for _, e := range l {
				m, ok := e.(map[string]interface{})
				if !ok {
					continue
				}
				match := true
				for i, k := range s.Keys {
					kv, has := m[k]
					match = match && has && scalarText(kv) == s.Values[i]
				}
				if match {
					v, found = m, true
					break
				}
			}
			if !found {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return v, true
}

// sortedMapKeys returns a map's keys in order.
func sortedMapKeys(m map[string]interface{}) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
