package resourcelist

import (
	"io"

	"sigs.k8s.io/kustomize/kyaml/errors"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
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
	nodeAnnos, err := kio.PreprocessResourcesForInternalAnnotationMigration(rl.Items)
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
