//go:build unix

package logs

import (
	"syscall"
	"testing"
)

// reportCPU starts counting the process's CPU time (user and system); the
// function it returns reports it per op as cpu-ns/op.
func reportCPU(b *testing.B) func() {
	start := processCPU()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

// processCPU is the user and system time of the process so far, in
// nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
