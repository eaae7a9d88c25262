package resourcelist

import (
	"io"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/errors"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/internal/parallel"
)

// Process runs p on a list from Read and writes the result, as framework.Execute does
// after reading, except that an output item keeps its input bytes where it reads as it
// did (keep.go). Errors: framework.Execute's after its read (kyaml's annotation
// migration, p's error, the writer's), the same values.
func Process(p framework.ResourceListProcessor, l *List, w io.Writer) error {
	rl := framework.ResourceList{Items: l.Items, FunctionConfig: l.FunctionConfig}
	l.Items = nil
	if l.in != nil {
		l.in.encode(rl.Items) // as read: before the annotation migration changes them
	}
	preprocess := kio.PreprocessResourcesForInternalAnnotationMigration
	if !l.aliases { // items share no node: prepare them on all cores
		preprocess = preprocessParallel
	}
	nodeAnnos, err := preprocess(rl.Items)
	if err != nil {
		return err
	}
	retErr := p.Process(&rl)
	if l.in != nil {
		l.in.match(rl.Items) // by the migration ids reconcile removes
	}
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

// reconcile is kio.ReconcileInternalAnnotations, item by item on all cores (reconcileOne)
// when concurrent is set and no two items share their root, metadata or annotations node:
// it changes each item's annotations alone, given the map, which it only reads. The first
// error in item order is returned, as the serial call returns it.
func reconcile(items []*yaml.RNode, nodeAnnos map[string]map[string]string, concurrent bool) error {
	if !concurrent || len(items) < 256 || !distinctHeads(items) {
		return kio.ReconcileInternalAnnotations(items, nodeAnnos)
	}
	useInternal, useLegacy, err := annotationsFormat(nodeAnnos)
	if err != nil {
		return err
	}
	errs := make([]error, len(items))
	parallel.ForEach(len(items), 64, func(i int) {
		errs[i] = reconcileOne(items[i], nodeAnnos, useInternal, useLegacy)
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
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
