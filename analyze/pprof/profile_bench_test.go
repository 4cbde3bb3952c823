package pprof

import (
	"bytes"
	"os"
	"testing"

	"github.com/leakui/leakui/internal/fixtures"
)

// BenchmarkLoadProfile measures decompressing and decoding the largest real heap
// profile of the fixtures (erigon, 54,395 samples).
func BenchmarkLoadProfile(b *testing.B) {
	data, err := os.ReadFile(fixtures.Path(b, "pprof", "erigon-integration-heap.pb.gz"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Open(Reader(bytes.NewReader(data)), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTop measures the top table of a loaded profile.
func BenchmarkTop(b *testing.B) {
	p := loadFile(b, fixtures.Path(b, "pprof", "erigon-integration-heap.pb.gz"))
	si := p.DefaultSampleIndex()
	b.ReportAllocs()
	for b.Loop() {
		p.Top(si)
	}
}

// BenchmarkSandwich measures the sandwich of the function with the largest cum
// below the root frames of the same profile as BenchmarkTop, which is its
// in-process anchor: both walk every sample once.
func BenchmarkSandwich(b *testing.B) {
	p := loadFile(b, fixtures.Path(b, "pprof", "erigon-integration-heap.pb.gz"))
	si := p.DefaultSampleIndex()
	top := mustTop(b, p, si)
	name, best := "", int64(0)
	for _, r := range top.Rows {
		if r.Cum > best && r.Cum < top.Total {
			name, best = r.Name, r.Cum
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Sandwich(si, name); err != nil {
			b.Fatal(err)
		}
	}
}
