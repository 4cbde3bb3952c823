package lab

import (
	"strings"
	"testing"
)

func TestCheckpointVerdicts(t *testing.T) {
	points := []Point{{Step: 1, Goroutines: 8}, {Step: 100, Goroutines: 206}}
	spec := Spec{Workload: WorkloadCheckpoint}
	v, reason, _ := decide(spec, Progress{Points: points, Counters: map[string]int64{"consumer_starts": 100, "consumer_stops": 1}})
	if v != VerdictLeak || !strings.Contains(reason, "99 were never closed") {
		t.Errorf("storm: %s, %q", v, reason)
	}
	v, reason, _ = decide(spec, Progress{Points: points, Counters: map[string]int64{"consumer_starts": 1, "consumer_stops": 1, "refused_registrations": 99}})
	if v != VerdictNoLeak || !strings.Contains(reason, "refused 99 registrations") {
		t.Errorf("reuse: %s, %q", v, reason)
	}
	v, reason, _ = decide(spec, Progress{Points: points, Counters: map[string]int64{"consumer_starts": 100, "consumer_stops": 100}})
	if v != VerdictNoLeak || strings.Contains(reason, "refused") {
		t.Errorf("pr1674: %s, %q", v, reason)
	}
}
