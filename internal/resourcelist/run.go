package resourcelist

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"

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
	// limit of 1.2 times the memory held after decoding (limitAfterRead; the items and
	// the parser's garbage, about a third of the heap) keeps the garbage of processing
	// and writing (replaced and written items) from doubling the peak, as Go's default
	// (collect when the heap has doubled) would: at 10,000 resources the peak went from
	// 2.6 GB (1.5 times the heap objects) to 2.2 GB, in the same time. Below the limit nothing is collected
	// (collectAtLimit): each collection re-marks all the items, and Go's pacer, whose
	// last mark saw the input alone, would start one at once and then several during
	// processing. (A floor of 1 GiB of garbage made small lists faster than large ones
	// per byte.)
	old := debug.SetGCPercent(-1)
	l, err := safeRead(data)
	if errors.Is(err, ErrUnsupported) {
		debug.SetGCPercent(old)
		return kyamlPath(bytes.NewReader(data))
	}
	if os.Getenv("GOMEMLIMIT") == "" && os.Getenv("GOGC") == "" {
		restore := collectAtLimit(limitAfterRead(), old)
		defer restore()
	} else {
		debug.SetGCPercent(old)
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

// collectAtLimit sets a soft memory limit and leaves the collector off (GOGC=off) so
// that it runs only when the heap nears the limit; gcPercent is the setting to go back
// to. After each collection, if the live heap takes more than 3/4 of the limit (each
// collection would then free little and the next come soon), it turns gcPercent back
// on, so the pacer and the limit together decide, as they would without this. The
// returned func restores the previous limit and gcPercent; until then the process's
// collector settings are changed, so Run is for one call at a time.
func collectAtLimit(limit int64, gcPercent int) (restore func()) {
	prevLimit := debug.SetMemoryLimit(limit)
	debug.SetGCPercent(-1)
	var done atomic.Bool
	var arm func()
	arm = func() {
		s := new(gcSentinel)
		runtime.SetFinalizer(s, func(*gcSentinel) { // runs after a collection
			if done.Load() {
				return
			}
			if liveHeapBytes() > limit/4*3 {
				debug.SetGCPercent(gcPercent)
				return
			}
			arm()
		})
	}
	arm()
	return func() {
		done.Store(true)
		debug.SetGCPercent(gcPercent)
		debug.SetMemoryLimit(prevLimit)
	}
}

// gcSentinel is a heap object whose finalizer tells collectAtLimit a collection ran
// (large enough not to be a tiny allocation, which finalizers may not see promptly).
type gcSentinel struct{ _ [32]byte }

// liveHeapBytes is the heap the last collection found live.
func liveHeapBytes() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// limitAfterRead is the soft memory limit Run sets once the items are decoded: the
// memory the process holds from the Go runtime then (what the limit measures: heap
// spans, including the decoder's garbage, stacks and runtime metadata, less what was
// returned to the system) plus a fifth, and at least 64 MiB more.
func limitAfterRead() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return math.MaxInt64
	}
	inUse := int64(s[0].Value.Uint64() - s[1].Value.Uint64())
	return inUse + max(inUse/5, 64<<20)
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
