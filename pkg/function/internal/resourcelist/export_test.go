package resourcelist

import (
	"io"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
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

// DecodeHead decodes input without its items block as Read does, with the
// functionConfig's inline lists cut out and decoded on all cores in runs of about
// runSize bytes where they can be (cut), or decoded whole with the rest (cut false).
// cutUsed reports whether they were cut. Errors: ErrUnsupported where Read declines
// the items block, the YAML decoder's for the rest.
func DecodeHead(input []byte, cut bool, runSize int) (doc *yaml.Node, cutUsed bool, err error) {
	lay, err := layout(input, 0, len(input), 0, "items", true)
	if err != nil {
		return nil, false, err
	}
	defer SetRunBytes(runSize)()
	if cut {
		if lists := inlineLists(input, lay); lists != nil {
			cutUsed = cutHead(input, lay, lists) != nil
		}
	}
	defer SetCutInline(cut)()
	doc, err = decodeHead(input, lay)
	return doc, cutUsed, err
}

// SetCutInline sets whether Read cuts a functionConfig's inline lists out, to decode
// them on all cores; restore puts the setting back.
func SetCutInline(cut bool) (restore func()) {
	old := cutInline
	cutInline = cut
	return func() { cutInline = old }
}

// SetRunBytes sets the size of the runs Read decodes on all cores; restore puts it back.
func SetRunBytes(n int) (restore func()) {
	old := runBytes
	runBytes = n
	return func() { runBytes = old }
}
