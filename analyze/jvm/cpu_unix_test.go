//go:build unix

package jvm

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the CPU time (user and system) the test process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds a cpu-ns/op metric to a benchmark, measured from the process's
// CPU time: on a shared machine the wall time per op depends on the other jobs, the
// CPU time much less. Call it right before the loop and defer the function it returns.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
