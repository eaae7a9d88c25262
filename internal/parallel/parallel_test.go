package parallel

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestForEachCallsEveryIndexOnce(t *testing.T) {
	for _, tc := range []struct{ n, serialBelow int }{{0, 0}, {1, 0}, {7, 0}, {1000, 0}, {1000, 64}, {10, 64}} {
		counts := make([]int32, tc.n)
		var calls atomic.Int64
		ForEach(tc.n, tc.serialBelow, func(i int) {
			atomic.AddInt32(&counts[i], 1)
			calls.Add(1)
		})
		if calls.Load() != int64(tc.n) {
			t.Errorf("n=%d: %d calls", tc.n, calls.Load())
		}
		for i, c := range counts {
			if c != 1 {
				t.Errorf("n=%d: index %d called %d times", tc.n, i, c)
			}
		}
	}
}

func TestForEachSerialBelowRunsInOrder(t *testing.T) {
	var got []int
	ForEach(10, 64, func(i int) { got = append(got, i) }) // no lock: must be serial
	for i, v := range got {
		if v != i {
			t.Fatalf("serial run out of order: %v", got)
		}
	}
}

// TestForEachPanicReachesTheCaller: a panic in a worker goroutine is re-raised on the
// caller's goroutine, where a deferred recover sees it (no panic escapes).
func TestForEachPanicReachesTheCaller(t *testing.T) {
	for _, serialBelow := range []int{0, 1 << 20} {
		got := func() (p any) {
			defer func() { p = recover() }()
			ForEach(1000, serialBelow, func(i int) {
				if i == 700 || i == 900 {
					panic(i)
				}
			})
			return nil
		}()
		if got != 700 && (serialBelow > 0 || got != 900) {
			t.Errorf("serialBelow %d: recovered %v, want the panic of index 700", serialBelow, got)
		}
		if got == nil {
			t.Errorf("serialBelow %d: the panic was lost", serialBelow)
		}
	}
}

// TestWorkersBoundsTheGoroutines: Workers calls every index once, never more than
// workers at a time, and one worker runs them in order.
func TestWorkersBoundsTheGoroutines(t *testing.T) {
	var mu sync.Mutex
	running, most := 0, 0
	seen := make([]int, 50)
	Workers(len(seen), 3, func(i int) {
		mu.Lock()
		running++
		most = max(most, running)
		seen[i]++
		mu.Unlock()
		time.Sleep(time.Millisecond)
		mu.Lock()
		running--
		mu.Unlock()
	})
	for i, n := range seen {
		if n != 1 {
			t.Errorf("index %d called %d times", i, n)
		}
	}
	if most > 3 {
		t.Errorf("%d calls at once, want at most 3", most)
	}
	var order []int
	Workers(5, 1, func(i int) { order = append(order, i) })
	if fmt.Sprint(order) != "[0 1 2 3 4]" {
		t.Errorf("one worker ran %v", order)
	}
}
