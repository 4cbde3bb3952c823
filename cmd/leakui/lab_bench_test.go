package main

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/leakui/leakui/lab"
)

// benchRecorder keeps the last progress of each run.
type benchRecorder struct {
	mu  sync.Mutex
	end map[string]lab.Progress
}

func (b *benchRecorder) Progress(context.Context, string, lab.Progress, time.Time) error { return nil }
func (b *benchRecorder) Capture(context.Context, string, lab.Capture) error              { return nil }
func (b *benchRecorder) Finish(_ context.Context, id string, _ lab.Spec, p lab.Progress) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.end[id] = p
	return nil
}

// BenchmarkCaptureOverhead measures what snapshots cost a run: the workload's own
// elapsed time for the production-sized SAMZA-2785 run (1741 cycles), with the
// lab's 15 snapshots and without any. Compare the two ms/run figures.
func BenchmarkCaptureOverhead(b *testing.B) {
	for _, capture := range []bool{false, true} {
		name := "without-capture"
		if capture {
			name = "with-capture"
		}
		b.Run(name, func(b *testing.B) {
			rec := &benchRecorder{end: map[string]lab.Progress{}}
			m, err := lab.NewManager(lab.Config{Executable: leakuiBinary(b), Recorder: rec, NoCapture: !capture, TempDir: b.TempDir(), Hold: time.Minute})
			if err != nil {
				b.Fatal(err)
			}
			defer m.Close()
			var total time.Duration
			for i := 0; b.Loop(); i++ {
				id := name + string(rune('a'+i%26)) + time.Now().Format("150405.000000")
				run, err := m.Start(id, lab.Spec{Workload: lab.WorkloadCheckpoint, Variant: "leaky", Mode: "active", Cycles: 1741, Tasks: 4}, nil)
				if err != nil {
					b.Fatal(err)
				}
				<-run.Done()
				p := rec.end[id]
				if p.Status != lab.StatusDone {
					b.Fatalf("run ended %s: %s", p.Status, p.Error)
				}
				total += time.Duration(p.Counters["elapsed_ms"]) * time.Millisecond
				b.ReportMetric(float64(p.Snapshots), "snapshots")
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "workload-ms/run")
		})
	}
}
