//go:build unix

package pprof

import (
	"syscall"
	"time"
)

// processCPUTime is the CPU time (user + system) the test process has used, all
// threads included. On a machine shared with other work it measures what an
// analysis costs better than the wall clock does.
func processCPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
