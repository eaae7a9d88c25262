package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// ForEach calls f(i) for every i in [0, n), on up to GOMAXPROCS goroutines that take the
// next index as they finish one, and returns when all calls have returned. f must be
// safe to call concurrently for different i; results go into slots indexed by i, which
// keeps output order independent of scheduling. When n is below serialBelow, or only
// one goroutine would run, the calls run in order on the caller's goroutine (for small
// n the goroutines cost more than they save).
//
// A panic in f does not crash the process from a worker goroutine, where no caller
// could recover it: the workers stop taking indexes, and once all have returned ForEach
// panics on the caller's goroutine with the panic of the lowest index that panicked
// (the first one in a serial run), so the caller's
// recover (e.g. the function's, which turns it into an error result) sees it as in a
// serial run.
func ForEach(n, serialBelow int, f func(i int)) {
	if n < serialBelow {
		Workers(n, 1, f)
		return
	}
	Workers(n, runtime.GOMAXPROCS(0), f)
}

// Workers calls f(i) for every i in [0, n) as ForEach does, on up to workers goroutines
// (fewer than 1 counts as 1), whatever GOMAXPROCS is: for work that mostly waits (on
// git, on the disk), whose parallelism the caller chooses. One worker runs the calls in
// order on the caller's goroutine. A panic reaches the caller as in ForEach.
func Workers(n, workers int, f func(i int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	panicked, panicAt := any(nil), n
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := 0
			defer func() {
				if p := recover(); p != nil {
					next.Store(int64(n)) // stop the other workers
					mu.Lock()
					if i < panicAt {
						panicked, panicAt = p, i
					}
					mu.Unlock()
				}
			}()
			for i = int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		}()
	}
	wg.Wait()
	if panicAt < n {
		panic(panicked)
	}
}
