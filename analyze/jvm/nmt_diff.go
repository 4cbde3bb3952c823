package jvm

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/leakui/leakui/analyze"
)

// NMTChange is how one native memory category changed, in bytes.
type NMTChange struct {
	Name           string `json:"name"`
	BaseReserved   int64  `json:"base_reserved"`
	Reserved       int64  `json:"reserved"`
	ReservedDelta  int64  `json:"reserved_delta"`
	BaseCommitted  int64  `json:"base_committed"`
	Committed      int64  `json:"committed"`
	CommittedDelta int64  `json:"committed_delta"`
	MallocDelta    int64  `json:"malloc_delta"`
}

// NMTDiff compares two native memory reports of one JVM (two summaries, or a
// summary.diff against its baseline).
type NMTDiff struct {
	// Warnings say why the two reports may not be comparable (see
	// OriginWarnings), to be shown first; absent when none.
	Warnings            []string `json:"warnings,omitempty"`
	BaseTotalReserved   int64    `json:"base_total_reserved"`
	TotalReserved       int64    `json:"total_reserved"`
	TotalReservedDelta  int64    `json:"total_reserved_delta"`
	BaseTotalCommitted  int64    `json:"base_total_committed"`
	TotalCommitted      int64    `json:"total_committed"`
	TotalCommittedDelta int64    `json:"total_committed_delta"`
	// HeapCommitted is the Java Heap category's committed bytes; NonHeapCommitted
	// is everything else the JVM committed.
	BaseHeapCommitted     int64 `json:"base_heap_committed"`
	HeapCommitted         int64 `json:"heap_committed"`
	HeapCommittedDelta    int64 `json:"heap_committed_delta"`
	BaseNonHeapCommitted  int64 `json:"base_non_heap_committed"`
	NonHeapCommitted      int64 `json:"non_heap_committed"`
	NonHeapCommittedDelta int64 `json:"non_heap_committed_delta"`
	// ThreadsDelta is the change in the Thread category's thread count.
	Threads      int64 `json:"threads"`
	ThreadsDelta int64 `json:"threads_delta"`
	// Categories are ranked by committed growth, largest first.
	Categories []NMTChange `json:"categories"`
	// NativeLeak is the KAFKA-3933 signature when it is there, else nil.
	NativeLeak *NativeLeak `json:"native_leak"`
}

// NativeLeak is the KAFKA-3933 signature: memory the JVM committed outside the
// Java heap grew while the heap did not. Native allocations that only a finalizer or
// a GC frees (unclosed GZIPInputStream/Inflater, direct buffers) pile up when the heap
// is quiet enough that no GC runs.
type NativeLeak struct {
	// Cause is "native-allocations" (the KAFKA-3933 kind) or "thread-stacks" when
	// most of the growth is the stacks of new threads (a thread leak).
	Cause string `json:"cause"`
	// Message says it in one paragraph, with the numbers.
	Message string `json:"message"`
	// Grew are the non-heap categories that grew, most first (at most five).
	Grew []NMTChange `json:"grew"`
}

// The thresholds of the KAFKA-3933 signature: non-heap committed memory grows by at
// least javaLeakMinGrowth and by javaLeakMinPercent of its base, while the Java heap
// grows by at most javaHeapFlatPercent of its base.
const (
	javaLeakMinGrowth   = 1 << 20
	javaLeakMinPercent  = 5
	javaHeapFlatPercent = 1
)

// DiffNMT compares a base report with a later target report of the same JVM.
// When a report is itself a summary.diff, its current amounts are used.
func DiffNMT(base, target *NMT) *NMTDiff {
	d := &NMTDiff{
		Warnings:          OriginWarnings(base.Origin, target.Origin),
		BaseTotalReserved: base.TotalReserved, TotalReserved: target.TotalReserved,
		BaseTotalCommitted: base.TotalCommitted, TotalCommitted: target.TotalCommitted,
		Categories: []NMTChange{},
	}
	before := map[string]NMTCategory{}
	for _, c := range base.Categories {
		before[c.Name] = c
	}
	seen := map[string]bool{}
	for _, c := range target.Categories {
		seen[c.Name] = true
		b := before[c.Name]
		d.Categories = append(d.Categories, javaNMTChange(b, c))
		if c.Name == "Thread" {
			d.Threads, d.ThreadsDelta = c.Count, c.Count-b.Count
		}
	}
	for _, b := range base.Categories {
		if !seen[b.Name] {
			d.Categories = append(d.Categories, javaNMTChange(b, NMTCategory{Name: b.Name}))
		}
	}
	d.finish()
	return d
}

// BaselineDiff returns the diff a summary.diff report describes (its baseline is
// its amounts minus its deltas), or nil for a plain summary.
func (n *NMT) BaselineDiff() *NMTDiff {
	if !n.Diff {
		return nil
	}
	d := &NMTDiff{
		BaseTotalReserved: n.TotalReserved - n.TotalReservedDelta, TotalReserved: n.TotalReserved,
		BaseTotalCommitted: n.TotalCommitted - n.TotalCommittedDelta, TotalCommitted: n.TotalCommitted,
		Categories: []NMTChange{},
	}
	for _, c := range n.Categories {
		base := NMTCategory{Name: c.Name, Reserved: c.Reserved - c.ReservedDelta, Committed: c.Committed - c.CommittedDelta,
			Malloc: c.Malloc - c.MallocDelta, Count: c.Count - c.CountDelta}
		d.Categories = append(d.Categories, javaNMTChange(base, c))
		if c.Name == "Thread" {
			d.Threads, d.ThreadsDelta = c.Count, c.CountDelta
		}
	}
	d.finish()
	return d
}

func javaNMTChange(base, target NMTCategory) NMTChange {
	name := target.Name
	if name == "" {
		name = base.Name
	}
	return NMTChange{Name: name,
		BaseReserved: base.Reserved, Reserved: target.Reserved, ReservedDelta: target.Reserved - base.Reserved,
		BaseCommitted: base.Committed, Committed: target.Committed, CommittedDelta: target.Committed - base.Committed,
		MallocDelta: target.Malloc - base.Malloc}
}

// finish computes totals, heap and non-heap, ranks the categories and looks for the
// native leak signature.
func (d *NMTDiff) finish() {
	d.TotalReservedDelta = d.TotalReserved - d.BaseTotalReserved
	d.TotalCommittedDelta = d.TotalCommitted - d.BaseTotalCommitted
	for _, c := range d.Categories {
		if c.Name == HeapCategory {
			d.BaseHeapCommitted, d.HeapCommitted = c.BaseCommitted, c.Committed
		}
	}
	d.HeapCommittedDelta = d.HeapCommitted - d.BaseHeapCommitted
	d.BaseNonHeapCommitted = d.BaseTotalCommitted - d.BaseHeapCommitted
	d.NonHeapCommitted = d.TotalCommitted - d.HeapCommitted
	d.NonHeapCommittedDelta = d.NonHeapCommitted - d.BaseNonHeapCommitted
	slices.SortStableFunc(d.Categories, func(a, b NMTChange) int {
		if c := cmp.Compare(b.CommittedDelta, a.CommittedDelta); c != 0 {
			return c
		}
		return cmp.Compare(b.Committed, a.Committed)
	})
	d.NativeLeak = d.nativeLeak()
}

// nativeLeak returns the KAFKA-3933 signature when the numbers show it.
func (d *NMTDiff) nativeLeak() *NativeLeak {
	growth := d.NonHeapCommittedDelta
	if growth < javaLeakMinGrowth || growth*100 < javaLeakMinPercent*d.BaseNonHeapCommitted {
		return nil
	}
	if d.HeapCommittedDelta*100 > javaHeapFlatPercent*d.BaseHeapCommitted {
		return nil
	}
	leak := &NativeLeak{}
	for _, c := range d.Categories {
		if c.Name != HeapCategory && c.CommittedDelta > 0 && len(leak.Grew) < 5 {
			leak.Grew = append(leak.Grew, c)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Native memory outside the Java heap grew by %s (%s → %s committed, %s) while the Java heap did not (%s → %s).",
		analyze.FormatBytes(growth), analyze.FormatBytes(d.BaseNonHeapCommitted), analyze.FormatBytes(d.NonHeapCommitted), javaPercentChange(growth, d.BaseNonHeapCommitted),
		analyze.FormatBytes(d.BaseHeapCommitted), analyze.FormatBytes(d.HeapCommitted))
	if len(leak.Grew) > 0 {
		b.WriteString(" Grew:")
		for i, c := range leak.Grew {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s %s", c.Name, analyze.FormatSignedValue(c.CommittedDelta, "bytes"))
		}
		b.WriteString(".")
	}
	if len(leak.Grew) > 0 && leak.Grew[0].Name == "Thread" && d.ThreadsDelta > 0 {
		leak.Cause = "thread-stacks"
		fmt.Fprintf(&b, " Most of it is thread stacks: %s more threads (now %s), a thread leak; the thread dumps show which pool grows.",
			analyze.FormatCount(d.ThreadsDelta), analyze.FormatCount(d.Threads))
	} else {
		leak.Cause = "native-allocations"
		b.WriteString(" This is the KAFKA-3933 signature: native allocations that only a GC or a finalizer frees (an unclosed GZIPInputStream, Inflater or Deflater, direct buffers) pile up while the heap is too quiet for a GC to run.")
	}
	leak.Message = b.String()
	return leak
}

// javaPercentChange renders growth relative to base ("+12.5%"), or "new" from zero.
func javaPercentChange(growth, base int64) string {
	if base == 0 {
		return "from nothing"
	}
	return fmt.Sprintf("%+.1f%%", float64(growth)*100/float64(base))
}
