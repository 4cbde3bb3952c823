package jvm

import (
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/jvmtext"
)

// BenchmarkParseHistogram50k parses a 50,000-row histogram.
func BenchmarkParseHistogram50k(b *testing.B) {
	text := jvmtext.BigHistogram(50_000, 0)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		h, err := ParseHistogram(strings.NewReader(text))
		if err != nil || len(h.Classes) != 50_000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkDiffHistograms50k diffs two 50,000-row histograms and ranks the
// growth both ways and the suspects (what the diff page and CLI show).
func BenchmarkDiffHistograms50k(b *testing.B) {
	base, _ := ParseHistogram(strings.NewReader(jvmtext.BigHistogram(50_000, 0)))
	target, _ := ParseHistogram(strings.NewReader(jvmtext.BigHistogram(50_000, 1000)))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		d := DiffHistograms(base, target)
		if len(d.Grown(ByBytes, 20)) != 20 || len(d.Grown(ByInstances, 20)) != 20 || len(d.Suspects(20)) == 0 {
			b.Fatal("no growth")
		}
	}
}

// BenchmarkAnalyzeHistogramPair50k is the whole two-file path: parse both
// histograms, diff, and the headline (the Markdown summary is rendered and
// measured in package web).
func BenchmarkAnalyzeHistogramPair50k(b *testing.B) {
	baseText, targetText := jvmtext.BigHistogram(50_000, 0), jvmtext.BigHistogram(50_000, 1000)
	b.SetBytes(int64(len(baseText) + len(targetText)))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		base, err1 := ParseHistogram(strings.NewReader(baseText))
		target, err2 := ParseHistogram(strings.NewReader(targetText))
		if err1 != nil || err2 != nil {
			b.Fatal(err1, err2)
		}
		_ = DiffHistograms(base, target).Headline()
	}
}

// BenchmarkHistogramSnapshot50k builds the series shape of a 50,000-row histogram.
func BenchmarkHistogramSnapshot50k(b *testing.B) {
	h, _ := ParseHistogram(strings.NewReader(jvmtext.BigHistogram(50_000, 0)))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		_ = h.Snapshot()
	}
}

// BenchmarkAnalyzeThreads5000 parses a 5,000-thread dump and groups it.
func BenchmarkAnalyzeThreads5000(b *testing.B) {
	text := jvmtext.BigDump(5000)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		tf, err := ParseThreadDumps(strings.NewReader(text))
		if err != nil || tf.Threads() != 5000 {
			b.Fatal(err)
		}
		if g := GroupThreads(tf.Dumps[0]); len(g.Groups) != 100 {
			b.Fatalf("%d groups", len(g.Groups))
		}
	}
}

// BenchmarkGroupThreads5000 groups an already parsed 5,000-thread dump.
func BenchmarkGroupThreads5000(b *testing.B) {
	tf, _ := ParseThreadDumps(strings.NewReader(jvmtext.BigDump(5000)))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		_ = GroupThreads(tf.Dumps[0])
	}
}

// BenchmarkDiffThreads5000 diffs two grouped 5,000-thread dumps.
func BenchmarkDiffThreads5000(b *testing.B) {
	tf1, _ := ParseThreadDumps(strings.NewReader(jvmtext.BigDump(4000)))
	tf2, _ := ParseThreadDumps(strings.NewReader(jvmtext.BigDump(5000)))
	g1, g2 := GroupThreads(tf1.Dumps[0]), GroupThreads(tf2.Dumps[0])
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		_ = DiffThreads(g1, g2).Headline()
	}
}

// BenchmarkParseNMT parses a summary.diff and computes its baseline diff.
func BenchmarkParseNMT(b *testing.B) {
	text := nmtDiffText(kafkaBroker("Internal", 1<<30))
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		n, err := ParseNMT(strings.NewReader(text))
		if err != nil || n.BaselineDiff().NativeLeak == nil {
			b.Fatal(err)
		}
	}
}
