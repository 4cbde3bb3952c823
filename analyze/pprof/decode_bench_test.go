package pprof

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/leakui/leakui/internal/hostile"
)

// benchProfile is shaped like bench/genprofile -depth 9: a heap profile of
// 262,144 distinct stacks, each 4-ary recursion nine calls deep under a few
// runtime frames, gzipped as the runtime writes it.
var benchProfile = sync.OnceValue(func() []byte {
	p := hostile.Profile{SampleTypes: hostile.Heap}
	const depth = 9
	for path := range 1 << (2 * depth) {
		stack := []string{"runtime.mallocgc", "runtime.makeslice", "main.step"}
		for d, x := 0, path; d < depth; d, x = d+1, x/4 {
			stack = append(stack, fmt.Sprintf("main.a%d", x%4), "main.step")
		}
		stack = append(stack, "main.main", "runtime.main", "runtime.goexit")
		p.Samples = append(p.Samples, hostile.Sample{Stack: stack, Values: []int64{1, int64(path%4096 + 1), 1, int64(path%4096 + 1)}})
	}
	return hostile.Gzip(p.Encode())
})

// BenchmarkDecodeBenchProfile measures loading the benchmark profile (the
// decoder's memory is proportional to the content).
func BenchmarkDecodeBenchProfile(b *testing.B) {
	data := benchProfile()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Open(Reader(bytes.NewReader(data)), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTopBenchProfile measures what `leakui top` does: load and top.
func BenchmarkTopBenchProfile(b *testing.B) {
	data := benchProfile()
	b.ReportAllocs()
	for b.Loop() {
		p, err := Open(Reader(bytes.NewReader(data)), Options{})
		if err != nil {
			b.Fatal(err)
		}
		p.Top(p.DefaultSampleIndex())
	}
}

// BenchmarkTopTextBenchProfile measures `leakui top`'s text (go tool pprof -top's)
// printed from the decoded profile.
func BenchmarkTopTextBenchProfile(b *testing.B) {
	data := benchProfile()
	b.ReportAllocs()
	for b.Loop() {
		p, err := Open(Reader(bytes.NewReader(data)), Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := p.WriteTop(io.Discard, TextOptions{SampleIndex: p.DefaultSampleIndex(), NodeFraction: DefaultNodeFraction, EdgeFraction: DefaultEdgeFraction}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStreamedTopTextBenchProfile measures `leakui top`'s text from the
// streamed profile: the tables' pass and the walks over the samples, each
// decompressing the file again.
func BenchmarkStreamedTopTextBenchProfile(b *testing.B) {
	data := benchProfile()
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	b.ReportAllocs()
	for b.Loop() {
		sp, err := openStreamed(open, 0, nil)
		if err != nil {
			b.Fatal(err)
		}
		si := sp.DefaultSampleIndex()
		if err := sp.WriteTop(io.Discard, TextOptions{SampleIndex: si, NodeFraction: DefaultNodeFraction, EdgeFraction: DefaultEdgeFraction}); err != nil {
			b.Fatal(err)
		}
		sp.Close()
	}
}
