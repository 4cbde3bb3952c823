package lab

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

func TestRunCapturesAndDecides(t *testing.T) {
	childEnv(t, "1", "20ms")
	m, rec := newTestManager(t, Config{Snapshots: 5})
	spec := Spec{Workload: WorkloadCheckpoint, Variant: "leaky", Cycles: 20, Tasks: 1}
	run, err := m.Start("run1", spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	wait(t, run, 60*time.Second)
	p := rec.finished["run1"]
	if p.Status != StatusDone || p.Verdict != VerdictLeak || !strings.Contains(p.Reason, "20 consumers started and 0 stopped: 20 were never closed") {
		t.Fatalf("ended %s/%s: %s (%s)", p.Status, p.Verdict, p.Reason, p.Error)
	}
	roles := rec.roles("run1")
	// Captures at the start, every 4 cycles (20/5) before the end, and the final one.
	if roles["heap"] < 5 || roles["heap"] != roles["goroutine"] || roles["log"] != 1 || p.Snapshots != roles["heap"] {
		t.Errorf("captured %v, %d snapshots", roles, p.Snapshots)
	}
	// The final goroutine profile holds the 20 leaked goroutines of the child.
	caps := rec.captures["run1"]
	var last Capture
	for _, c := range caps {
		if c.Role == "goroutine" {
			last = c
		}
	}
	prof, err := profile.Parse(bytes.NewReader(last.Data))
	if err != nil {
		t.Fatal(err)
	}
	leaked := int64(0)
	for _, s := range prof.Sample {
		for _, l := range s.Location {
			for _, ln := range l.Line {
				if strings.Contains(ln.Function.Name, "testworkload.Main.func") {
					leaked += s.Value[0]
				}
			}
		}
	}
	if leaked != 20 || last.Step != 20 {
		t.Errorf("the last goroutine profile (step %d) has %d leaked goroutines, want 20", last.Step, leaked)
	}
	if n := len(p.Points); n != 20 || p.Points[19].Open != 20 || p.Points[0].Open != 1 {
		t.Errorf("points: %d, last %+v", n, p.Points[len(p.Points)-1])
	}
	if len(rec.progress["run1"]) == 0 {
		t.Error("no progress was recorded")
	}
	if !bytes.Contains(logOf(rec, "run1"), []byte("Starting the checkpoint SystemConsumer")) {
		t.Error("the run's log was not stored")
	}
}

func logOf(rec *memRecorder, id string) []byte {
	for _, c := range rec.captures[id] {
		if c.Role == "log" {
			return c.Data
		}
	}
	return nil
}

func TestFixedRunIsNoLeak(t *testing.T) {
	childEnv(t, "1", "1ms")
	m, rec := newTestManager(t, Config{NoCapture: true})
	run, err := m.Start("fixed", Spec{Workload: WorkloadCheckpoint, Variant: "pr1674", Cycles: 10, Tasks: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wait(t, run, 60*time.Second)
	p := rec.finished["fixed"]
	if p.Status != StatusDone || p.Verdict != VerdictNoLeak || len(rec.roles("fixed")) != 1 {
		t.Errorf("fixed run: %s/%s %s, captures %v", p.Status, p.Verdict, p.Reason, rec.roles("fixed"))
	}
}

// TestCancelKillsTheProcessGroup cancels mid-run and checks the child is gone.
func TestCancelKillsTheProcessGroup(t *testing.T) {
	childEnv(t, "1", "200ms")
	m, rec := newTestManager(t, Config{NoCapture: true})
	run, err := m.Start("c", Spec{Workload: WorkloadCheckpoint, Cycles: 1000, Tasks: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pid := waitForChild(t, run)
	if err := m.Cancel("c"); err != nil {
		t.Fatal(err)
	}
	wait(t, run, 10*time.Second)
	if p := rec.finished["c"]; p.Status != StatusCancelled || p.Step == 0 || p.Step >= 1000 {
		t.Errorf("cancelled run ended %s at step %d", p.Status, p.Step)
	}
	if hasProcess(pid) {
		t.Errorf("child %d survived the cancel", pid)
	}
	if err := m.Cancel("c"); !errors.Is(err, ErrNotRunning) {
		t.Errorf("cancelling an ended run: %v", err)
	}
}

// waitForChild waits for the first progress and returns the child's pid.
func waitForChild(t *testing.T, run *Run) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if p, _ := run.State(); p.Step > 0 {
			return childPID(t)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the child never made progress")
	return 0
}

// childPID finds the one child process of this test binary.
func childPID(t *testing.T) int {
	t.Helper()
	self := strconv.Itoa(os.Getpid())
	entries, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, e := range entries {
		b, err := os.ReadFile(e)
		if err != nil {
			continue
		}
		fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(fields) > 1 && fields[1] == self {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(e)))
			return pid
		}
	}
	t.Fatal("no child process found")
	return 0
}

func TestDeadlineFailsTheRun(t *testing.T) {
	childEnv(t, "1", "100ms")
	m, rec := newTestManager(t, Config{NoCapture: true, Deadline: 500 * time.Millisecond})
	run, err := m.Start("d", Spec{Workload: WorkloadCheckpoint, Cycles: 1000, Tasks: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wait(t, run, 10*time.Second)
	if p := rec.finished["d"]; p.Status != StatusFailed || !strings.Contains(p.Error, "deadline of 500ms") {
		t.Errorf("ended %s: %q", p.Status, p.Error)
	}
}

func TestMaxRunsAndClose(t *testing.T) {
	childEnv(t, "1", "100ms")
	m, rec := newTestManager(t, Config{NoCapture: true, MaxRuns: 1})
	run, err := m.Start("a", Spec{Workload: WorkloadCheckpoint, Cycles: 1000, Tasks: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	recorded := false
	if _, err := m.Start("b", Spec{Workload: WorkloadCheckpoint, Cycles: 10, Tasks: 1}, func(Spec) error { recorded = true; return nil }); !errors.Is(err, ErrBusy) || recorded {
		t.Errorf("a second run: %v (recorded %v), want ErrBusy before recording", err, recorded)
	}
	pid := waitForChild(t, run)
	m.Close()
	if p := rec.finished["a"]; p.Status != StatusInterrupted {
		t.Errorf("after Close the run is %s", p.Status)
	}
	if hasProcess(pid) {
		t.Errorf("child %d survived Close", pid)
	}
	if _, err := m.Start("c", Spec{Workload: WorkloadCheckpoint, Cycles: 1, Tasks: 1}, nil); err == nil {
		t.Error("a closed manager started a run")
	}
}

func TestChildFailureIsReported(t *testing.T) {
	childEnv(t, "fail", "0")
	m, rec := newTestManager(t, Config{NoCapture: true})
	run, err := m.Start("f", Spec{Workload: WorkloadCheckpoint, Cycles: 5, Tasks: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wait(t, run, 10*time.Second)
	if p := rec.finished["f"]; p.Status != StatusFailed || !strings.Contains(p.Error, "cannot reach the broker") {
		t.Errorf("ended %s: %q", p.Status, p.Error)
	}
}

func TestSpecValidation(t *testing.T) {
	for _, tc := range []struct {
		spec Spec
		err  error
		msg  string
	}{
		{Spec{Workload: "bogus"}, ErrInvalidSpec, "workload"},
		{Spec{Workload: WorkloadCheckpoint, Variant: "fix-magic"}, ErrInvalidSpec, "variant"},
		{Spec{Workload: WorkloadCheckpoint, Cycles: 100000}, ErrTooLarge, "at most 5000"},
		{Spec{Workload: WorkloadCheckpoint, Tasks: -1}, ErrInvalidSpec, "tasks"},
		{Spec{Workload: WorkloadRecovery, Codec: "brotli"}, ErrInvalidSpec, "codec"},
		{Spec{Workload: WorkloadRecovery, Partitions: 64, Segments: 1000, Batches: 1000, Records: 100}, ErrTooLarge, "records"},
		{Spec{Workload: WorkloadRecovery, Format: "v3"}, ErrInvalidSpec, "format"},
		{Spec{Workload: WorkloadRecovery, Codec: "zstd", Format: "v1"}, ErrInvalidSpec, "zstd came with record batches v2"},
		{Spec{Workload: WorkloadRecovery, Damage: "payload", Batches: 50}, ErrInvalidSpec, "more than 100 batches"},
		{Spec{Workload: WorkloadRecovery, Damage: "trailer", Codec: "snappy"}, ErrInvalidSpec, "gzip for a trailer"},
	} {
		s := tc.spec
		if err := s.Normalize(Limits{}); !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%+v: %v, want %v with %q", tc.spec, err, tc.err, tc.msg)
		}
	}
	s := Spec{Workload: WorkloadRecovery}
	if err := s.Normalize(Limits{}); err != nil || s.Codec != "gzip" || s.Format != "v0" || s.Segments != 20 || s.Variant != "leaky" {
		t.Errorf("defaults: %+v %v", s, err)
	}
	if got := strings.Join(s.Args(), " "); got != "work recovery -variant leaky -codec gzip -partitions 4 -segments 20 -batches 500 -records 20 -value-bytes 512 -format v0" {
		t.Errorf("args = %s", got)
	}
	z := Spec{Workload: WorkloadRecovery, Codec: "zstd", Damage: "payload"}
	if err := z.Normalize(Limits{}); err != nil || z.Format != "v2" {
		t.Errorf("zstd defaults: %+v %v", z, err)
	}
	if got := strings.Join(z.Args(), " "); !strings.HasSuffix(got, " -format v2 -corrupt-batch 100") {
		t.Errorf("args = %s", got)
	}
	for _, p := range Presets {
		spec := p.Spec
		if ok, _ := JVMAvailable(); !ok && spec.Variant == VariantJVM {
			continue // TestJVMVariantUnavailableWithoutAJDK
		}
		if err := spec.Normalize(Limits{}); err != nil {
			t.Errorf("preset %s: %v", p.Name, err)
		}
	}
	_ = syscall.SIGKILL
}

// TestCancelKillsAChildThatIgnoresSIGTERM: a cancelled child gets SIGTERM to clean
// up, and SIGKILL when it does not stop.
func TestCancelKillsAChildThatIgnoresSIGTERM(t *testing.T) {
	childEnv(t, "1", "100ms")
	t.Setenv("LEAKUI_LAB_IGNORE_TERM", "1")
	m, rec := newTestManager(t, Config{NoCapture: true})
	run, err := m.Start("stubborn", Spec{Workload: WorkloadCheckpoint, Cycles: 1000, Tasks: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pid := waitForChild(t, run)
	start := time.Now()
	m.Cancel("stubborn")
	wait(t, run, 20*time.Second)
	if hasProcess(pid) {
		t.Fatalf("child %d survived", pid)
	}
	if took := time.Since(start); took < killGrace {
		t.Errorf("the child ignoring SIGTERM was gone after %s, before the %s grace: was it sent SIGTERM first?", took, killGrace)
	}
	if p := rec.finished["stubborn"]; p.Status != StatusCancelled {
		t.Errorf("status %s", p.Status)
	}
}

// TestJVMVariantUnavailableWithoutAJDK: with no JDK on PATH the jvm variant is
// refused with the reason and left out of RecoveryVariants.
func TestJVMVariantUnavailableWithoutAJDK(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	s := Spec{Workload: WorkloadRecovery, Variant: VariantJVM}
	if err := s.Normalize(Limits{}); !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), "unavailable: no JDK on this server") {
		t.Errorf("jvm without a JDK: %v", err)
	}
	if slices.Contains(RecoveryVariants(), VariantJVM) {
		t.Errorf("RecoveryVariants() = %v offers jvm without a JDK", RecoveryVariants())
	}
	if ok, why := JVMAvailable(); ok || why == "" {
		t.Errorf("JVMAvailable() = %v, %q", ok, why)
	}
}
