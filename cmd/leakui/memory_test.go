package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/leakui/leakui/internal/hostile"
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

// TestTopRefusesAnAmplifyingProfile: `leakui top` on 400 KB of gzip that is a
// valid profile.proto of one Location with 200 M empty Lines stops with an error
// naming the memory budget instead of allocating gigabytes.
func TestTopRefusesAnAmplifyingProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lines.pb.gz")
	if err := os.WriteFile(path, hostile.LineBomb(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "top", path)
	if code == 0 || !strings.Contains(errs, "memory budget") {
		t.Errorf("exit %d: %s; want an error naming the memory budget", code, errs)
	}
}
