package jvm

import (
	"fmt"

	"github.com/leakui/leakui/analyze"
)

// Headline is one sentence about the report: committed and reserved memory, the
// Java heap's share and the number of threads.
func (n *NMT) Headline() string {
	heap, _ := n.Category(HeapCategory)
	s := fmt.Sprintf("The JVM committed %s (%s reserved): %s Java heap (%s), %s outside it.",
		analyze.FormatBytes(n.TotalCommitted), analyze.FormatBytes(n.TotalReserved), analyze.FormatBytes(heap.Committed),
		percent(heap.Committed, n.TotalCommitted), analyze.FormatBytes(n.TotalCommitted-heap.Committed))
	if t, ok := n.Category("Thread"); ok && t.Count > 0 {
		s += " " + analyze.Plural(t.Count, "thread") + "."
	}
	if n.Diff {
		s += fmt.Sprintf(" Since the baseline: %s committed.", analyze.FormatSignedValue(n.TotalCommittedDelta, "bytes"))
	}
	return s
}

// Headline is one sentence about the diff: the change in committed memory, split
// into the Java heap and the rest.
func (d *NMTDiff) Headline() string {
	return fmt.Sprintf("Committed: %s → %s (%s); Java heap %s → %s (%s); outside the heap %s → %s (%s).",
		analyze.FormatBytes(d.BaseTotalCommitted), analyze.FormatBytes(d.TotalCommitted), analyze.FormatSignedValue(d.TotalCommittedDelta, "bytes"),
		analyze.FormatBytes(d.BaseHeapCommitted), analyze.FormatBytes(d.HeapCommitted), analyze.FormatSignedValue(d.HeapCommittedDelta, "bytes"),
		analyze.FormatBytes(d.BaseNonHeapCommitted), analyze.FormatBytes(d.NonHeapCommitted), analyze.FormatSignedValue(d.NonHeapCommittedDelta, "bytes"))
}
