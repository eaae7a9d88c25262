package textmerge

import (
	"fmt"
	"testing"

	"github.com/krm-merge/krm-merge/bench/gen"
)

// BenchmarkMerge times Merge on the long generated texts of `make bench`
// (bench/gen.TextMerge, every section moved upstream, both sides edited), per size in
// lines; make bench sets the same inputs against git merge-file.
func BenchmarkMerge(b *testing.B) {
	for _, n := range []int{5000, 20000, 50000} {
		base, dest, updated := gen.TextMerge(gen.TextOptions{Lines: n, Moved: 100, Seed: 1})
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(base) + len(dest) + len(updated)))
			b.ReportAllocs()
			for b.Loop() {
				Merge(base, dest, updated, FavorUpdated)
			}
		})
	}
}
