package apply

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/krm-merge/krm-merge/pkg/fieldpath"
)

// checkComparable reports the first place in v (an object value as toValue returns it)
// where kubectl's strategic merge patch would compare values Go cannot compare: the
// element of a keyed list whose merge key holds a map or a list, or a map or list in a
// list merged as a set of scalars (patchStrategy merge without a patchMergeKey).
// strategicpatch (k8s.io/apimachinery, patch.go's index) compares such values with ==
// and panics; the API server never stores them, as its schema types merge keys and set
// elements as scalars. meta is the object's patch metadata; the error is at the
// element's merge key, or at the element, under path; nil when every value compares.
func checkComparable(v interface{}, meta strategicpatch.LookupPatchMeta, path fieldpath.Path) *ValueError {
	obj, ok := v.(map[string]interface{})
	if !ok || meta == nil {
		return nil
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first place in field order, the same every run
	for _, k := range keys {
		at := path.Field(k)
		switch fv := obj[k].(type) {
		case map[string]interface{}:
			if err := checkComparable(fv, structMeta(meta, k), at); err != nil {
				return err
			}
		case []interface{}:
			if err := checkListComparable(fv, meta, k, at); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkListComparable is checkComparable for the list l held by field key of the
// struct whose patch metadata is meta, at path.
func checkListComparable(l []interface{}, meta strategicpatch.LookupPatchMeta, key string, path fieldpath.Path) *ValueError {
	elem, pm, err := meta.LookupPatchMetadataForSlice(key)
	if err != nil {
		return nil // a field the schema does not know: the patch replaces it whole
	}
	mergeKey, set := pm.GetPatchMergeKey(), false
	for _, s := range pm.GetPatchStrategies() {
		set = set || (s == "merge" && mergeKey == "")
	}
	for i, e := range l {
		at := path.Index(i)
		switch e := e.(type) {
		case map[string]interface{}:
			if set {
				return &ValueError{Path: at, Msg: "a map in a list kubectl merges as a set of scalars: kubectl's strategic merge patch cannot compare it"}
			}
			if mergeKey != "" && !isScalar(e[mergeKey]) {
				return &ValueError{Path: at.Field(mergeKey), Msg: fmt.Sprintf(
					"the merge key %s holds a %s, not a scalar: kubectl's strategic merge patch cannot pair the list's elements by it", mergeKey, kindOf(e[mergeKey]))}
			}
			if err := checkComparable(e, elem, at); err != nil {
				return err
			}
		case []interface{}:
			if set {
				return &ValueError{Path: at, Msg: "a list in a list kubectl merges as a set of scalars: kubectl's strategic merge patch cannot compare it"}
			}
		}
	}
	return nil
}

// isScalar reports whether v (a toValue result) is neither a map nor a list.
func isScalar(v interface{}) bool {
	switch v.(type) {
	case map[string]interface{}, []interface{}:
		return false
	}
	return true
}
