package resourcelist

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/metrics"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
)

// Run is what command.Build's command does with a ResourceList on stdin, through the
// fast path: it reads all of r, runs p and writes the output to w; on an error it
// prints the error to errw as command.Build does ("%v") and returns it. Input the fast
// reader declines (and a failed read) goes to kyaml, which gets the same bytes:
// kyamlPath reads the ResourceList from its argument and does all of the above itself.
//
// No panic escapes (issue 7): a panic in the fast reader sends the input to kyamlPath,
// as input it declines (so malformed input still gets kyaml's error result); a panic
// while processing or writing (the processor's own are its to report: the function's
// become error results) is returned as an "internal error" error, printed to errw, and
// the caller exits 1, so a host writes nothing.
func Run(p framework.ResourceListProcessor, r io.Reader, w, errw io.Writer, kyamlPath func(io.Reader) error) (err error) {
	data, err := readAll(r)
	if err != nil {
		return kyamlPath(io.MultiReader(bytes.NewReader(data), errReader{err}))
	}
	// Nearly all that decoding allocates stays live (the items), so collecting during
	// it only re-marks the growing tree: collect after it instead. Then a soft memory
	// limit of 1.5 times the heap the items take keeps the garbage of processing and
	// writing (replaced and written items) from doubling the peak, as Go's default
	// (collect when the heap has doubled) would; below the limit GC runs as usual. (A
	// floor of 1 GiB of garbage made small lists faster than large ones per byte.)
	old := debug.SetGCPercent(-1)
	l, err := safeRead(data)
	debug.SetGCPercent(old)
	if errors.Is(err, ErrUnsupported) {
		return kyamlPath(bytes.NewReader(data))
	}
	if os.Getenv("GOMEMLIMIT") == "" && os.Getenv("GOGC") == "" {
		debug.SetMemoryLimit(heapBytes()*3/2 + 64<<20)
	}
	data = nil // the items hold their own strings: let the input go
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("internal error processing the ResourceList: %v (please report this with the input)", x)
			_, _ = fmt.Fprintf(errw, "%v", err)
		}
	}()
	if err == nil {
		err = Process(p, l, w)
	}
	if err != nil {
		_, _ = fmt.Fprintf(errw, "%v", err)
	}
	return err
}

// read is the fast reader Run uses; tests replace it to check that a reader panic is
// recovered.
var read = Read

// safeRead is read, with a panic turned into ErrUnsupported (kyaml's reader then gets
// the input).
func safeRead(data []byte) (l *List, err error) {
	defer func() {
		if x := recover(); x != nil {
			l, err = nil, fmt.Errorf("%w (the fast reader failed: %v)", ErrUnsupported, x)
		}
	}()
	return read(data)
}

// heapBytes is the memory the heap's objects take now (live and not yet collected).
func heapBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 1 << 40
	}
	return int64(s[0].Value.Uint64())
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
