// Package bench measures krm-merge against kyaml: package gen makes the inputs,
// cmd/krm-merge-bench runs krm-merge and the kyaml reference functions (reference/merge3,
// reference/readwrite) as subprocesses on them and prints a markdown table, and the
// testing.B benchmarks in this package time the field engines in process.
package bench

import (
	"bytes"
	"fmt"
	"runtime"
	"sort"
	"time"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/bench/gen"
	"github.com/krm-merge/krm-merge/pkg/config"
	"github.com/krm-merge/krm-merge/pkg/function"
)

// KeyedListItems returns the items of gen.KeyedList(kind, n) and the functionConfig,
// parsed.
func KeyedListItems(kind string, n int) ([]*yaml.RNode, *config.Config, error) {
	var b bytes.Buffer
	if _, err := gen.KeyedList(&b, kind, n, 1); err != nil {
		return nil, nil, err
	}
	items, err := (&kio.ByteReader{Reader: &b, OmitReaderAnnotations: true}).Read()
	if err != nil {
		return nil, nil, err
	}
	cfg, err := config.Load(nil)
	if err != nil {
		return nil, nil, err
	}
	return items, cfg, nil
}

// EngineTimes measures function.Run (roles, resource rules and field merges; no I/O)
// on the keyed-list input of kind with n elements, for each n in sizes, and returns the
// median time of each, in the order of sizes.
//
// The sizes are measured interleaved, not one after the other: each of rounds rounds
// runs every size, the smaller ones max(sizes)/n times so that each size gets about
// the same machine time. On a shared 2-core VM the speed of the same run drifts by up
// to 2x over seconds (other tenants, CPU steal); interleaving exposes every size to
// the same drift, so their ratio, the scaling exponent, measures the code and not
// when each size happened to run. Each run starts from a collected heap.
func EngineTimes(kind string, sizes []int, rounds int) ([]time.Duration, error) {
	type input struct {
		items []*yaml.RNode
		cfg   *config.Config
		reps  int
		times []time.Duration
	}
	largest := 0
	for _, n := range sizes {
		largest = max(largest, n)
	}
	ins := make([]*input, len(sizes))
	for i, n := range sizes {
		items, cfg, err := KeyedListItems(kind, n)
		if err != nil {
			return nil, err
		}
		ins[i] = &input{items: items, cfg: cfg, reps: max(1, largest/max(n, 1))}
	}
	for r := 0; r < rounds; r++ {
		for i, in := range ins {
			for k := 0; k < in.reps; k++ {
				runtime.GC()
				start := time.Now()
				out, err := function.Run(in.items, in.cfg)
				if err != nil {
					return nil, err
				}
				in.times = append(in.times, time.Since(start))
				if out.Counts.Merged != 1 {
					return nil, fmt.Errorf("keyed list %s/%d: merged %d resources, want 1", kind, sizes[i], out.Counts.Merged)
				}
			}
		}
	}
	medians := make([]time.Duration, len(ins))
	for i, in := range ins {
		sort.Slice(in.times, func(a, b int) bool { return in.times[a] < in.times[b] })
		medians[i] = in.times[len(in.times)/2]
	}
	return medians, nil
}
