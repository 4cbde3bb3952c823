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
	// NativeLeak is growth outside the heap that NMT tracks, named by its
	// category, else nil.
	NativeLeak *NativeLeak `json:"native_leak"`
}

// NativeLeak is growth that Native Memory Tracking sees: memory the JVM
// committed outside the Java heap grew while the heap did not. It is named by
// the NMT category that grew most (thread stacks, metaspace, code cache, GC,
// direct buffers in Internal or Other…). NMT does not track zlib's malloc, so an
// unclosed GZIPInputStream never shows here: that takes the process's resident
// set beside the summaries (see AnalyzeNative).
type NativeLeak struct {
	// Cause names what grew (see TrackedCause): "thread-stacks" when most of
	// the growth is the stacks of new threads, "metaspace", "code-cache", "gc",
	// "direct-buffers", "symbols", "compiler", or "nmt-category" for another.
	Cause string `json:"cause"`
	// Category is the NMT category that grew most.
	Category string `json:"category"`
	// Message says it in one paragraph, with the numbers.
	Message string `json:"message"`
	// Grew are the non-heap categories that grew, most first (at most five).
	Grew []NMTChange `json:"grew"`
}

// The thresholds of tracked growth: non-heap committed memory grows by at
// least leakMinGrowth and by leakMinPercent of its base, while the Java
// heap grows by at most heapFlatPercent of its base. A JVM's arenas move by
// a few megabytes between two summaries without any leak (the JIT compiler's,
// jcmd's own attach), which leakMinGrowth stays above.
const (
	leakMinGrowth   = 8 << 20
	leakMinPercent  = 5
	heapFlatPercent = 1
)

// TrackedCause names the growth of an NMT category: a cause (NativeLeak.Cause)
// and what it is in a few words.
func TrackedCause(category string) (cause, what string) {
	switch category {
	case "Thread":
		return "thread-stacks", "thread stacks"
	case "Metaspace", "Class":
		return "metaspace", "metaspace"
	case "Code":
		return "code-cache", "the code cache"
	case "GC":
		return "gc", "the GC's own structures"
	case "Internal", "Other":
		return "direct-buffers", "direct buffers and Unsafe.allocateMemory"
	case "Symbol":
		return "symbols", "the symbol table"
	case "Compiler", "Arena Chunk":
		return "compiler", "the JIT compiler's arenas"
	}
	return "nmt-category", "NMT's " + category
}

// trackedExplanations say what the growth of a cause means, after its figures.
var trackedExplanations = map[string]string{
	"metaspace":      "class metadata of classes loaded and never unloaded, a class loader leak",
	"code-cache":     "compiled code, which grows with the code the JIT compiles",
	"gc":             "they grow with the heap and its regions",
	"direct-buffers": "direct ByteBuffers never released (count java.nio.DirectByteBuffer in a -all class histogram) or memory allocated with Unsafe",
	"symbols":        "interned names and strings",
}

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
		d.Categories = append(d.Categories, nmtChange(b, c))
		if c.Name == "Thread" {
			d.Threads, d.ThreadsDelta = c.Count, c.Count-b.Count
		}
	}
	for _, b := range base.Categories {
		if !seen[b.Name] {
			d.Categories = append(d.Categories, nmtChange(b, NMTCategory{Name: b.Name}))
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
		d.Categories = append(d.Categories, nmtChange(base, c))
		if c.Name == "Thread" {
			d.Threads, d.ThreadsDelta = c.Count, c.CountDelta
		}
	}
	d.finish()
	return d
}

func nmtChange(base, target NMTCategory) NMTChange {
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

// nativeLeak returns the growth NMT tracks outside the heap, named by its
// category, when the numbers show it.
func (d *NMTDiff) nativeLeak() *NativeLeak {
	growth := d.NonHeapCommittedDelta
	if growth < leakMinGrowth || growth*100 < leakMinPercent*d.BaseNonHeapCommitted {
		return nil
	}
	if d.HeapCommittedDelta*100 > heapFlatPercent*d.BaseHeapCommitted {
		return nil
	}
	leak := &NativeLeak{}
	for _, c := range d.Categories {
		if c.Name != HeapCategory && c.CommittedDelta > 0 && len(leak.Grew) < 5 {
			leak.Grew = append(leak.Grew, c)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Native memory that NMT tracks outside the Java heap grew by %s (%s → %s committed, %s) while the Java heap did not (%s → %s).",
		analyze.FormatBytes(growth), analyze.FormatBytes(d.BaseNonHeapCommitted), analyze.FormatBytes(d.NonHeapCommitted), percentChange(growth, d.BaseNonHeapCommitted),
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
	if len(leak.Grew) == 0 {
		return nil
	}
	leak.Category = leak.Grew[0].Name
	cause, what := TrackedCause(leak.Category)
	leak.Cause = cause
	fmt.Fprintf(&b, " Most of it is %s (%s %s)", what, leak.Category, analyze.FormatSignedValue(leak.Grew[0].CommittedDelta, "bytes"))
	switch {
	case cause == "thread-stacks" && d.ThreadsDelta > 0:
		fmt.Fprintf(&b, ": %s more threads (now %s), a thread leak; the thread dumps show which pool grows.",
			analyze.FormatCount(d.ThreadsDelta), analyze.FormatCount(d.Threads))
	case trackedExplanations[cause] != "":
		b.WriteString(": " + trackedExplanations[cause] + ".")
	default:
		b.WriteString(".")
	}
	leak.Message = b.String()
	return leak
}

// percentChange renders growth relative to base ("+12.5%"), or "new" from zero.
func percentChange(growth, base int64) string {
	if base == 0 {
		return "from nothing"
	}
	return fmt.Sprintf("%+.1f%%", float64(growth)*100/float64(base))
}
