package runs

import (
	"fmt"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/web/view"
)

// stillGrowsMin is the RSS growth, first step to last, from which a run with no
// leak says why its memory rose anyway: below it RSS moves with the
// allocator and the runtime's own warm-up.
const stillGrowsMin = 4 << 20

// steadyHeapMax is the growth of the live heap, first heap snapshot to last,
// under which it counts as held steady: a few hundred kilobytes is sampling
// and the runtime's own structures, a model keeping something per rebalance
// adds megabytes.
const steadyHeapMax = 1 << 20

// stillGrows is one sentence beside a checkpoint run's "no leak" whose memory
// still rose: that no consumer or goroutine stayed, and what grew instead, from
// the run's own numbers (the live heap of its first and last heap snapshot,
// taken after a GC, and the function that grew most, or that it held steady).
// "" when RSS rose less
// than stillGrowsMin or the run is not a checkpoint run without a leak.
func stillGrows(spec lab.Spec, p lab.Progress, rep *view.RunReport) string {
	if spec.Workload != lab.WorkloadCheckpoint || p.Verdict != lab.VerdictNoLeak || len(p.Points) < 2 {
		return ""
	}
	first, last := p.Points[0], p.Points[len(p.Points)-1]
	if last.RSS-first.RSS < stillGrowsMin {
		return ""
	}
	open := p.Counters["consumer_starts"] - p.Counters["consumer_stops"]
	steps := max(last.Step-first.Step, 1)
	s := fmt.Sprintf("Why memory still rose (RSS %s → %s) with no leak: no consumer stayed open (%d) and goroutines went %d → %d; ",
		analyze.FormatBytes(first.RSS), analyze.FormatBytes(last.RSS), open, first.Goroutines, last.Goroutines)
	if rep != nil && rep.HeapTarget > 0 && rep.HeapTarget-rep.HeapBase < steadyHeapMax {
		return s + fmt.Sprintf("the live Go heap held steady, %s → %s in the heap snapshots taken after a GC, so the rise is heap pages the Go runtime touched and keeps for reuse, not live objects.",
			analyze.FormatBytes(rep.HeapBase), analyze.FormatBytes(rep.HeapTarget))
	}
	if rep != nil && rep.HeapTarget > 0 {
		grew := rep.HeapTarget - rep.HeapBase
		s += fmt.Sprintf("what grew is the live Go heap, %s → %s in the heap snapshots taken after a GC (%s per rebalance)",
			analyze.FormatBytes(rep.HeapBase), analyze.FormatBytes(rep.HeapTarget), analyze.FormatBytes(grew/steps))
		if rep.HeapTop != "" {
			s += fmt.Sprintf(", most of it in %s (%s)", rep.HeapTop, analyze.FormatSignedValue(rep.HeapTopGrew, "bytes"))
		}
		return s + "."
	}
	return s + fmt.Sprintf("what grew is the Go heap in use, %s → %s, and the runtime's own memory around it.",
		analyze.FormatBytes(first.HeapInuse), analyze.FormatBytes(last.HeapInuse))
}
