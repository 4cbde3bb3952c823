package main

import (
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLabRefusesRunsAboveTheBudget posts the two runs of the attack on the
// lab (a batch of 10,000 values of 1 MiB; 100,000 batches of uncompressed
// values) to a real server: each is refused with 413 before anything starts,
// and the message shows the arithmetic.
func TestLabRefusesRunsAboveTheBudget(t *testing.T) {
	s := startServer(t, t.TempDir())
	for _, c := range []struct{ spec, want string }{
		{`{"workload":"recovery","codec":"none","partitions":1,"segments":1,"batches":1,"records":10000,"value_bytes":1048576}`,
			"one batch is 10000 records × 1.0 MiB value size = 9.8 GiB"},
		{`{"workload":"recovery","codec":"none","partitions":2,"segments":10,"batches":100000,"records":10,"value_bytes":1024}`,
			"2 partitions × 10 segments × 100000 batches × 10 records × 1.0 KiB value size = 19.1 GiB written, above the run directory's quota of 2.0 GiB (-run-disk)"},
	} {
		code, out := s.post(t, "/api/runs", c.spec)
		if code != http.StatusRequestEntityTooLarge || !strings.Contains(out["error"], c.want) {
			t.Errorf("%s: %d %q, want 413 with %q", c.spec, code, out["error"], c.want)
		}
	}
}

// TestLabChildLimits runs real children past each of their limits on a real
// server and checks that the run ends failed, naming the limit: address space
// (a recovery batch of 500 MB under 2 GiB: the Go runtime runs out of
// memory), CPU time (a long checkpoint run under one second: the kernel kills
// it) and the run directory's quota (100,000 batches of one-byte values, whose
// framing makes the segment far larger than the values: the write fails at
// RLIMIT_FSIZE; in 100 segments no file reaches it, and the directory's
// usage stops the run).
func TestLabChildLimits(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three children to their limits")
	}
	small := `{"workload":"recovery","codec":"zstd","partitions":1,"segments":2,"batches":5,"records":10,"value_bytes":64}`
	for _, c := range []struct {
		name, flag, value, spec, want string
	}{
		{"memory", "-run-memory", strconv.Itoa(2 << 30),
			`{"workload":"recovery","codec":"none","partitions":1,"segments":1,"batches":2,"records":1000,"value_bytes":512000}`,
			"memory limit of 2.0 GiB"},
		{"cpu", "-run-cpu", "1s", `{"workload":"checkpoint","variant":"leaky","cycles":5000,"tasks":4}`, "CPU time limit of 1s"},
		{"disk", "-run-disk", strconv.Itoa(10 << 20),
			`{"workload":"recovery","codec":"none","partitions":1,"segments":1,"batches":100000,"records":20,"value_bytes":1}`,
			"quota of 10.0 MiB"},
		{"disk in many files", "-run-disk", strconv.Itoa(10 << 20),
			`{"workload":"recovery","codec":"none","partitions":1,"segments":100,"batches":2000,"records":20,"value_bytes":1}`,
			"past its quota of 10.0 MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := startServer(t, dir, c.flag, c.value)
			code, out := s.post(t, "/api/runs", c.spec)
			if code != http.StatusAccepted {
				t.Fatalf("POST /api/runs: %d %v", code, out)
			}
			r := s.waitRun(t, out["id"], 2*time.Minute)
			if r.Status != "failed" || !strings.Contains(r.Error, c.want) {
				t.Fatalf("the run ended %s with %q; want failed naming %q\n%s", r.Status, r.Error, c.want, s.log.String())
			}
			t.Logf("%s: %s", c.name, r.Error)
			// Under the same limit a small run finishes: the limit, not the
			// child's start, stopped the large one.
			code, out = s.post(t, "/api/runs", small)
			if code != http.StatusAccepted {
				t.Fatalf("POST /api/runs: %d %v", code, out)
			}
			if r := s.waitRun(t, out["id"], 2*time.Minute); r.Status != "done" {
				t.Errorf("a small run under %s %s ended %s: %s", c.flag, c.value, r.Status, r.Error)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "uploads", "*", "runs", "leakui-run-*")); len(left) != 0 {
				t.Errorf("the run's directory is left behind: %v", left)
			}
		})
	}
}
