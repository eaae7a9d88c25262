package resourcelist

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
)

// Run is what command.Build's command does with a ResourceList on stdin, through the
// fast path: it reads all of r, runs p and writes the output to w; on an error it
// prints the error to errw as command.Build does ("%v") and returns it. Input the fast
// reader declines (and a failed read) goes to kyaml, which gets the same bytes:
// kyamlPath reads the ResourceList from its argument and does all of the above itself.
func Run(p framework.ResourceListProcessor, r io.Reader, w, errw io.Writer, kyamlPath func(io.Reader) error) error {
	data, err := readAll(r)
	if err != nil {
		return kyamlPath(io.MultiReader(bytes.NewReader(data), errReader{err}))
	}
	// Nearly all that decoding allocates stays live (the items), so collecting during
	// it only re-marks the growing tree: collect after it instead. The processing and
	// writing then collect more often than Go's default, as the live heap is large
	// and the garbage (replaced items, written items) is what keeps the peak up.
	old := debug.SetGCPercent(-1)
	l, err := Read(data)
	debug.SetGCPercent(gcPercent(old))
	if errors.Is(err, ErrUnsupported) {
		debug.SetGCPercent(old)
		return kyamlPath(bytes.NewReader(data))
	}
	data = nil // the items hold their own strings: let the input go
	if err == nil {
		err = Process(p, l, w)
	}
	if err != nil {
		_, _ = fmt.Fprintf(errw, "%v", err)
	}
	return err
}

// gcPercent is the GC percentage for processing and writing: half of the default,
// unless GOGC was set (then old, the user's).
func gcPercent(old int) int {
	if os.Getenv("GOGC") != "" {
		return old
	}
	return 50
}

// readAll reads r whole, sizing the buffer once when r is a regular file.
func readAll(r io.Reader) ([]byte, error) {
	var buf bytes.Buffer
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			buf.Grow(int(st.Size()) + 512)
		}
	}
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
