package resourcelist_test

import (
	"bytes"
	"io"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"

	"github.com/krm-merge/krm-merge/bench/gen"
	"github.com/krm-merge/krm-merge/pkg/function"
	"github.com/krm-merge/krm-merge/pkg/function/internal/resourcelist"
)

// BenchmarkKeep1000 times Process on a generated 3-way list of 1,000 resources (bench/gen,
// 2,907 items, 10 MB), through the function and through a processor that changes
// nothing, with the input items kept (keep.go: encoded as read, matched, written with
// their bytes) and without (as kyaml's writer would write them): the cost of keeping.
func BenchmarkKeep1000(b *testing.B) {
	var in bytes.Buffer
	if _, err := gen.ResourceList(&in, gen.Options{Resources: 1000}); err != nil {
		b.Fatal(err)
	}
	noop := framework.ResourceListProcessorFunc(func(*framework.ResourceList) error { return nil })
	for _, p := range []struct {
		name string
		p    framework.ResourceListProcessor
	}{{"function", function.Processor{}}, {"noop", noop}} {
		for _, keep := range []bool{true, false} {
			name := p.name + "/keep"
			if !keep {
				name = p.name + "/encode"
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(in.Len()))
				for b.Loop() {
					l, err := resourcelist.Read(in.Bytes())
					if err != nil {
						b.Fatal(err)
					}
					if !keep {
						resourcelist.DropInputs(l)
					}
					if err := resourcelist.Process(p.p, l, io.Discard); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
