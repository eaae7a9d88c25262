package bench_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/kustomize/kyaml/yaml/merge2"
	"sigs.k8s.io/kustomize/kyaml/yaml/merge3"

	"github.com/krm-merge/krm-merge/bench"
	"github.com/krm-merge/krm-merge/bench/gen"
	"github.com/krm-merge/krm-merge/pkg/function"
	"github.com/krm-merge/krm-merge/pkg/merge"
	"github.com/krm-merge/krm-merge/pkg/schema"
)

// TestSmoke is the quick check CI runs: a generated list goes through the fast path
// (read, merge, write) and comes out as a ResourceList with the merged items.
func TestSmoke(t *testing.T) {
	for _, mode := range []gen.Mode{gen.ThreeWay, gen.TwoWay} {
		var in bytes.Buffer
		st, err := gen.ResourceList(&in, gen.Options{Resources: 200, Mode: mode, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		if avg := st.Bytes / int64(st.Items); avg < 2500 || avg > 4500 {
			t.Errorf("%s: %d bytes an item, want about 3,400", mode, avg)
		}
		var out bytes.Buffer
		if err := serve(in.Bytes(), &out); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		rl, err := yaml.Parse(out.String())
		if err != nil {
			t.Fatal(err)
		}
		items, _ := rl.Pipe(yaml.Lookup("items"))
		if n := len(items.Content()); n < 190 || n > 200 { // deleted and added resources aside
			t.Errorf("%s: %d output items for 200 resources", mode, n)
		}
		if s := rl.MustString(); !bytes.Contains([]byte(s), []byte(string(mode)+" merge: ")) {
			t.Errorf("%s: no summary result", mode)
		}
	}
	// the same bytes for the same options
	var a, b bytes.Buffer
	_, _ = gen.ResourceList(&a, gen.Options{Resources: 50, Seed: 3})
	_, _ = gen.ResourceList(&b, gen.Options{Resources: 50, Seed: 3})
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the generator is not deterministic")
	}
}

// triples parses a generated 3-way list into original, updated, dest triples of the
// resources present in all three.
func triples(b *testing.B, n int) [][3]*yaml.RNode {
	var in bytes.Buffer
	if _, err := gen.ResourceList(&in, gen.Options{Resources: n, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	items, err := (&kio.ByteReader{Reader: &in, OmitReaderAnnotations: true}).Read()
	if err != nil {
		b.Fatal(err)
	}
	byName := map[string]*[3]*yaml.RNode{}
	var order []string
	for _, it := range items {
		key := it.GetKind() + "/" + it.GetNamespace() + "/" + it.GetName()
		t := byName[key]
		if t == nil {
			t = &[3]*yaml.RNode{}
			byName[key] = t
			order = append(order, key)
		}
		switch it.GetAnnotations()["config.kubernetes.io/merge-source"] {
		case "original":
			t[0] = it
		case "updated":
			t[1] = it
		case "dest":
			t[2] = it
		}
	}
	var out [][3]*yaml.RNode
	for _, k := range order {
		if t := byName[k]; t[0] != nil && t[1] != nil && t[2] != nil {
			out = append(out, *t)
		}
	}
	return out
}

// BenchmarkEngine3Way: krm-merge's field engine on realistic resources, per resource,
// as the function runs it (ThreeWay with Options.Share: only changed maps and lists are copied).
func BenchmarkEngine3Way(b *testing.B) {
	ts := triples(b, 300)
	opts := merge.Options{Lists: schema.New(schema.Options{OpenAPI: true}), Share: true}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := ts[i%len(ts)]
		if _, err := merge.ThreeWay(t[0], t[1], t[2], opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKyamlMerge3: kyaml's merge3 walker on the same resources (it changes dest,
// so each run merges into a copy, as filters.Merge3 does).
func BenchmarkKyamlMerge3(b *testing.B) {
	ts := triples(b, 300)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := ts[i%len(ts)]
		if _, err := merge3.Merge(t[2].Copy(), t[0].Copy(), t[1].Copy()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEngine2Way and BenchmarkKyamlMerge2: updated merged into dest, 2-way
// (TwoWay with Options.Share, as the function runs it).
func BenchmarkEngine2Way(b *testing.B) {
	ts := triples(b, 300)
	opts := merge.Options{Lists: schema.New(schema.Options{OpenAPI: true}), Share: true}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := ts[i%len(ts)]
		if _, err := merge.TwoWay(t[1], t[2], opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkKyamlMerge2(b *testing.B) {
	ts := triples(b, 300)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := ts[i%len(ts)]
		if _, err := merge2.Merge(t[1].Copy(), t[2].Copy(), yaml.MergeOptions{ListIncreaseDirection: yaml.MergeOptionsListAppend}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchKeyed runs function.Run on one resource whose keyed list has n elements.
func benchKeyed(b *testing.B, kind string, n int) {
	items, cfg, err := bench.KeyedListItems(kind, n)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := function.Run(items, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkKeyedEnv2000(b *testing.B)  { benchKeyed(b, "env", 2000) }
func BenchmarkKeyedEnv20000(b *testing.B) { benchKeyed(b, "env", 20000) }
func BenchmarkKeyedCR2000(b *testing.B)   { benchKeyed(b, "cr", 2000) }
func BenchmarkKeyedCR20000(b *testing.B)  { benchKeyed(b, "cr", 20000) }

// BenchmarkKyamlMerge3KeyedEnv2000: kyaml's walker on the 2,000-element env list (it
// compares every element with every other; 20,000 does not finish).
func BenchmarkKyamlMerge3KeyedEnv2000(b *testing.B) {
	items, _, err := bench.KeyedListItems("env", 2000)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := merge3.Merge(items[2].Copy(), items[0].Copy(), items[1].Copy()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFastPath3Way1000 and BenchmarkKyamlPath3Way1000: the whole function on a
// generated 1,000-resource list through the fast reader/writer and through kyaml's
// framework.Execute.
func BenchmarkFastPath3Way1000(b *testing.B) {
	in := list(b, 1000)
	b.SetBytes(int64(len(in)))
	for i := 0; i < b.N; i++ {
		if err := serve(in, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkKyamlPath3Way1000(b *testing.B) {
	in := list(b, 1000)
	b.SetBytes(int64(len(in)))
	for i := 0; i < b.N; i++ {
		rw := &kio.ByteReadWriter{Reader: bytes.NewReader(in), Writer: io.Discard, KeepReaderAnnotations: true}
		if err := framework.Execute(function.Processor{}, rw); err != nil {
			b.Fatal(err)
		}
	}
}

func list(b *testing.B, n int) []byte {
	var in bytes.Buffer
	if _, err := gen.ResourceList(&in, gen.Options{Resources: n, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	return in.Bytes()
}

// errDeclined is serve's error for input the fast reader declines.
var errDeclined = errors.New("the fast reader declined the input")

// serve runs the function on a ResourceList through its fast reader and writer
// (function.Serve), failing with errDeclined where the run would fall back to kyaml's.
func serve(in []byte, w io.Writer) error {
	return function.Serve(bytes.NewReader(in), w, io.Discard, func(io.Reader) error { return errDeclined }, function.Memory{})
}
