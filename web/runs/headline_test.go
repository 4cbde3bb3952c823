package runs

import (
	"strings"
	"testing"

	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/web/view"
)

// TestCompareHeadline: the comparison's one line comes from the runs' counters:
// consumers for SAMZA-2785, deep iterators and resident off-heap bytes for
// KAFKA-3933, and a refusal to compare runs of different bugs.
func TestCompareHeadline(t *testing.T) {
	done := func(c map[string]int64) lab.Progress { return lab.Progress{Status: lab.StatusDone, Counters: c} }
	samza := func(v string) lab.Spec { return lab.Spec{Workload: lab.WorkloadCheckpoint, Variant: v} }
	kafka := func(v string) lab.Spec { return lab.Spec{Workload: lab.WorkloadRecovery, Variant: v, Codec: "gzip"} }
	for _, c := range []struct {
		specs [2]lab.Spec
		progs [2]lab.Progress
		want  string
	}{
		{[2]lab.Spec{samza("pr1674"), samza("leaky")},
			[2]lab.Progress{done(map[string]int64{"consumer_starts": 1741, "consumer_stops": 1741}), done(map[string]int64{"consumer_starts": 1741, "consumer_stops": 14})},
			"pr1674 closes 1,741 of 1,741 consumers; leaky leaves 1,727 of 1,741 consumers open"},
		{[2]lab.Spec{samza("leaky"), samza("leaky")},
			[2]lab.Progress{done(map[string]int64{"consumer_starts": 100, "consumer_stops": 1}), {Status: lab.StatusRunning}},
			"A (leaky) leaves 99 of 100 consumers open; B (leaky) is still running"},
		{[2]lab.Spec{kafka("leaky"), kafka("drain")},
			[2]lab.Progress{done(map[string]int64{"iterators_opened": 4980, "offheap_resident_bytes": 61194240}), done(map[string]int64{"iterators_opened": 4980, "iterators_closed": 4980, "offheap_resident_bytes": 20480})},
			"leaky leaves 4,980 of 4,980 deep iterators open, 58.4 MB off-heap resident; drain closes 4,980 of 4,980 deep iterators, 20.0 kB off-heap resident"},
		{[2]lab.Spec{kafka("leaky"), samza("leaky")}, [2]lab.Progress{done(nil), done(nil)},
			"These runs reproduce different things (KAFKA-3933 recovery and SAMZA-2785 checkpoint): their numbers do not compare."},
	} {
		if got := compareHeadline(c.specs, c.progs); got != c.want {
			t.Errorf("headline %q, want %q", got, c.want)
		}
	}
}

// TestStillGrowsSaysWhy: a checkpoint run without a leak whose RSS rose says
// why beside "no leak" with its own numbers; one whose RSS stayed, or a leak,
// says nothing.
func TestStillGrowsSaysWhy(t *testing.T) {
	spec := lab.Spec{Workload: lab.WorkloadCheckpoint, Variant: "pr1674"}
	p := lab.Progress{Verdict: lab.VerdictNoLeak, Counters: map[string]int64{"consumer_starts": 1741, "consumer_stops": 1741},
		Points: []lab.Point{{Step: 1, Goroutines: 5, RSS: 30 << 20}, {Step: 1741, Goroutines: 5, RSS: 47 << 20}}}
	rep := &view.RunReport{HeapBase: 2 << 20, HeapTarget: 12 << 20, HeapTop: "github.com/segmentio/kafka-go.makePartitions", HeapTopGrew: 3 << 20}
	want := "Why memory still rose (RSS 30.0 MB → 47.0 MB) with no leak: no consumer stayed open (0) and goroutines went 5 → 5; what grew is the live Go heap, 2.0 MB → 12.0 MB in the heap snapshots taken after a GC (5.9 kB per rebalance), most of it in github.com/segmentio/kafka-go.makePartitions (+3.0 MB)."
	if got := stillGrows(spec, p, rep); got != want {
		t.Errorf("pr1674:\n got %q\nwant %q", got, want)
	}
	steady := &view.RunReport{HeapBase: 3600 << 10, HeapTarget: 2500 << 10}
	wantSteady := "Why memory still rose (RSS 30.0 MB → 47.0 MB) with no leak: no consumer stayed open (0) and goroutines went 5 → 5; the live Go heap held steady, 3.5 MB → 2.4 MB in the heap snapshots taken after a GC, so the rise is heap pages the Go runtime touched and keeps for reuse, not live objects."
	if got := stillGrows(spec, p, steady); got != wantSteady {
		t.Errorf("a steady live heap:\n got %q\nwant %q", got, wantSteady)
	}
	if got := stillGrows(spec, p, nil); !strings.Contains(got, "what grew is the Go heap in use") {
		t.Errorf("without heap snapshots: %q", got)
	}
	flat := p
	flat.Points = []lab.Point{{Step: 1, RSS: 30 << 20}, {Step: 1741, RSS: 33 << 20}}
	leak := p
	leak.Verdict = lab.VerdictLeak
	for name, q := range map[string]lab.Progress{"RSS +3 MB": flat, "a leak": leak} {
		if got := stillGrows(spec, q, rep); got != "" {
			t.Errorf("%s: %q", name, got)
		}
	}
}
