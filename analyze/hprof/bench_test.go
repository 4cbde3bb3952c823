package hprof

import (
	"os"
	"testing"
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
