package resourcelist_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/krm-merge/krm-merge/internal/fuzzseed"
	"github.com/krm-merge/krm-merge/pkg/function"
)

// FuzzRead: for any input, the fast path (resourcelist.Execute, falling back to kyaml's
// reader when it declines, as the binary does) gives the same output bytes and the same
// error as kyaml's framework.Execute, with a processor that only reads and writes and
// with krm-merge itself. kyaml's reader is the oracle: where it accepts, the bytes must
// match; where it fails, the fast path must fail the same way and never panic.
// Seeds: every e2e case package and example read as kpt reads it, and the odd inputs.
func FuzzRead(f *testing.F) {
	for _, p := range fuzzseed.Packages(f) {
		f.Add(packageList(f, p[0], p[1]))
	}
	for _, in := range oddInputs {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 64<<10 { // big inputs only slow the search down
			return
		}
		// The fuzzer has no per-input time limit and reports nothing about an input
		// that runs for minutes: this guard (generous, against a hang) makes one a
		// failure with its input saved.
		done := make(chan struct{})
		timer := time.AfterFunc(30*time.Second, func() {
			select {
			case <-done:
			default:
				panic(fmt.Sprintf("one input took over 30 s (%d bytes):\n%s", len(in), in))
			}
		})
		defer timer.Stop()
		same(t, "noop", noop, in)
		same(t, "krm-merge", function.Processor{}, in)
		close(done)
	})
}
