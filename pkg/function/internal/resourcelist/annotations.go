package resourcelist

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/metanode"
	"github.com/krm-merge/krm-merge/pkg/vocab"
)

// This file does kyaml's internal-annotation migration (kio's
// PreprocessResourcesForInternalAnnotationMigration before the processor,
// ReconcileInternalAnnotations after it) item by item with direct node edits where the
// item's annotations have the common shape, and through kyaml's own calls otherwise.
// The result is kyaml's node tree either way (preprocess_test.go and
// reconcile_test.go compare them on every shape).

// preprocessItem is the loop body of kio.PreprocessResourcesForInternalAnnotationMigration
// for one item (index id): set the migration id annotation, record the internal
// annotations, copy legacy and internal path/index/id annotations where one of a pair
// is missing (kioutil.CopyLegacyAnnotations), check the pairs agree. It reads the
// annotations once (kyaml reads them three times, each through GetMeta) and goes
// through kyaml's own calls where it would change anything else.
func preprocessItem(it *yaml.RNode, id string) (map[string]string, error) {
	if !appendAnnotation(it.YNode(), kioutil.InternalAnnotationsMigrationResourceIDAnnotation, id) {
		if err := it.PipeE(yaml.SetAnnotation(kioutil.InternalAnnotationsMigrationResourceIDAnnotation, id)); err != nil {
			return nil, err
		}
	}
	meta, err := it.GetMeta()
	internal := make(map[string]string)
	for k, v := range meta.Annotations { // kioutil.GetInternalAnnotations
		if vocab.IsReaderAnnotation(k) {
			internal[k] = v
		}
	}
	if err != nil { // ErrMissingMetadata: CopyLegacyAnnotations is a no-op
		return internal, checkMismatchedAnnos(mapGet(meta.Annotations))
	}
	if !copyLegacy(it.YNode(), meta.Annotations) {
		if err := kioutil.CopyLegacyAnnotations(it); err != nil {
			return nil, err
		}
		meta, _ = it.GetMeta()
	}
	return internal, checkMismatchedAnnos(mapGet(meta.Annotations))
}

// legacyPairs are the internal and legacy path, index and id annotations kyaml keeps in
// step (kioutil.CopyLegacyAnnotations, kio's checks), in its order.
var legacyPairs = []struct{ key, legacy, what string }{
	{vocab.PathAnnotations[0], vocab.PathAnnotations[1], "path"},
	{vocab.IndexAnnotations[0], vocab.IndexAnnotations[1], "index"},
	{vocab.IDAnnotations[0], vocab.IDAnnotations[1], "id"},
}

// checkMismatchedAnnos is kio's check (unexported there), on annotations read through
// get: the legacy and internal path, index and id must agree where both are set.
func checkMismatchedAnnos(get func(string) string) error {
	for _, p := range legacyPairs {
		if v, lv := get(p.key), get(p.legacy); v != "" && lv != "" && v != lv {
			return fmt.Errorf("resource input to function has mismatched legacy and internal %s annotations", p.what)
		}
	}
	return nil
}

// mapGet reads annotations from a map, as GetMeta returns them.
func mapGet(a map[string]string) func(string) string {
	return func(k string) string { return a[k] }
}

// copyLegacy is kioutil.CopyLegacyAnnotations on item, whose annotations (as GetMeta
// reads them) are a, for the common case, and reports whether it applied: for each
// pair with one annotation set and the other empty, the empty one is set to the other's
// value (through appendAnnotation, so only when the missing key is absent from the
// annotations node), and a is updated to match. When it reports false it has changed
// nothing and the caller uses kioutil.CopyLegacyAnnotations.
func copyLegacy(item *yaml.Node, a map[string]string) bool {
	var set [][2]string // key, value
	for _, p := range legacyPairs {
		v, lv := a[p.key], a[p.legacy]
		switch {
		case v != "" && lv == "":
			set = append(set, [2]string{p.legacy, v})
		case v == "" && lv != "":
			set = append(set, [2]string{p.key, lv})
		}
	}
	if len(set) == 0 {
		return true
	}
	an := metanode.Annotations(item)
	if an == nil {
		return false
	}
	for _, kv := range set {
		if metanode.Index(an, kv[0]) >= 0 {
			return false // set but empty: kyaml replaces the value node
		}
	}
	for _, kv := range set {
		metanode.Set(an, kv[0], kv[1])
		a[kv[0]] = kv[1]
	}
	return true
}

// appendAnnotation is yaml.SetAnnotation(key, value) for the common shape, and reports
// whether it applied: item's annotations node (metanode.Annotations) exists and lacks
// key, and SetAnnotation then appends the pair (metanode.Set). On any other shape it
// does nothing and the caller uses SetAnnotation.
func appendAnnotation(item *yaml.Node, key, value string) bool {
	an := metanode.Annotations(item)
	if an == nil || metanode.Index(an, key) >= 0 {
		return false
	}
	metanode.Set(an, key, value)
	return true
}

// annotationsFormat is kio's determineAnnotationsFormat (unexported there): whether the
// input items used the internal path/index/id annotations, the legacy ones, or both,
// from the internal annotations preprocessing recorded; an error when items disagree.
func annotationsFormat(nodeAnnos map[string]map[string]string) (useInternal, useLegacy bool, err error) {
	if len(nodeAnnos) == 0 {
		return true, true, nil
	}
	var internal, legacy *bool
	for _, a := range nodeAnnos {
		_, p := a[kioutil.PathAnnotation]
		_, i := a[kioutil.IndexAnnotation]
		_, d := a[kioutil.IdAnnotation]
		_, lp := a[kioutil.LegacyPathAnnotation]
		_, li := a[kioutil.LegacyIndexAnnotation]
		_, ld := a[kioutil.LegacyIdAnnotation]
		if !(p || i || d || lp || li || ld) {
			continue
		}
		in, lg := p || i || d, lp || li || ld
		if internal == nil {
			internal = &in
		}
		if in != *internal {
			return false, false, fmt.Errorf("the annotation formatting in the input resources is not consistent")
		}
		if legacy == nil {
			legacy = &lg
		}
		if lg != *legacy {
			return false, false, fmt.Errorf("the annotation formatting in the input resources is not consistent")
		}
	}
	if internal != nil {
		useInternal = *internal
	}
	if legacy != nil {
		useLegacy = *legacy
	}
	return useInternal, useLegacy, nil
}

// reconcileItem is the loop body of kio.ReconcileInternalAnnotations for one item, made
// directly on its annotations node, and reports whether it applied; when it reports
// false it has changed nothing and the caller runs kyaml's loop body on the item. It
// applies when the item's annotations are a non-empty map (metanode.Annotations) of scalar
// keys and values, each key once. kyaml's calls it stands for: SetAnnotation replaces an
// existing key's value with a !!str scalar in the old style, or appends the key and a
// single-quoted !!str value (the map is never empty when kyaml sets); ClearAnnotation
// removes the pair; annotations are read as GetMeta reads them (a null value is "").
func reconcileItem(item *yaml.Node, nodeAnnos map[string]map[string]string, useInternal, useLegacy bool) (bool, error) {
	an := metanode.Plain(item)
	if an == nil {
		return false, nil
	}
	get := func(key string) string {
		if i := metanode.Index(an, key); i >= 0 && an.Content[i+1].Tag != yaml.NodeTagNull {
			return an.Content[i+1].Value
		}
		return ""
	}
	set := func(key, value string) { metanode.Set(an, key, value) }
	// missingInternalOrLegacyAnnotations: if only one of a pair is set, set the other.
	for _, p := range legacyPairs {
		v, lv := get(p.key), get(p.legacy)
		switch {
		case v == "" && lv == "":
		case v == "":
			set(p.key, lv)
		case lv == "":
			set(p.legacy, v)
		}
	}
	// checkAnnotationsAltered: a path or index the function changed in one form is
	// copied to the other.
	if orig, found := nodeAnnos[get(kioutil.InternalAnnotationsMigrationResourceIDAnnotation)]; found {
		for _, f := range legacyPairs[:2] { // path and index

			in, lg := get(f.key), get(f.legacy)
			was, ok := orig[f.key]
			if !ok {
				was = orig[f.legacy]
			}
			if was == "" {
				continue
			}
			switch {
			case was != in && was != lg && in != lg:
				return true, fmt.Errorf("resource input to function has mismatched legacy and internal %s annotations", f.what)
			case was != in:
				set(f.legacy, in)
			case was != lg:
				set(f.key, lg)
			}
		}
	}
	// formatInternalAnnotations: keep the format(s) the input used.
	for _, p := range legacyPairs {
		if !useInternal {
			metanode.Remove(an, p.key)
		}
		if !useLegacy {
			metanode.Remove(an, p.legacy)
		}
	}
	if err := checkMismatchedAnnos(get); err != nil {
		return true, err
	}
	metanode.Remove(an, kioutil.InternalAnnotationsMigrationResourceIDAnnotation)
	return true, nil
}

// reconcileOne is the loop body of kio.ReconcileInternalAnnotations for one item, given
// the format annotationsFormat found: reconcileItem, or kyaml's own loop body when the
// item's shape is not the common one. kyaml's is run as ReconcileInternalAnnotations on
// the item alone with a map of two entries: the item's own record, and one that gives
// the same format (kyaml derives the format from the whole map, at a cost of the whole
// map per call).
func reconcileOne(it *yaml.RNode, nodeAnnos map[string]map[string]string, useInternal, useLegacy bool) error {
	if ok, err := reconcileItem(it.YNode(), nodeAnnos, useInternal, useLegacy); ok {
		return err
	}
	if len(nodeAnnos) == 0 {
		return kio.ReconcileInternalAnnotations([]*yaml.RNode{it}, nodeAnnos)
	}
	format := map[string]string{} // only which keys are present counts; empty values
	if useInternal {
		format[kioutil.PathAnnotation] = ""
	}
	if useLegacy {
		format[kioutil.LegacyPathAnnotation] = ""
	}
	small := map[string]map[string]string{"krm-merge-format": format}
	rid := it.GetAnnotations()[kioutil.InternalAnnotationsMigrationResourceIDAnnotation]
	if own, ok := nodeAnnos[rid]; ok {
		small[rid] = own
	}
	return kio.ReconcileInternalAnnotations([]*yaml.RNode{it}, small)
}
