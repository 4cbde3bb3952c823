package web

import (
	"strings"
	"testing"
)

// BenchmarkHeapDumpComparePage serves the comparison of two real heap dumps of
// LeakShape (2 and 8 consumers) as a page and as JSON, and, as the anchor, the
// histogram diff page of jcmd's class histograms of the same two heaps: a
// comparison is the same diff with the retained sizes beside it, read from the
// stored summary rather than parsed from files.
func BenchmarkHeapDumpComparePage(b *testing.B) {
	srv := jvmBenchServer(b)
	small, _, smallText := leakShapeRunText(b, 2, 64<<10)
	large, _, largeText := leakShapeRunText(b, 8, 64<<10)
	dumps := jvmBenchUpload(b, srv, small, large)
	histos := jvmBenchUpload(b, srv, file{"small.histo", smallText}, file{"large.histo", largeText})
	b.Run("dumps", func(b *testing.B) { jvmBenchPage(b, srv, dumps) })
	b.Run("dumps-json", func(b *testing.B) { jvmBenchPage(b, srv, strings.Replace(dumps, "/r/", "/api/reports/", 1)) })
	b.Run("histograms", func(b *testing.B) { jvmBenchPage(b, srv, histos) })
}
