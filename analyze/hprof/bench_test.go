package hprof

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/leakui/leakui/analyze"
)

// BenchmarkOpenAndReport measures the whole analysis of a heap dump: the three
// passes, the dominator tree, the histogram with retained sizes, the suspects and
// their paths. The dump is LEAKUI_HPROF_BENCH_DUMP when set (bench/hprof-vs-cat.sh
// makes a 1 GiB one), else a dump of testdata/BigHeap.java with 200,000 entries
// (800,000 objects, about 60 MB) made on demand on the JDK.
func BenchmarkOpenAndReport(b *testing.B) {
	path := os.Getenv("LEAKUI_HPROF_BENCH_DUMP")
	if path == "" {
		path = runJava(b, "BigHeap", false, []string{"-XX:+UseParallelGC", "-Xmx512m"}, "200000", "150").Dump
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	var objects int
	for b.Loop() {
		h, err := Open(path, OpenOptions{TempDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := h.NewReport(ReportOptions{}, nil); err != nil {
			b.Fatal(err)
		}
		objects = h.Objects()
		h.Close()
	}
	b.ReportMetric(float64(objects)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
}

// benchHeap opens and analyzes the benchmark dump (see BenchmarkOpenAndReport).
func benchHeap(b *testing.B) *Heap {
	b.Helper()
	path := os.Getenv("LEAKUI_HPROF_BENCH_DUMP")
	if path == "" {
		path = runJava(b, "BigHeap", false, []string{"-XX:+UseParallelGC", "-Xmx512m"}, "200000", "150").Dump
	}
	budget := analyze.NewBudget(0).Child(0)
	h, err := Open(path, OpenOptions{TempDir: b.TempDir(), Options: Options{Budget: budget}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	if _, err := h.NewReport(ReportOptions{}, nil); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d objects: %s charged to the budget after the analysis, %s at the peak", h.Objects(),
		analyze.FormatBytes(budget.Used()), analyze.FormatBytes(h.mem.peak))
	return h
}

// BenchmarkWriteIndex measures writing the index of the benchmark dump to a file,
// and reports its size per object.
func BenchmarkWriteIndex(b *testing.B) {
	h := benchHeap(b)
	path := filepath.Join(b.TempDir(), "index")
	var size int64
	for b.Loop() {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if size, err = h.WriteIndex(f); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(size)
	b.ReportMetric(float64(size), "index-bytes")
	b.ReportMetric(float64(size)/float64(h.Objects()), "bytes/object")
}

// BenchmarkIndexChildren measures a page of 50 children read from an index file:
// the top level, then the largest child of each level down.
func BenchmarkIndexChildren(b *testing.B) {
	h := benchHeap(b)
	path := filepath.Join(b.TempDir(), "index")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	size, err := h.WriteIndex(f)
	if err != nil {
		b.Fatal(err)
	}
	x, err := OpenIndex(f, size)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var nodes []uint32
	for node := IndexRoot; len(nodes) < 8; {
		nodes = append(nodes, node)
		page, _, err := x.Children(node, 0, 1)
		if err != nil {
			b.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		node = page[0].Ordinal
	}
	i := 0
	for b.Loop() {
		if _, _, err := x.Children(nodes[i%len(nodes)], 0, 50); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkCheckFraming measures the synchronous framing check of an upload on
// the benchmark dump (see BenchmarkOpenAndReport): record headers only, the
// bodies skipped.
func BenchmarkCheckFraming(b *testing.B) {
	path := os.Getenv("LEAKUI_HPROF_BENCH_DUMP")
	if path == "" {
		path = runJava(b, "BigHeap", false, []string{"-XX:+UseParallelGC", "-Xmx512m"}, "200000", "150").Dump
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		if err := CheckFraming(f, st.Size()); err != nil {
			b.Fatal(err)
		}
	}
}
