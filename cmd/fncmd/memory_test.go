package fncmd

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// TestCollectAtLimit checks the collector settings memory gives function.Serve: off below the limit, back
// to the given GOGC once a collection finds the live heap above 3/4 of the limit, and
// both settings restored afterwards.
func TestCollectAtLimit(t *testing.T) {
	prevLimit := debug.SetMemoryLimit(-1)
	prevPercent := debug.SetGCPercent(-1)
	debug.SetGCPercent(prevPercent)

	// Plenty of room: a collection leaves the collector off.
	restore := collectAtLimit(1<<40, 77)
	runtime.GC()
	time.Sleep(50 * time.Millisecond) // the finalizer goroutine runs after the collection
	if p := gogc(); p != -1 {
		t.Errorf("with room under the limit, GOGC is %d, want off (-1)", p)
	}
	restore()
	if p := debug.SetGCPercent(prevPercent); p != 77 {
		t.Errorf("after restore, GOGC is %d, want the given 77", p)
	}
	if l := debug.SetMemoryLimit(-1); l != prevLimit {
		t.Errorf("after restore, the memory limit is %d, want %d", l, prevLimit)
	}

	// Live heap above 3/4 of the limit: the next collection turns GOGC back on.
	keep := make([][]byte, 0, 64)
	for i := 0; i < 64; i++ {
		keep = append(keep, make([]byte, 1<<20))
	}
	runtime.GC()
	limit := liveHeapBytes() // the live heap alone fills the limit
	restore = collectAtLimit(limit, 55)
	runtime.GC()
	deadline := time.Now().Add(2 * time.Second)
	for {
		p := gogc()
		if p == 55 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("live heap %d above 3/4 of limit %d: GOGC is %d, want 55", liveHeapBytes(), limit, p)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	restore()
	runtime.KeepAlive(keep)
	debug.SetGCPercent(prevPercent)
	debug.SetMemoryLimit(prevLimit)
}

// gogc reads the GOGC setting without changing it (setting it to probe would race with
// collectAtLimit's finalizer, which sets it).
func gogc() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return -2
	}
	v := int64(s[0].Value.Uint64())
	if v < 0 || v > 1<<40 { // off
		return -1
	}
	return int(v)
}
