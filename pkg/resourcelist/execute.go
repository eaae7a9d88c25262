package resourcelist

import (
	"fmt"
	"io"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/errors"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
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
	if err := kio.ReconcileInternalAnnotations(rl.Items, nodeAnnos); err != nil {
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
	parallel(len(items), func(i int) {
		if err := items[i].PipeE(yaml.SetAnnotation(kioutil.InternalAnnotationsMigrationResourceIDAnnotation, strconv.Itoa(i))); err != nil {
			errs[i] = err
			return
		}
		annos[i] = kioutil.GetInternalAnnotations(items[i])
		if err := kioutil.CopyLegacyAnnotations(items[i]); err != nil {
			errs[i] = err
			return
		}
		meta, _ := items[i].GetMeta()
		errs[i] = checkMismatchedAnnos(meta.Annotations)
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
