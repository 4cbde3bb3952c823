package web

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
	"github.com/leakui/leakui/internal/jvmtext"
)

// jvmHistogramText prints rows as `jmap -histo` of JDK 9+ does, sorted by bytes,
// with a `date` line before it when stamp is set. It returns the text and the
// totals it printed on the Total line.
func jvmHistogramText(stamp string, rows []jvmtext.Class) (text string, instances, bytesTotal int64) {
	rows = slices.Clone(rows)
	jvmtext.SortByBytes(rows)
	text = jvmtext.Histogram(jvmtext.JDK9, rows)
	if stamp != "" {
		text = stamp + "\n" + text
	}
	instances, bytesTotal = jvmtext.Totals(rows)
	return text, instances, bytesTotal
}

// The SAMZA-2785 class names.
const (
	jvmSamzaConsumer = "org.apache.samza.system.kafka.KafkaSystemConsumer"
	jvmKafkaConsumer = "org.apache.kafka.clients.consumer.KafkaConsumer"
)

// jvmSamzaHeap is a Samza container's heap with n leaked KafkaSystemConsumers, each
// holding a KafkaConsumer and about 4.7 MB of fetch buffers (so that 1,741 of them
// make the 8 GB of the production report).
func jvmSamzaHeap(n int64) []jvmtext.Class {
	return []jvmtext.Class{
		{Name: "[B", Module: "java.base@11.0.20", Instances: 90_000 + 2000*n, Bytes: 600_000_000 + 4_900_000*n},
		{Name: jvmSamzaConsumer, Instances: n, Bytes: 152 * n},
		{Name: jvmKafkaConsumer, Instances: n, Bytes: 120 * n},
		{Name: "org.apache.kafka.clients.consumer.internals.Fetcher", Instances: n, Bytes: 96 * n},
		{Name: "java.util.concurrent.LinkedBlockingQueue", Module: "java.base@11.0.20", Instances: 400 + 64*n, Bytes: 19_200 + 3072*n},
		{Name: "java.lang.String", Module: "java.base@11.0.20", Instances: 1_000_000, Bytes: 24_000_000},
		{Name: "[Ljava.lang.Object;", Module: "java.base@11.0.20", Instances: 50_000, Bytes: 4_000_000},
		{Name: "com.example.Unchanged", Instances: 10, Bytes: 160},
	}
}

// The folded name of the poll threads pollThreads writes.
const jvmPollPattern = "Samza KafkaConsumerProxy Poll SamzaContainerThread-… - kafka"

// jvmPollThreads returns n KafkaConsumerProxy poll threads of a Samza container.
func jvmPollThreads(n int) []jvmtext.Thread {
	out := make([]jvmtext.Thread, n)
	for i := range out {
		out[i] = jvmtext.Thread{
			Name: fmt.Sprintf("Samza KafkaConsumerProxy Poll SamzaContainerThread-%d - kafka", i), Daemon: true, State: "RUNNABLE", Status: "runnable",
			Frames: []string{
				"sun.nio.ch.EPollArrayWrapper.epollWait(Native Method)",
				"sun.nio.ch.SelectorImpl.lockAndDoSelect(SelectorImpl.java:86)",
				"- locked ADDR (a sun.nio.ch.EPollSelectorImpl)",
				"org.apache.kafka.clients.consumer.KafkaConsumer.poll(KafkaConsumer.java:1175)",
				"org.apache.samza.system.kafka.KafkaConsumerProxy$1.run(KafkaConsumerProxy.java:177)",
				"java.lang.Thread.run(Thread.java:748)",
			},
		}
	}
	return out
}

// jvmContainerThreads are the threads every Samza container has.
func jvmContainerThreads() []jvmtext.Thread {
	return []jvmtext.Thread{
		{Name: "main", State: "RUNNABLE", Status: "runnable", Frames: []string{
			"org.apache.samza.container.SamzaContainer.run(SamzaContainer.scala:712)",
			"org.apache.samza.runtime.LocalContainerRunner.main(LocalContainerRunner.java:103)",
		}},
		{Name: "Finalizer", Daemon: true, State: "WAITING (on object monitor)", Status: "in Object.wait()", Frames: []string{
			"java.lang.Object.wait(Native Method)",
			"- waiting on ADDR (a java.lang.ref.ReferenceQueue$Lock)",
			"java.lang.ref.Finalizer$FinalizerThread.run(Finalizer.java:216)",
		}},
	}
}

// jvmNMTCategory is one category of a native memory report a test writes, in KB.
type jvmNMTCategory struct {
	name                string
	reserved, committed int64
}

// jvmNMTSummaryText writes `jcmd <pid> VM.native_memory summary scale=KB` of JDK 8
// (compare nmt-summary-jdk8-1529threads-KB.txt), with a `date` line before it.
func jvmNMTSummaryText(stamp string, cats []jvmNMTCategory) (text string, reservedKB, committedKB int64) {
	for _, c := range cats {
		reservedKB += c.reserved
		committedKB += c.committed
	}
	var b strings.Builder
	if stamp != "" {
		b.WriteString(stamp + "\n")
	}
	fmt.Fprintf(&b, "5545:\n\nNative Memory Tracking:\n\nTotal: reserved=%dKB, committed=%dKB\n", reservedKB, committedKB)
	for _, c := range cats {
		fmt.Fprintf(&b, "-%26s (reserved=%dKB, committed=%dKB)\n", c.name, c.reserved, c.committed)
		fmt.Fprintf(&b, "%s(malloc=%dKB #1000)\n\n", strings.Repeat(" ", 28), c.committed/2)
	}
	return b.String(), reservedKB, committedKB
}

// jvmKafkaBroker is a Kafka broker's JVM during log recovery (KAFKA-3933): a 1 GB
// heap that stays put and leakedKB of native memory in Internal.
func jvmKafkaBroker(leakedKB int64) []jvmNMTCategory {
	return []jvmNMTCategory{
		{"Java Heap", 4194304, 1048576},
		{"Class", 1126400, 71680},
		{"Thread", 133120, 133120},
		{"Code", 256000, 37888},
		{"GC", 163840, 163840},
		{"Internal", 12288 + leakedKB, 12288 + leakedKB},
		{"Symbol", 16384, 16384},
	}
}

// jvmGrepCount runs `grep -ac PATTERN PATH`.
func jvmGrepCount(t testing.TB, pattern, path string) int {
	return int(greptest.CountWith(t, "-a", "--", pattern, path))
}

// jvmTDAHistogram cuts the class histogram out of the TDA fixture (from its header to
// its Total line) as a standalone `jmap -histo` file, and returns the Total line's
// numbers as grep reads them.
func jvmTDAHistogram(t testing.TB) (data []byte, instances, bytesTotal int64) {
	t.Helper()
	path := fixtures.Path(t, "jvm", "tda-jdk15-threaddump-with-class-histogram.log")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(raw, []byte("num   #instances"))
	total := bytes.Index(raw, []byte("\nTotal "))
	end := bytes.IndexByte(raw[total+1:], '\n')
	if start < 0 || total < 0 || end < 0 {
		t.Fatal("the TDA fixture has no histogram")
	}
	totals := greptest.Output(t, "-a", "--", "^Total", path)
	if len(totals) != 1 {
		t.Fatalf("grep finds %d Total lines", len(totals))
	}
	f := strings.Fields(totals[0])
	return raw[start : total+1+end+1], greptest.Int(t, f[1]), greptest.Int(t, f[2])
}

// jvmParseHistogram is the engine's reading of a histogram file, for comparisons.
func jvmParseHistogram(t testing.TB, b []byte) *jvm.Histogram {
	t.Helper()
	h, err := jvm.ParseHistogram(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// jvmNMTDiffText writes `jcmd <pid> VM.native_memory summary.diff scale=KB` from a
// baseline and current categories of the same names (MemSummaryDiffReporter: a
// delta is printed only when it is not zero).
func jvmNMTDiffText(base, cur []jvmNMTCategory) (text string, committedDeltaKB int64) {
	pair := func(now, before int64) string {
		s := fmt.Sprintf("%dKB", now)
		if d := now - before; d != 0 {
			s += fmt.Sprintf(" %+dKB", d)
		}
		return s
	}
	var tr, tc, br, bc int64
	for i := range cur {
		tr, tc, br, bc = tr+cur[i].reserved, tc+cur[i].committed, br+base[i].reserved, bc+base[i].committed
	}
	var b strings.Builder
	fmt.Fprintf(&b, "5545:\n\nNative Memory Tracking:\n\nTotal: reserved=%s, committed=%s\n\n", pair(tr, br), pair(tc, bc))
	for i, c := range cur {
		fmt.Fprintf(&b, "-%26s (reserved=%s, committed=%s)\n\n", c.name, pair(c.reserved, base[i].reserved), pair(c.committed, base[i].committed))
	}
	return b.String(), tc - bc
}
