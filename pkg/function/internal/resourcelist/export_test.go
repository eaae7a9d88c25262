package resourcelist

import (
	"io"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
)

// DropInputs makes l written as if its input items were not kept (keep.go): every
// item encoded, as kyaml's writer writes it. For benchmarks of keeping's cost.
func DropInputs(l *List) { l.in = nil }

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
