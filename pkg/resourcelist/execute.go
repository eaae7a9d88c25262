package resourcelist

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/errors"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/parallel"
)

// Execute is framework.Execute(p, &kio.ByteReadWriter{Reader: input, Writer: w,
// KeepReaderAnnotations: true}) with the fast reader and writer: the same processing,
// the same output bytes and the same error. It returns ErrUnsupported, having written
// nothing and run nothing, when the input needs kyaml's reader; the caller then runs
// kyaml's path on the same bytes.
func Execute(p framework.ResourceListProcessor, input []byte, w io.Writer) error {
	l, err := Read(input)
	if err != nil {
		return err
	}
	return Process(p, l, w)
}

// Process runs p on a list from Read and writes the result, as framework.Execute does
// after reading.
func Process(p framework.ResourceListProcessor, l *List, w io.Writer) error {
	rl := framework.ResourceList{Items: l.Items, FunctionConfig: l.FunctionConfig}
	l.Items = nil
	preprocess := kio.PreprocessResourcesForInternalAnnotationMigration
	if !l.aliases { // items share no node: prepare them on all cores
		preprocess = preprocessParallel
	}
	nodeAnnos, err := preprocess(rl.Items)
	if err != nil {
		return err
	}
	retErr := p.Process(&rl)
	if err := reconcile(rl.Items, nodeAnnos, !l.aliases); err != nil {
		return err
	}
	if len(rl.Results) > 0 {
		b, err := yaml.Marshal(rl.Results)
		if err != nil {
			return errors.Wrap(err)
		}
		y, err := yaml.Parse(string(b))
		if err != nil {
			return errors.Wrap(err)
		}
		l.Results = y
	}
	l.Items = rl.Items
	rl.Items = nil
	if err := Write(w, l); err != nil {
		return err
	}
	return retErr
}

// preprocessParallel is kio.PreprocessResourcesForInternalAnnotationMigration on all
// cores, for items that share no node: the same annotation changes on each item and
// the same map; on a bad item, the error of the first bad one (framework.Execute then
// writes nothing, so the changes made to later items are never seen).
func preprocessParallel(items []*yaml.RNode) (map[string]map[string]string, error) {
	annos := make([]map[string]string, len(items))
	errs := make([]error, len(items))
	parallel.ForEach(len(items), 0, func(i int) {
		annos[i], errs[i] = preprocessItem(items[i], strconv.Itoa(i))
	})
	out := make(map[string]map[string]string, len(items))
	for i, err := range errs {
		if err != nil {
			return nil, err
		}
		out[strconv.Itoa(i)] = annos[i]
	}
	return out, nil
}

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
		if strings.HasPrefix(k, "internal.config.kubernetes.io/") || k == kioutil.LegacyPathAnnotation ||
			k == kioutil.LegacyIndexAnnotation || k == kioutil.LegacyIdAnnotation {
			internal[k] = v
		}
	}
	if err != nil { // ErrMissingMetadata: CopyLegacyAnnotations is a no-op
		return internal, checkMismatchedAnnos(meta.Annotations)
	}
	if !copyLegacy(it.YNode(), meta.Annotations) {
		if err := kioutil.CopyLegacyAnnotations(it); err != nil {
			return nil, err
		}
		meta, _ = it.GetMeta()
	}
	return internal, checkMismatchedAnnos(meta.Annotations)
}

// legacyPairs are the internal and legacy annotation pairs kioutil.CopyLegacyAnnotations
// keeps in step, in its order.
var legacyPairs = [][2]string{
	{kioutil.PathAnnotation, kioutil.LegacyPathAnnotation},
	{kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation},
	{kioutil.IdAnnotation, kioutil.LegacyIdAnnotation},
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
		v, lv := a[p[0]], a[p[1]]
		switch {
		case v != "" && lv == "":
			set = append(set, [2]string{p[1], v})
		case v == "" && lv != "":
			set = append(set, [2]string{p[0], lv})
		}
	}
	if len(set) == 0 {
		return true
	}
	an := annotationsNode(item)
	if an == nil {
		return false
	}
	for _, kv := range set {
		if hasKey(an, kv[0]) {
			return false // set but empty: kyaml replaces the value node
		}
	}
	for _, kv := range set {
		appendAnnotation(item, kv[0], kv[1])
		a[kv[0]] = kv[1]
	}
	return true
}

// appendAnnotation is yaml.SetAnnotation(key, value) for the common shape, and reports
// whether it applied: item's annotations node (annotationsNode) exists and lacks key.
// SetAnnotation then clears nothing (ClearEmptyAnnotations) and appends the same two
// nodes as its FieldSetter: the key with no tag and style, the value a !!str scalar in
// single quotes. On any other shape it does nothing and the caller uses SetAnnotation.
func appendAnnotation(item *yaml.Node, key, value string) bool {
	an := annotationsNode(item)
	if an == nil || hasKey(an, key) {
		return false
	}
	an.Content = append(an.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Value: key},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: yaml.NodeTagString, Value: value, Style: yaml.SingleQuotedStyle})
	return true
}

// annotationsNode returns item's metadata.annotations mapping when item is a mapping
// with one metadata field, a non-empty mapping with one annotations field, a non-empty
// mapping; else nil.
func annotationsNode(item *yaml.Node) *yaml.Node {
	md := uniqueField(item, yaml.MetadataField)
	if md == nil || md.Kind != yaml.MappingNode || len(md.Content) == 0 {
		return nil
	}
	an := uniqueField(md, yaml.AnnotationsField)
	if an == nil || an.Kind != yaml.MappingNode || len(an.Content) == 0 || len(an.Content)%2 != 0 {
		return nil
	}
	return an
}

// hasKey reports whether mapping m has the key.
func hasKey(m *yaml.Node, key string) bool {
	for i := 0; i < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return true
		}
	}
	return false
}

// uniqueField returns the value of m's field name when m is a mapping holding it
// exactly once (kyaml's Field takes the last of repeated keys), else nil.
func uniqueField(m *yaml.Node, name string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode || len(m.Content)%2 != 0 {
		return nil
	}
	var v *yaml.Node
	for i := 0; i < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			if v != nil {
				return nil
			}
			v = m.Content[i+1]
		}
	}
	return v
}

// checkMismatchedAnnos is kio's check (unexported there): the legacy and internal
// path, index and id annotations must agree where both are set.
func checkMismatchedAnnos(a map[string]string) error {
	for _, p := range [][3]string{
		{kioutil.PathAnnotation, kioutil.LegacyPathAnnotation, "path"},
		{kioutil.IndexAnnotation, kioutil.LegacyIndexAnnotation, "index"},
		{kioutil.IdAnnotation, kioutil.LegacyIdAnnotation, "id"},
	} {
		if v, lv := a[p[0]], a[p[1]]; v != "" && lv != "" && v != lv {
			return fmt.Errorf("resource input to function has mismatched legacy and internal %s annotations", p[2])
		}
	}
	return nil
}

// reconcile is kio.ReconcileInternalAnnotations, on two halves of the items at once when
// parallel is set and no two items share their root, metadata or annotations node: it
// changes each item's annotations alone, given the map, which it only reads. The first
// error in item order is returned, as the serial call returns it.
func reconcile(items []*yaml.RNode, nodeAnnos map[string]map[string]string, parallel bool) error {
	if !parallel || len(items) < 256 || !distinctHeads(items) {
		return kio.ReconcileInternalAnnotations(items, nodeAnnos)
	}
	half := len(items) / 2
	var errs [2]error
	done := make(chan struct{})
	go func() {
		errs[1] = kio.ReconcileInternalAnnotations(items[half:], nodeAnnos)
		close(done)
	}()
	errs[0] = kio.ReconcileInternalAnnotations(items[:half], nodeAnnos)
	<-done
	if errs[0] != nil {
		return errs[0]
	}
	return errs[1]
}

// distinctHeads reports whether no two items share their root, metadata or
// annotations node (the nodes annotation changes touch).
func distinctHeads(items []*yaml.RNode) bool {
	seen := make(map[*yaml.Node]struct{}, 3*len(items))
	add := func(n *yaml.Node) bool {
		if n == nil {
			return true
		}
		if _, dup := seen[n]; dup {
			return false
		}
		seen[n] = struct{}{}
		return true
	}
	for _, it := range items {
		root := it.YNode()
		if root == nil || root.Kind != yaml.MappingNode || !add(root) {
			return false
		}
		md := fieldOf(root, yaml.MetadataField)
		if !add(md) || !add(fieldOf(md, yaml.AnnotationsField)) {
			return false
		}
	}
	return true
}

// fieldOf returns the value node of a map's field, nil when absent or not a map.
func fieldOf(m *yaml.Node, name string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			return m.Content[i+1]
		}
	}
	return nil
}
