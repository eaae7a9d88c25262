package function

import (
	"bytes"
	"fmt"
	"io"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/pkg/results"
)

// CheckInput reads the whole ResourceList from r and checks that it parses, and that no
// item repeats a key that kyaml's annotation edits would hide before the processor sees
// it (checkRead). On success it returns a reader over the same bytes for the framework to
// process. On failure it writes to w a ResourceList with no items and one error result
// saying where the YAML is malformed, or naming the resource, file and key path of the
// repeated key (kyaml's framework.Execute writes nothing for malformed YAML, and would
// drop the key's empty copy), and returns the error, so the binary exits 1 and the host
// shows the result.
func CheckInput(r io.Reader, w io.Writer) (io.Reader, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, writeFailure(w, fmt.Errorf("cannot read the ResourceList input: %w", err))
	}
	items, err := (&kio.ByteReader{Reader: bytes.NewReader(data), OmitReaderAnnotations: true}).Read()
	if err != nil {
		return nil, writeFailure(w, fmt.Errorf("malformed ResourceList input: %w", err))
	}
	if err := checkRead(items); err != nil {
		return nil, writeFailure(w, err)
	}
	return bytes.NewReader(data), nil
}

// writeFailure writes a ResourceList with no items and err's error results
// (results.FromError: an ItemError names its resource, file and field) to w, and
// returns them.
func writeFailure(w io.Writer, err error) error {
	rs := results.FromError(err)
	out := &kio.ByteWriter{Writer: w, WrappingKind: kio.ResourceListKind, WrappingAPIVersion: kio.ResourceListAPIVersion}
	b, merr := yaml.Marshal(rs)
	if merr == nil {
		out.Results, _ = yaml.Parse(string(b))
	}
	if werr := out.Write(nil); werr != nil {
		return fmt.Errorf("%v (and writing the error result failed: %v)", err, werr)
	}
	return rs
}
