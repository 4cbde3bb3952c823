package main

import (
	"runtime/debug"
	"testing"
)

// TestServeSetsAMemoryLimit: without GOMEMLIMIT, serve gives the Go runtime a
// soft memory limit of 3/4 of the machine's (or cgroup's) memory; with it, it
// keeps the runtime's.
func TestServeSetsAMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(prev) })
	mem := machineMemory()
	if mem <= 0 {
		t.Skip("this machine's memory is unknown (no /proc/meminfo)")
	}
	t.Setenv("GOMEMLIMIT", "")
	if got := serveMemoryLimit(); got != mem/4*3 {
		t.Errorf("without GOMEMLIMIT: limit %d, want 3/4 of %d", got, mem)
	}
	debug.SetMemoryLimit(1 << 30)
	t.Setenv("GOMEMLIMIT", "1GiB")
	if got := serveMemoryLimit(); got != 1<<30 {
		t.Errorf("with GOMEMLIMIT=1GiB: limit %d", got)
	}
}
