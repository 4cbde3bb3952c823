package jvm

import (
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/jvmtext"
)

// BenchmarkParseJavaHistogram50k parses a 50,000-row histogram.
func BenchmarkParseJavaHistogram50k(b *testing.B) {
	text := jvmtext.BigHistogram(50_000, 0)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	defer javaReportCPU(b)()
	for b.Loop() {
		h, err := ParseHistogram(strings.NewReader(text))
		if err != nil || len(h.Classes) != 50_000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkDiffJavaHistograms50k diffs two 50,000-row histograms and ranks the
// growth both ways and the suspects (what the diff page and CLI show).
func BenchmarkDiffJavaHistograms50k(b *testing.B) {
	base, _ := ParseHistogram(strings.NewReader(jvmtext.BigHistogram(50_000, 0)))
	target, _ := ParseHistogram(strings.NewReader(jvmtext.BigHistogram(50_000, 1000)))
	b.ReportAllocs()
	defer javaReportCPU(b)()
	for b.Loop() {
		d := DiffHistograms(base, target)
		if len(d.Grown(ByBytes, 20)) != 20 || len(d.Grown(ByInstances, 20)) != 20 || len(d.Suspects(20)) == 0 {
			b.Fatal("no growth")
		}
	}
}

// BenchmarkAnalyzeJavaHistogramPair50k is the whole two-file path: parse both
// histograms, diff, and the headline (the Markdown summary is rendered and
// measured in package web).
func BenchmarkAnalyzeJavaHistogramPair50k(b *testing.B) {
	baseText, targetText := jvmtext.BigHistogram(50_000, 0), jvmtext.BigHistogram(50_000, 1000)
	b.SetBytes(int64(len(baseText) + len(targetText)))
	b.ReportAllocs()
	defer javaReportCPU(b)()
	for b.Loop() {
		base, err1 := ParseHistogram(strings.NewReader(baseText))
		target, err2 := ParseHistogram(strings.NewReader(targetText))
		if err1 != nil || err2 != nil {
			b.Fatal(err1, err2)
		}
		_ = DiffHistograms(base, target).Headline()
	}
}

// BenchmarkJavaHistogramSnapshot50k builds the series shape of a 50,000-row histogram.
func BenchmarkJavaHistogramSnapshot50k(b *testing.B) {
	h, _ := ParseHistogram(strings.NewReader(jvmtext.BigHistogram(50_000, 0)))
	b.ReportAllocs()
	defer javaReportCPU(b)()
	for b.Loop() {
		_ = h.Snapshot()
	}
}

// BenchmarkAnalyzeJavaThreads5000 parses a 5,000-thread dump and groups it.
func BenchmarkAnalyzeJavaThreads5000(b *testing.B) {
	text := jvmtext.BigDump(5000)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	defer javaReportCPU(b)()
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

// BenchmarkGroupJavaThreads5000 groups an already parsed 5,000-thread dump.
func BenchmarkGroupJavaThreads5000(b *testing.B) {
	tf, _ := ParseThreadDumps(strings.NewReader(jvmtext.BigDump(5000)))
	b.ReportAllocs()
	defer javaReportCPU(b)()
	for b.Loop() {
		_ = GroupThreads(tf.Dumps[0])
	}
}

// BenchmarkDiffJavaThreads5000 diffs two grouped 5,000-thread dumps.
func BenchmarkDiffJavaThreads5000(b *testing.B) {
	tf1, _ := ParseThreadDumps(strings.NewReader(jvmtext.BigDump(4000)))
	tf2, _ := ParseThreadDumps(strings.NewReader(jvmtext.BigDump(5000)))
	g1, g2 := GroupThreads(tf1.Dumps[0]), GroupThreads(tf2.Dumps[0])
	b.ReportAllocs()
	defer javaReportCPU(b)()
	for b.Loop() {
		_ = DiffThreads(g1, g2).Headline()
	}
}

// BenchmarkParseJavaNMT parses a summary.diff and computes its baseline diff.
func BenchmarkParseJavaNMT(b *testing.B) {
	text := javaNMTDiffText(kafkaBroker("Internal", 1<<30))
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	defer javaReportCPU(b)()
	for b.Loop() {
		n, err := ParseNMT(strings.NewReader(text))
		if err != nil || n.BaselineDiff().NativeLeak == nil {
			b.Fatal(err)
		}
	}
}
