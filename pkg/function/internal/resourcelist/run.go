package resourcelist

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"

	"github.com/krm-merge/krm-merge/internal/bounds"
)

// Memory is the process's collector policy around a run, set by the command (package
// main), never by this package: BeforeRead is called before decoding, AfterRead once the
// items are decoded (the returned func is called when the run ends), and AfterDecline
// when the fast reader declines the input (before kyaml's path runs). A nil func is not
// called; the zero value leaves the collector as it is.
type Memory struct {
	BeforeRead   func()
	AfterRead    func() (restore func())
	AfterDecline func()
}

// Run is what command.Build's command does with a ResourceList on stdin, through the
// fast path: it reads all of r (at most bounds.MaxInputBytes: a longer input, like a
// failed read, goes to kyamlPath as a reader that fails after the bytes up to the bound,
// and pkg/function/internal/inputcheck answers it with an error result), runs p and writes the output to w; on an error it
// prints the error to errw as command.Build does ("%v") and returns it. Input the fast
// reader declines (and a failed read) goes to kyaml, which gets the same bytes:
// kyamlPath reads the ResourceList from its argument and does all of the above itself.
// mem is called around the read (see Memory).
//
// No panic escapes: a panic in the fast reader sends the input to kyamlPath, as input it
// declines (so malformed input still gets kyaml's error result); a panic while
// processing or writing (the processor's own are its to report: the function's become
// error results) is returned as an "internal error" error, printed to errw, and the
// caller exits 1, so a host writes nothing.
func Run(p framework.ResourceListProcessor, r io.Reader, w, errw io.Writer, kyamlPath func(io.Reader) error, mem Memory) (err error) {
	data, err := readAll(r)
	if err != nil {
		return kyamlPath(io.MultiReader(bytes.NewReader(data), errReader{err}))
	}
	if mem.BeforeRead != nil {
		mem.BeforeRead()
	}
	l, err := safeRead(data)
	if errors.Is(err, ErrUnsupported) {
		if mem.AfterDecline != nil {
			mem.AfterDecline()
		}
		return kyamlPath(bytes.NewReader(data))
	}
	if mem.AfterRead != nil {
		if restore := mem.AfterRead(); restore != nil {
			defer restore()
		}
	}
	data = nil // the items hold their own strings, and keep.go copies the texts it keeps: let the input go
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

// readAll reads r whole, at most bounds.MaxInputBytes (a longer input is a
// *bounds.TooLargeError, with the bytes up to the bound), sizing the buffer once when r
// is a regular file.
func readAll(r io.Reader) ([]byte, error) {
	limit, err := bounds.MaxInputBytes()
	if err != nil {
		return nil, err
	}
	hint := 0
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() <= limit {
			hint = int(st.Size())
		}
	}
	return bounds.ReadInput(r, limit, hint)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
