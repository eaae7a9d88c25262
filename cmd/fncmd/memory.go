package fncmd

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"

	"github.com/krm-merge/krm-merge/pkg/function"
)

// memory is the process's collector policy around a ResourceList run on stdin, which
// function.Serve calls at each phase. Nearly all that decoding allocates stays live
// (the items), so collecting during it only re-marks the growing tree: the collector is
// off while decoding, and after it a soft memory limit of 1.2 times the memory held then
// (limitAfterRead; the items and the parser's garbage, about a third of the heap) keeps
// the garbage of processing and writing (replaced and written items) from doubling the
// peak, as Go's default (collect when the heap has doubled) would: at 10,000 resources
// the peak went from 2.6 GB (1.5 times the heap objects) to 2.2 GB, in the same time.
// Below the limit nothing is collected (collectAtLimit): each collection re-marks all the
// items, and Go's pacer, whose last mark saw the input alone, would start one at once
// and then several during processing. GOMEMLIMIT or GOGC in the environment leave the
// runtime's own settings alone after the read.
func memory() function.Memory {
	var old int
	return function.Memory{
		BeforeRead:   func() { old = debug.SetGCPercent(-1) },
		AfterDecline: func() { debug.SetGCPercent(old) },
		AfterRead: func() func() {
			if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
				debug.SetGCPercent(old)
				return nil
			}
			return collectAtLimit(limitAfterRead(), old)
		},
	}
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
