// Package bench measures krm-merge against kyaml (issue 6): package gen makes the inputs,
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

// EngineTime is the median time, over reps runs, of function.Run (roles, resource
// rules and field merges; no I/O) on the keyed-list input of kind with n elements.
func EngineTime(kind string, n, reps int) (time.Duration, error) {
	items, cfg, err := KeyedListItems(kind, n)
	if err != nil {
		return 0, err
	}
	var times []time.Duration
	for i := 0; i < reps; i++ {
		runtime.GC() // each run starts from the same heap
		start := time.Now()
		out, err := function.Run(items, cfg)
		if err != nil {
			return 0, err
		}
		times = append(times, time.Since(start))
		if out.Counts.Merged != 1 {
			return 0, fmt.Errorf("keyed list %s/%d: merged %d resources, want 1", kind, n, out.Counts.Merged)
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	return times[len(times)/2], nil
}
