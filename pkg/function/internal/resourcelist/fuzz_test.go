package resourcelist_test

import (
	"testing"

	"github.com/krm-merge/krm-merge/internal/testsupport"
	"github.com/krm-merge/krm-merge/pkg/function"
)

// FuzzRead: for any input, the fast path (resourcelist.Execute, falling back to kyaml's
// reader when it declines, as the binary does) gives the same output and the same
// error as kyaml's framework.Execute, with a processor that only reads and writes and
// with krm-merge itself. kyaml's reader is the oracle: where it accepts, the bytes must
// match, or (input bytes kept, keep.go) read back through kyaml as kyaml's output;
// where it fails, the fast path must fail the same way and never panic.
// Seeds: every e2e case package and example read as kpt reads it, and the odd inputs.
// Inputs over 16 KiB are skipped, and the comparison through krm-merge runs for one
// input in four (testsupport.Sample; all of them when seeds and corpus are replayed), so
// that the search runs at volume.
func FuzzRead(f *testing.F) {
	testsupport.SetupFuzz(f)
	for _, p := range testsupport.SeedPackages(f) {
		f.Add(packageList(f, p[0], p[1]))
	}
	for _, in := range oddInputs {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		defer testsupport.Guard(t, in)()
		if len(in) > 16<<10 { // big inputs only slow the search down
			return
		}
		same(t, "noop", noop, in)
		if testsupport.Sample(4, in) { // the merge costs most: one input in four
			same(t, "krm-merge", function.Processor{}, in)
		}
	})
}
