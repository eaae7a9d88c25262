package resourcelist

import (
	"bytes"
	"io"
	"testing"

	"github.com/krm-merge/krm-merge/bench/gen"
)

// BenchmarkKeepEncode times what keeping adds to a run on the 3-way list of 1,000
// resources of bench/ (its items as kyaml writes them): encoding the items as read
// ("encode-inputs"), against writing them ("write", what every run does).
func BenchmarkKeepEncode(b *testing.B) {
	var in bytes.Buffer
	if _, err := gen.ResourceList(&in, gen.Options{Resources: 1000}); err != nil {
		b.Fatal(err)
	}
	b.Run("encode-inputs", func(b *testing.B) {
		l, err := Read(in.Bytes())
		if err != nil {
			b.Fatal(err)
		}
		texts := append([][]byte(nil), l.in.text...)
		b.SetBytes(int64(in.Len()))
		for b.Loop() {
			copy(l.in.text, texts) // encode drops the texts it need not keep
			l.in.encode(l.Items)
			kept := 0
			for _, t := range l.in.text {
				if t != nil {
					kept++
				}
			}
			b.ReportMetric(float64(kept), "kept-items")
		}
	})
	b.Run("write", func(b *testing.B) {
		l, err := Read(in.Bytes())
		if err != nil {
			b.Fatal(err)
		}
		l.in = nil
		b.SetBytes(int64(in.Len()))
		for b.Loop() {
			if err := Write(io.Discard, l); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if l, err = Read(in.Bytes()); err != nil {
				b.Fatal(err)
			}
			l.in = nil
			b.StartTimer()
		}
	})
}
