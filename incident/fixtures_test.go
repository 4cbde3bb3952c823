package incident

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze/capture"
	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/analyze/hprof"
	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/internal/fixtures"
)

// The evidence of the real fixtures under testdata/, each run through its
// analysis as the server runs it, with the link its report would have.

// heapSeries is Parca's own heap over three snapshots (47.8 MB, 47.8 MB,
// 137 MB in 27 s): too few snapshots for a change that large.
func heapSeries(t *testing.T) Evidence {
	t.Helper()
	var snaps []pprof.Snapshot
	for _, name := range []string{"parca-self-heap-t0-1644509272.pb.gz", "parca-self-heap-t6-1644509290.pb.gz", "parca-self-heap-t9-1644509299.pb.gz"} {
		f, err := os.Open(fixtures.Path(t, "pprof", name))
		if err != nil {
			t.Fatal(err)
		}
		p, err := pprof.Open(pprof.Reader(f), pprof.Options{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, pprof.Snapshot{Name: name, Profile: p})
	}
	rep, err := pprof.Series(snaps, series.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return FromSeries("heap series", "parca-self-heap-t0-1644509272.pb.gz", Heap, rep, "/r/heapseries")
}

// histogramSeries is the class histograms of the JVM LeakShape program at
// three moments, in bytes, as the server's histogram series reads them.
func histogramSeries(t *testing.T) Evidence {
	t.Helper()
	var in series.Input
	in.Series, in.By, in.SampleType, in.Unit = map[string][]int64{}, "class", "bytes", "bytes"
	for i, n := range []string{"2", "4", "6"} {
		f, err := os.Open(fixtures.Path(t, "leakshape", "leakshape-"+n+"-class-histogram.txt"))
		if err != nil {
			t.Fatal(err)
		}
		h, err := jvm.ParseHistogram(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		in.Labels = append(in.Labels, "leakshape-"+n)
		in.Totals = append(in.Totals, h.TotalBytes)
		for _, c := range h.Classes {
			v := in.Series[c.Name]
			if v == nil {
				v = make([]int64, 3)
				in.Series[c.Name] = v
			}
			v[i] += c.Bytes
		}
	}
	rep, err := series.Analyze(in, series.Options{KeepOrder: true})
	if err != nil {
		t.Fatal(err)
	}
	return FromSeries("class histogram series", "leakshape-2-class-histogram.txt", Heap, rep, "/r/histograms")
}

// jvmCaptures is the bundle pair of a JVM that opened 20,000 GZIPInputStreams
// and dropped them unclosed: RSS 45.7 MB → 318.8 MB beyond what NMT tracks.
func jvmCaptures(t *testing.T) Evidence {
	t.Helper()
	var caps []*capture.Capture
	for _, name := range []string{"jvm-unclosed-gzip-before.tar.gz", "jvm-unclosed-gzip-after.tar.gz"} {
		f, err := os.Open(fixtures.Path(t, "capture", name))
		if err != nil {
			t.Fatal(err)
		}
		c, err := capture.ReadCapture(f, 0, capture.Limits{}, nil)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		caps = append(caps, c)
	}
	rep, err := capture.Analyze(caps)
	if err != nil {
		t.Fatal(err)
	}
	return FromCapture("jvm-unclosed-gzip-before.tar.gz", rep, "/r/captures")
}

// heapDump is the LeakShape program's heap dump at its sixth step.
func heapDump(t *testing.T) Evidence {
	t.Helper()
	h, err := hprof.Open(fixtures.Path(t, "leakshape", "leakshape-6.hprof.gz"), hprof.OpenOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	rep, err := h.NewReport(hprof.ReportOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return FromHeapDump("leakshape-6.hprof.gz", rep, "/r/heapdump")
}

// goroutineLeak is the goroutineleak profile of cmd/leakui/testdata/leaky,
// which strands 7 goroutines on unreachable channels.
func goroutineLeak(t *testing.T) Evidence {
	t.Helper()
	return goroutineEvidence(t, fixtures.Path(t, "capture", "go-goroutineleak-leaky.pb.gz"), "/r/goroutineleak")
}

// goroutineDump is go-profiler-notes' goroutine profile of 10 goroutines.
func goroutineDump(t *testing.T) Evidence {
	t.Helper()
	return goroutineEvidence(t, fixtures.Path(t, "pprof", "goprofnotes-goroutine-snap1-debug0.pb.gz"), "/r/goroutines")
}

func goroutineEvidence(t *testing.T, path, link string) Evidence {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := goroutines.Parse(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	return FromGoroutines(path[len(fixtures.Dir(t))+1:], goroutines.NewReport(d, nil), link)
}

// kafkaLog is a Kafka 2.1.1 broker's log counted with the group members
// preset: members the coordinator added against those it removed.
func kafkaLog(t *testing.T, preset string) Evidence {
	t.Helper()
	f, err := os.Open(fixtures.Path(t, "logs", "kafka-2.1.1-broker-server.log.2020-02-13-23"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := logs.Count(context.Background(), logs.CountOptions{Preset: preset}, logs.Input{Name: "server.log", Reader: f})
	if err != nil {
		t.Fatal(err)
	}
	return FromLog("kafka-2.1.1-broker-server.log", rep, "/r/log-"+preset)
}

// labRun is a lab run's verdict as the lab records it (lab/verdict.go).
func labRun(verdict string) Evidence {
	start := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	return FromRun("checkpoint", verdict, "100 consumers started and 80 stopped: 20 were never closed.", start, start.Add(3*time.Minute), "/runs/run1")
}
