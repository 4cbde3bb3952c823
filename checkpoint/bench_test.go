package checkpoint

import (
	"context"
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkCycles measures cycles per second of every variant and mode on the
// embedded broker: one operation is a whole run of 100 cycles with 8 tasks on a new
// topic (standby and fix-reset read the whole topic every cycle, so their cost per
// cycle grows with the topic; a fixed run length keeps the variants comparable).
func BenchmarkCycles(b *testing.B) {
	const cycles = 100
	for _, v := range Variants {
		for _, m := range Modes {
			b.Run(fmt.Sprintf("%s/%s", v, m), func(b *testing.B) {
				br := startBroker(b)
				var total float64
				n := 0
				for b.Loop() {
					n++
					w, err := New(Config{Brokers: br.Addrs(), Job: jobName(b), JobID: fmt.Sprint(n), Variant: v, Mode: m, Cycles: cycles, Tasks: 8})
					if err != nil {
						b.Fatal(err)
					}
					res, err := w.Run(context.Background())
					if err != nil {
						b.Fatal(err)
					}
					total += res.Elapsed.Seconds()
					w.Close()
				}
				b.ReportMetric(float64(n*cycles)/total, "cycles/s")
			})
		}
	}
}

// BenchmarkProduction runs the production count of SAMZA-2785, 1741 rebalances of a
// leaky active container with 8 tasks, and reports what one leaked consumer costs.
// With broker=child the broker runs in another process, so the figures are the
// client's alone; with broker=embedded they are the whole process, as the lab sees it.
// Run it with -benchtime=1x.
func BenchmarkProduction(b *testing.B) {
	const cycles, tasks = 1741, 8
	for _, where := range []string{"child", "embedded"} {
		b.Run("broker="+where, func(b *testing.B) {
			for b.Loop() {
				var brokers []string
				if where == "child" {
					brokers = startChildBroker(b)
				} else {
					brokers = startBroker(b).Addrs()
				}
				before := heapAfterGC()
				goroutinesBefore := runtime.NumGoroutine()
				var half runtime.MemStats
				w, err := New(Config{Brokers: brokers, Job: jobName(b), Cycles: cycles, Tasks: tasks,
					Progress: func(p Progress) {
						if p.Cycle == cycles/2+1 { // cycles/2 leaked consumers
							runtime.GC()
							runtime.ReadMemStats(&half)
						}
					}})
				if err != nil {
					b.Fatal(err)
				}
				res, err := w.Run(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				after := heapAfterGC()
				goroutines := runtime.NumGoroutine() - goroutinesBefore
				leaked := float64(res.OpenConsumers)
				firstHalf := float64(half.HeapAlloc-before) / float64(cycles/2)
				secondHalf := float64(after-half.HeapAlloc) / (leaked - float64(cycles/2))
				b.ReportMetric(float64(res.Cycle)/res.Elapsed.Seconds(), "cycles/s")
				b.ReportMetric(res.Elapsed.Seconds(), "run-s")
				b.ReportMetric(leaked, "leaked")
				b.ReportMetric(float64(goroutines)/leaked, "goroutines/leaked")
				b.ReportMetric(float64(after-before)/leaked, "heap-B/leaked")
				b.ReportMetric(secondHalf/firstHalf, "2nd/1st-half-B/leaked")
				if reaped, err := w.Close(); err != nil || float64(reaped) != leaked {
					b.Fatalf("Close reaped %d (err %v) of %v", reaped, err, leaked)
				}
			}
		})
	}
}

// heapAfterGC returns the live heap in bytes after a full collection.
func heapAfterGC() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// startChildBroker runs an embedded broker in a child process (this test binary
// with brokerChildEnv set) and returns its address; it stops when the benchmark ends.
func startChildBroker(b *testing.B) []string {
	b.Helper()
	return startBrokerProcess(b).Addrs()
}
