package bench_test

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/krm-merge/krm-merge/bench/gen"
	"github.com/krm-merge/krm-merge/pkg/function"
)

// memoryShapes are inputs of about size bytes whose memory per byte differs most: many
// tiny resources, one list of empty lists (a node per 3 bytes, the smallest YAML has),
// one long string (one node), and the generated 3-way package of the other benchmarks
// (typical Kubernetes YAML).
func memoryShapes(b *testing.B, size int) map[string][]byte {
	const head = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
	var cms strings.Builder
	cms.WriteString(head)
	for i := 0; cms.Len() < size; i++ {
		fmt.Fprintf(&cms, "- {apiVersion: v1, kind: ConfigMap, metadata: {name: c%d}}\n", i)
	}
	var real bytes.Buffer
	if _, err := gen.ResourceList(&real, gen.Options{Resources: max(1, size/10_000), Seed: 1}); err != nil {
		b.Fatal(err)
	}
	return map[string][]byte{
		"resources": []byte(cms.String()),
		"lists":     []byte(head + "- {apiVersion: v1, kind: X, metadata: {name: a}, spec: [" + strings.Repeat("[], ", size/4) + "]}\n"),
		"string":    []byte(head + "- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {x: " + strings.Repeat("a", size) + "}}\n"),
		"package":   real.Bytes(),
	}
}

// BenchmarkMemory runs the function on each shape as the binary runs it on stdin (the
// fast reader, kyaml's path for input it declines) and reports the peak of the memory
// the Go runtime holds from the system (what resident memory tracks: heap, stacks and
// metadata, less what was returned), above the memory held before, per input byte
// (peak-B/input-B) and per YAML node of the input (peak-B/node). internal/bounds sizes
// the input bounds from these figures (docs/security.md). `make bench` runs it at 1 MB.
func BenchmarkMemory(b *testing.B) {
	shapes := memoryShapes(b, 1<<20)
	for _, name := range []string{"resources", "lists", "string", "package"} {
		in := shapes[name]
		b.Run(name, func(b *testing.B) {
			b.Setenv("KRM_MERGE_MAX_NODES", "1000000000")
			nodes := countNodes(b, in)
			var peak int64
			for range b.N {
				peak = max(peak, peakDuring(b, func() { runStdin(b, in) }))
			}
			b.ReportMetric(float64(peak)/float64(len(in)), "peak-B/input-B")
			b.ReportMetric(float64(peak)/float64(nodes), "peak-B/node")
			b.ReportMetric(float64(nodes), "nodes")
		})
	}
}

// runStdin runs the function on in as the binary does with a ResourceList on stdin.
func runStdin(b *testing.B, in []byte) {
	var out, errw bytes.Buffer
	kyamlPath := func(r io.Reader) error {
		r, err := function.CheckResourceList(r, &out)
		if err != nil {
			return err
		}
		return framework.Execute(function.Processor{}, &kio.ByteReadWriter{Reader: r, Writer: &out, KeepReaderAnnotations: true})
	}
	if err := function.Serve(bytes.NewReader(in), &out, &errw, kyamlPath, function.Memory{}); err != nil {
		b.Fatalf("%v\n%s", err, out.String())
	}
}

// countNodes is the YAML nodes of in, as one document (aliases as one node).
func countNodes(b *testing.B, in []byte) int {
	var doc yaml.Node
	if err := yaml.Unmarshal(in, &doc); err != nil {
		b.Fatal(err)
	}
	n := 0
	stack := []*yaml.Node{&doc}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n++
		stack = append(stack, x.Content...)
	}
	return n
}

// peakDuring returns the most memory the Go runtime held from the system while f ran,
// less what it held before (after a collection), polled every 100 µs.
func peakDuring(b *testing.B, f func()) int64 {
	b.StopTimer()
	runtime.GC()
	debug.FreeOSMemory()
	base := heldBytes()
	var peak atomic.Int64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			if h := heldBytes(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-done:
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}()
	b.StartTimer()
	f()
	b.StopTimer()
	close(done)
	<-stopped
	if h := heldBytes(); h > peak.Load() {
		peak.Store(h)
	}
	return max(peak.Load()-base, 0)
}

// heldBytes is the memory the Go runtime holds from the system, less what it released.
func heldBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}
