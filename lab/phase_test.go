package lab

import (
	"testing"
	"time"

	"github.com/leakui/leakui/lab/child"
)

// TestProgressPhases: progress events under a step name that is not the
// workload's unit (writing the log before recovering it) make a phase line and
// keep the charts' points and steps to the unit's own; the first event of the
// unit ends the phase, and counters are taken from every event.
func TestProgressPhases(t *testing.T) {
	var p Progress
	now := time.Unix(1000, 0)
	for i := int64(1); i <= 3; i++ {
		p.apply(child.Event{Kind: child.EventProgress, StepName: "write segment", Step: i, Steps: 80,
			Counters: map[string]int64{"segments_written": i}}, WorkloadRecovery, now)
	}
	if p.Phase == nil || *p.Phase != (Phase{Name: "write segment", Step: 3, Steps: 80}) || len(p.Points) != 0 || p.Step != 0 {
		t.Fatalf("after three write events: phase %+v, %d points, step %d", p.Phase, len(p.Points), p.Step)
	}
	if len(p.Phases) != 1 || p.Phases[0] != *p.Phase {
		t.Errorf("phases %+v", p.Phases)
	}
	if p.Counters["segments_written"] != 3 {
		t.Errorf("counters %v", p.Counters)
	}
	c := p.clone()
	c.Phase.Step = 99
	if p.Phase.Step != 3 {
		t.Error("clone shares the phase")
	}
	p.apply(child.Event{Kind: child.EventProgress, StepName: "segment", Step: 1, Steps: 80,
		Counters: map[string]int64{"iterators_opened": 4}}, WorkloadRecovery, now)
	if p.Phase != nil || p.Step != 1 || p.StepName != "segment" || len(p.Points) != 1 || p.Points[0].Open != 4 || len(p.Phases) != 1 || p.Phases[0].Step != 3 {
		t.Errorf("after the first segment: phase %+v, step %d %q, points %+v", p.Phase, p.Step, p.StepName, p.Points)
	}
	// A workload without a declared unit: every event is a step, as before.
	var q Progress
	q.apply(child.Event{Kind: child.EventProgress, StepName: "whatever", Step: 2, Steps: 5}, "other", now)
	if q.Phase != nil || q.Step != 2 || len(q.Points) != 1 {
		t.Errorf("unknown workload: %+v", q)
	}
}

// TestPhaseEventsAreNotSnapshotted runs the test workload with a phase of six
// events before its 20 cycles: the lab snapshots at the cycles it would without
// the phase (0, every 4th, the last), never at a phase's step, and the finished
// run keeps the phase at its last event.
func TestPhaseEventsAreNotSnapshotted(t *testing.T) {
	childEnv(t, "1", "5ms")
	t.Setenv("LEAKUI_LAB_PHASE", "6")
	m, rec := newTestManager(t, Config{Snapshots: 5})
	run, err := m.Start("phased", Spec{Workload: WorkloadCheckpoint, Variant: "leaky", Cycles: 20, Tasks: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wait(t, run, 60*time.Second)
	p := rec.finished["phased"]
	if p.Status != StatusDone || len(p.Phases) != 1 || p.Phases[0] != (Phase{Name: "prepare", Step: 6, Steps: 6}) || p.Phase != nil {
		t.Fatalf("finished %s, phases %+v, phase %+v", p.Status, p.Phases, p.Phase)
	}
	want := map[int64]bool{0: true, 4: true, 8: true, 12: true, 16: true, 20: true}
	heaps := 0
	for _, c := range rec.captures["phased"] {
		if c.Role != "heap" {
			continue
		}
		heaps++
		if !want[c.Step] {
			t.Errorf("a heap snapshot at step %d, not one of the cycles' snapshot steps", c.Step)
		}
	}
	if heaps < 5 {
		t.Errorf("%d heap snapshots", heaps)
	}
}
