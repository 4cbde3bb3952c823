package lab

import (
	"testing"
	"time"

	"github.com/leakui/leakui/workload"
)

// TestProgressPhases: progress events under a step name that is not the
// workload's unit (writing the log before recovering it) make a phase line and
// keep the charts' points and steps to the unit's own; the first event of the
// unit ends the phase, and counters are taken from every event.
func TestProgressPhases(t *testing.T) {
	var p Progress
	now := time.Unix(1000, 0)
	for i := int64(1); i <= 3; i++ {
		p.apply(workload.Event{Kind: workload.EventProgress, StepName: "write segment", Step: i, Steps: 80,
			Counters: map[string]int64{"segments_written": i}}, WorkloadRecovery, now)
	}
	if p.Phase == nil || *p.Phase != (Phase{Name: "write segment", Step: 3, Steps: 80}) || len(p.Points) != 0 || p.Step != 0 {
		t.Fatalf("after three write events: phase %+v, %d points, step %d", p.Phase, len(p.Points), p.Step)
	}
	if p.Counters["segments_written"] != 3 {
		t.Errorf("counters %v", p.Counters)
	}
	c := p.clone()
	c.Phase.Step = 99
	if p.Phase.Step != 3 {
		t.Error("clone shares the phase")
	}
	p.apply(workload.Event{Kind: workload.EventProgress, StepName: "segment", Step: 1, Steps: 80,
		Counters: map[string]int64{"iterators_opened": 4}}, WorkloadRecovery, now)
	if p.Phase != nil || p.Step != 1 || p.StepName != "segment" || len(p.Points) != 1 || p.Points[0].Open != 4 {
		t.Errorf("after the first segment: phase %+v, step %d %q, points %+v", p.Phase, p.Step, p.StepName, p.Points)
	}
	// A workload without a declared unit: every event is a step, as before.
	var q Progress
	q.apply(workload.Event{Kind: workload.EventProgress, StepName: "whatever", Step: 2, Steps: 5}, "other", now)
	if q.Phase != nil || q.Step != 2 || len(q.Points) != 1 {
		t.Errorf("unknown workload: %+v", q)
	}
}
