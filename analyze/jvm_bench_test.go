package analyze

import (
	"fmt"
	"strings"
	"testing"
)

// javaBigHistogram returns a JDK 9+ histogram of n classes (as jmap -histo prints it
// for a large application), sorted by bytes; grow adds instances to every 100th class.
func javaBigHistogram(n int, grow int64) string {
	rows := make([]javaHistoRow, n)
	for i := range rows {
		inst := int64(n-i) * 3
		if i%100 == 5 {
			inst += grow
		}
		name, module := fmt.Sprintf("com.example.generated.pkg%03d.Class%05d$Inner", i%997, i), ""
		switch i % 10 {
		case 0:
			name, module = fmt.Sprintf("[Lcom.example.generated.Type%05d;", i), ""
		case 1:
			name, module = fmt.Sprintf("jdk.internal.reflect.GeneratedMethodAccessor%d", i), "java.base@21.0.2"
		}
		rows[i] = javaHistoRow{name: name, module: module, instances: inst, bytes: inst * 24}
	}
	for i := range rows { // sorted by bytes, as the JVM prints
		for j := i; j > 0 && rows[j].bytes > rows[j-1].bytes; j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
	return javaHistogramText("jdk9", rows)
}

// javaBigDump returns a jstack dump of n threads spread over about n/50 distinct
// stacks of 20 to 40 frames, with lock lines, as a large application server has.
func javaBigDump(n int) string {
	threads := make([]javaTestThread, n)
	for i := range threads {
		stack := i % max(1, n/50)
		depth := 20 + stack%21
		frames := make([]string, 0, depth+2)
		for f := range depth {
			frames = append(frames, fmt.Sprintf("com.example.service%03d.Handler%02d.step%02d(Handler%02d.java:%d)", stack, f%7, f, f%7, 100+f))
			if f == 2 {
				frames = append(frames, "- locked ADDR (a java.lang.Object)")
			}
		}
		frames = append(frames, "java.lang.Thread.run(Thread.java:750)")
		threads[i] = javaTestThread{name: fmt.Sprintf("pool-%d-thread-%d", stack, i), daemon: i%3 == 0,
			state: "WAITING (parking)", status: "waiting on condition", frames: frames}
	}
	return javaDumpText("2024-05-01 12:00:00", threads)
}

// BenchmarkParseJavaHistogram50k parses a 50,000-row histogram.
func BenchmarkParseJavaHistogram50k(b *testing.B) {
	text := javaBigHistogram(50_000, 0)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	defer javaReportCPU(b)()
	for b.Loop() {
		h, err := ParseJavaHistogram(strings.NewReader(text))
		if err != nil || len(h.Classes) != 50_000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkDiffJavaHistograms50k diffs two 50,000-row histograms and ranks the
// growth both ways and the suspects (what the diff page and CLI show).
func BenchmarkDiffJavaHistograms50k(b *testing.B) {
	base, _ := ParseJavaHistogram(strings.NewReader(javaBigHistogram(50_000, 0)))
	target, _ := ParseJavaHistogram(strings.NewReader(javaBigHistogram(50_000, 1000)))
	b.ReportAllocs()
	defer javaReportCPU(b)()
	for b.Loop() {
		d := DiffJavaHistograms(base, target)
		if len(d.Grown(JavaByBytes, 20)) != 20 || len(d.Grown(JavaByInstances, 20)) != 20 || len(d.Suspects(20)) == 0 {
			b.Fatal("no growth")
		}
	}
}

// BenchmarkAnalyzeJavaHistogramPair50k is the whole two-file path: parse both
// histograms, diff, render the Markdown summary.
func BenchmarkAnalyzeJavaHistogramPair50k(b *testing.B) {
	baseText, targetText := javaBigHistogram(50_000, 0), javaBigHistogram(50_000, 1000)
	b.SetBytes(int64(len(baseText) + len(targetText)))
	b.ReportAllocs()
	defer javaReportCPU(b)()
	for b.Loop() {
		base, err1 := ParseJavaHistogram(strings.NewReader(baseText))
		target, err2 := ParseJavaHistogram(strings.NewReader(targetText))
		if err1 != nil || err2 != nil {
			b.Fatal(err1, err2)
		}
		_ = DiffJavaHistograms(base, target).Markdown(20)
	}
}

// BenchmarkJavaHistogramSnapshot50k builds the series shape of a 50,000-row histogram.
func BenchmarkJavaHistogramSnapshot50k(b *testing.B) {
	h, _ := ParseJavaHistogram(strings.NewReader(javaBigHistogram(50_000, 0)))
	b.ReportAllocs()
	defer javaReportCPU(b)()
	for b.Loop() {
		_ = h.Snapshot()
	}
}

// BenchmarkAnalyzeJavaThreads5000 parses a 5,000-thread dump and groups it.
func BenchmarkAnalyzeJavaThreads5000(b *testing.B) {
	text := javaBigDump(5000)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	defer javaReportCPU(b)()
	for b.Loop() {
		tf, err := ParseJavaThreadDumps(strings.NewReader(text))
		if err != nil || tf.Threads() != 5000 {
			b.Fatal(err)
		}
		if g := GroupJavaThreads(tf.Dumps[0]); len(g.Groups) != 100 {
			b.Fatalf("%d groups", len(g.Groups))
		}
	}
}

// BenchmarkGroupJavaThreads5000 groups an already parsed 5,000-thread dump.
func BenchmarkGroupJavaThreads5000(b *testing.B) {
	tf, _ := ParseJavaThreadDumps(strings.NewReader(javaBigDump(5000)))
	b.ReportAllocs()
	defer javaReportCPU(b)()
	for b.Loop() {
		_ = GroupJavaThreads(tf.Dumps[0])
	}
}

// BenchmarkDiffJavaThreads5000 diffs two grouped 5,000-thread dumps.
func BenchmarkDiffJavaThreads5000(b *testing.B) {
	tf1, _ := ParseJavaThreadDumps(strings.NewReader(javaBigDump(4000)))
	tf2, _ := ParseJavaThreadDumps(strings.NewReader(javaBigDump(5000)))
	g1, g2 := GroupJavaThreads(tf1.Dumps[0]), GroupJavaThreads(tf2.Dumps[0])
	b.ReportAllocs()
	defer javaReportCPU(b)()
	for b.Loop() {
		_ = DiffJavaThreads(g1, g2).Markdown(20)
	}
}

// BenchmarkParseJavaNMT parses a summary.diff and computes its baseline diff.
func BenchmarkParseJavaNMT(b *testing.B) {
	text := javaNMTDiffText(kafkaBroker("Internal", 1<<30))
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	defer javaReportCPU(b)()
	for b.Loop() {
		n, err := ParseJavaNMT(strings.NewReader(text))
		if err != nil || n.BaselineDiff().NativeLeak == nil {
			b.Fatal(err)
		}
	}
}
