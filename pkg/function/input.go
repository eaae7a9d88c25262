package function

import (
	"bytes"
	"fmt"
	"io"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// CheckInput reads the whole ResourceList from r and checks that it parses. On success
// it returns a reader over the same bytes for the framework to process. On failure it
// writes to w a ResourceList with no items and one error result saying where the YAML is
// malformed (kyaml's framework.Execute writes nothing in that case), and returns the
// error, so the binary exits 1 and the host shows the result.
func CheckInput(r io.Reader, w io.Writer) (io.Reader, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, writeFailure(w, fmt.Errorf("cannot read the ResourceList input: %w", err))
	}
	if _, err := (&kio.ByteReader{Reader: bytes.NewReader(data)}).Read(); err != nil {
		return nil, writeFailure(w, fmt.Errorf("malformed ResourceList input: %w", err))
	}
	return bytes.NewReader(data), nil
}

func writeFailure(w io.Writer, err error) error {
	rs := framework.Results{{Severity: framework.Error, Message: err.Error()}}
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
