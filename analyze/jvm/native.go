package jvm

import (
	"fmt"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
)

// InflaterNativeBytes is analyze.InflaterNativeBytes: the resident native
// memory one java.util.zip.Inflater of an open GZIPInputStream holds, as a JVM
// measured it.
const InflaterNativeBytes = analyze.InflaterNativeBytes

// Classes the native memory verdict counts in a class histogram.
const (
	InflaterClass     = "java.util.zip.Inflater"
	DeflaterClass     = "java.util.zip.Deflater"
	DirectBufferClass = "java.nio.DirectByteBuffer"
)

// deflaterZlibBytes is what zlib allocates for one deflate stream
// (analyze.DeflaterZlibBytes).
const deflaterZlibBytes = analyze.DeflaterZlibBytes

// NativeSnapshot is one capture of a JVM's memory, each part from its own
// source: the resident set from /proc/PID/status, Native Memory Tracking, the
// Java heap, and the classes alive.
type NativeSnapshot struct {
	Time time.Time
	// RSS is VmRSS of /proc/PID/status in bytes, -1 when not captured.
	RSS int64
	// NMT is the VM.native_memory summary, nil when tracking was off.
	NMT *NMT
	// Heap is the Java heap's resident bytes and HeapSource says where the
	// figure came from (see the HeapSource constants); -1 when unknown.
	Heap       int64
	HeapSource string
	// Histogram is GC.class_histogram -all (every object, reachable or not, no
	// GC run first), nil when not captured.
	Histogram *Histogram
}

// Where a snapshot's Java heap figure comes from, best first.
const (
	// HeapFromSmaps is the resident pages of the mappings inside the heap's
	// reserved range (GC.heap_info's addresses over /proc/PID/smaps).
	HeapFromSmaps = "resident pages of the heap (smaps)"
	// HeapFromUsed is the bytes objects use (GC.heap_info): a lower bound, since a
	// GC frees objects but leaves their pages resident.
	HeapFromUsed = "heap used (GC.heap_info)"
	// HeapFromHistogram is the bytes of every object in a -all class histogram.
	HeapFromHistogram = "all objects (GC.class_histogram -all)"
)

// NativeRow is one snapshot of a NativeReport, with what grew since the first.
type NativeRow struct {
	Time time.Time `json:"time,omitzero"`
	RSS  int64     `json:"rss"`
	// TrackedOutsideHeap is NMT's committed memory outside the Java heap, -1
	// without NMT.
	TrackedOutsideHeap int64 `json:"tracked_outside_heap"`
	Heap               int64 `json:"heap"`
	// Untracked is the untracked native growth since the first snapshot (0 for
	// the first; meaningless without RSS and NMT).
	Untracked      int64 `json:"untracked_since_first"`
	Inflaters      int64 `json:"inflaters"`
	Deflaters      int64 `json:"deflaters"`
	DirectBuffers  int64 `json:"direct_byte_buffers"`
	Threads        int64 `json:"threads"`
	HistogramTaken bool  `json:"histogram_taken"`
}

// NativeReport is what a JVM's memory did between its first and its last
// snapshot: how much of the resident set's growth Native Memory Tracking and the
// Java heap explain, what is left (the untracked native growth), the zlib streams
// and direct buffers alive, and the verdict.
type NativeReport struct {
	Snapshots int         `json:"snapshots"`
	Rows      []NativeRow `json:"rows"`
	// Complete tells that the first and last snapshots both have the resident
	// set, NMT and the heap, so that the untracked growth could be computed.
	Complete bool `json:"complete"`
	// Missing says what the first or last snapshot lacks for it.
	Missing []string `json:"missing,omitempty"`

	BaseRSS  int64 `json:"base_rss"`
	RSS      int64 `json:"rss"`
	RSSDelta int64 `json:"rss_delta"`
	// TrackedOutsideHeapDelta is the change of NMT's committed memory outside
	// the Java heap; HeapDelta the change of the resident Java heap, from
	// HeapSource.
	BaseTrackedOutsideHeap  int64  `json:"base_tracked_outside_heap"`
	TrackedOutsideHeap      int64  `json:"tracked_outside_heap"`
	TrackedOutsideHeapDelta int64  `json:"tracked_outside_heap_delta"`
	HeapSource              string `json:"heap_source"`
	BaseHeap                int64  `json:"base_heap"`
	Heap                    int64  `json:"heap"`
	HeapDelta               int64  `json:"heap_delta"`
	// UntrackedNativeDeltaBytes = RSSDelta − TrackedOutsideHeapDelta − HeapDelta:
	// native memory the JVM does not track that became resident.
	UntrackedNativeDeltaBytes int64 `json:"untracked_native_delta_bytes"`

	// InflatersAlive are the java.util.zip.Inflater instances in the last -all
	// histogram (each holds zlib's memory until it is ended or collected) and
	// InflatersDelta the change since the first; InflaterBytes is InflatersDelta
	// at InflaterNativeBytes each.
	InflatersAlive int64 `json:"inflaters_alive"`
	InflatersDelta int64 `json:"inflaters_delta"`
	InflaterBytes  int64 `json:"inflater_bytes"`
	// BytesPerInflater is InflaterNativeBytes, the JVM-measured figure used.
	BytesPerInflater int64 `json:"bytes_per_inflater"`
	DeflatersAlive   int64 `json:"deflaters_alive"`
	DeflatersDelta   int64 `json:"deflaters_delta"`
	// DirectBuffers are java.nio.DirectByteBuffer instances (their memory is
	// NMT's Other, or Internal before JDK 11), shown by count.
	DirectBuffers      int64 `json:"direct_byte_buffers"`
	DirectBuffersDelta int64 `json:"direct_byte_buffers_delta"`
	Threads            int64 `json:"threads"`
	ThreadsDelta       int64 `json:"threads_delta"`

	// NMT is NMT's first → last comparison, nil without NMT in both.
	NMT *NMTDiff `json:"nmt,omitempty"`
	// Verdict is the one-sentence finding.
	Verdict NativeVerdict `json:"verdict"`
}

// NativeVerdict is the finding of a NativeReport.
type NativeVerdict struct {
	// Leak tells that native memory grew beyond the thresholds.
	Leak bool `json:"leak"`
	// Cause is "untracked-inflaters" (a KAFKA-3933-shaped leak: untracked growth
	// explained by zlib streams alive), "untracked-deflaters", "untracked", a
	// tracked category's cause (see TrackedCause: "thread-stacks", "metaspace",
	// …), or "" for no leak.
	Cause string `json:"cause,omitempty"`
	// Sentence says it with the numbers.
	Sentence string `json:"sentence"`
}

// The thresholds of untracked native growth: at least nativeMinGrowth and
// nativeMinPercent of the first snapshot's resident set. A JVM's resident set
// moves by a few megabytes between two captures without any leak (glibc's
// arenas, the JIT compiler's arenas, jcmd's own attach), which they stay above.
const (
	nativeMinGrowth  = 16 << 20
	nativeMinPercent = 3
)

// AnalyzeNative compares a JVM's first and last snapshot (oldest first) and
// lists every snapshot's figures. It needs at least one snapshot.
func AnalyzeNative(snaps []NativeSnapshot) *NativeReport {
	rep := &NativeReport{Snapshots: len(snaps), BytesPerInflater: InflaterNativeBytes}
	if len(snaps) == 0 {
		rep.Verdict.Sentence = "No snapshot."
		return rep
	}
	first, last := snaps[0], snaps[len(snaps)-1]
	for _, s := range snaps {
		row := NativeRow{Time: s.Time, RSS: s.RSS, TrackedOutsideHeap: -1, Heap: s.Heap, Threads: -1, HistogramTaken: s.Histogram != nil}
		if s.NMT != nil {
			row.TrackedOutsideHeap = outsideHeap(s.NMT)
			if t, ok := s.NMT.Category("Thread"); ok {
				row.Threads = t.Count
			}
		}
		row.Inflaters, row.Deflaters, row.DirectBuffers = classCount(s.Histogram, InflaterClass), classCount(s.Histogram, DeflaterClass), classCount(s.Histogram, DirectBufferClass)
		if untracked, ok := untrackedGrowth(first, s); ok {
			row.Untracked = untracked
		}
		rep.Rows = append(rep.Rows, row)
	}
	rep.BaseRSS, rep.RSS, rep.RSSDelta = first.RSS, last.RSS, last.RSS-first.RSS
	rep.HeapSource = heapSource(first, last)
	rep.BaseHeap, rep.Heap, rep.HeapDelta = first.Heap, last.Heap, last.Heap-first.Heap
	rep.Missing = missing(first, last, len(snaps))
	if first.NMT != nil && last.NMT != nil {
		rep.NMT = DiffNMT(first.NMT, last.NMT)
		rep.BaseTrackedOutsideHeap, rep.TrackedOutsideHeap = outsideHeap(first.NMT), outsideHeap(last.NMT)
		rep.TrackedOutsideHeapDelta = rep.TrackedOutsideHeap - rep.BaseTrackedOutsideHeap
		rep.Threads, rep.ThreadsDelta = rep.NMT.Threads, rep.NMT.ThreadsDelta
	}
	rep.UntrackedNativeDeltaBytes, rep.Complete = untrackedGrowth(first, last)
	if last.Histogram != nil {
		rep.InflatersAlive = classCount(last.Histogram, InflaterClass)
		rep.DeflatersAlive = classCount(last.Histogram, DeflaterClass)
		rep.DirectBuffers = classCount(last.Histogram, DirectBufferClass)
		rep.InflatersDelta, rep.DeflatersDelta, rep.DirectBuffersDelta = rep.InflatersAlive, rep.DeflatersAlive, rep.DirectBuffers
		if len(snaps) > 1 && first.Histogram != nil {
			rep.InflatersDelta -= classCount(first.Histogram, InflaterClass)
			rep.DeflatersDelta -= classCount(first.Histogram, DeflaterClass)
			rep.DirectBuffersDelta -= classCount(first.Histogram, DirectBufferClass)
		}
		rep.InflaterBytes = max(rep.InflatersDelta, 0) * InflaterNativeBytes
	}
	rep.Verdict = rep.verdict()
	return rep
}

// untrackedGrowth is ΔRSS − Δ(NMT committed outside the heap) − Δ(resident heap)
// between two snapshots, and whether both had the three figures (with the heap
// from one source).
func untrackedGrowth(a, b NativeSnapshot) (int64, bool) {
	if a.RSS < 0 || b.RSS < 0 || a.NMT == nil || b.NMT == nil || a.Heap < 0 || b.Heap < 0 || a.HeapSource != b.HeapSource {
		return 0, false
	}
	return (b.RSS - a.RSS) - (outsideHeap(b.NMT) - outsideHeap(a.NMT)) - (b.Heap - a.Heap), true
}

// outsideHeap is NMT's committed memory outside the Java heap.
func outsideHeap(n *NMT) int64 {
	heap, _ := n.Category(HeapCategory)
	return n.TotalCommitted - heap.Committed
}

func heapSource(a, b NativeSnapshot) string {
	if a.HeapSource == b.HeapSource {
		return a.HeapSource
	}
	return ""
}

// missing names what the first or last snapshot lacks for the untracked growth.
func missing(first, last NativeSnapshot, n int) []string {
	var out []string
	if n < 2 {
		out = append(out, "a second snapshot: take another capture later to see what grows")
	}
	if first.RSS < 0 || last.RSS < 0 {
		out = append(out, "the resident set (/proc/PID/status)")
	}
	if first.NMT == nil || last.NMT == nil {
		out = append(out, "Native Memory Tracking (start the JVM with -XX:NativeMemoryTracking=summary; it cannot be turned on in a running JVM)")
	}
	if first.Heap < 0 || last.Heap < 0 || first.HeapSource != last.HeapSource {
		out = append(out, "the Java heap's resident size or use (GC.heap_info, /proc/PID/smaps)")
	}
	return out
}

// classCount is the instances of the class called name in h (0 when h is nil).
func classCount(h *Histogram, name string) int64 {
	if h == nil {
		return 0
	}
	var n int64
	for _, c := range h.Classes {
		if c.Name == name {
			n += c.Instances
		}
	}
	return n
}

// significant tells whether growth passes the thresholds against base.
func significant(growth, base int64) bool {
	return growth >= nativeMinGrowth && growth*100 >= nativeMinPercent*base
}

// verdict decides the finding: untracked growth first (named KAFKA-3933-shaped
// only when the Inflaters alive explain it), then growth NMT tracks, named by its
// category; the larger of the two leads when both grew.
func (r *NativeReport) verdict() NativeVerdict {
	if r.Snapshots < 2 {
		return r.oneSnapshot()
	}
	untracked := r.Complete && significant(r.UntrackedNativeDeltaBytes, r.BaseRSS)
	var tracked *NMTChange
	if r.NMT != nil && r.NMT.NativeLeak != nil && len(r.NMT.NativeLeak.Grew) > 0 {
		tracked = &r.NMT.NativeLeak.Grew[0]
	}
	switch {
	case untracked && (tracked == nil || r.UntrackedNativeDeltaBytes >= r.NMT.NonHeapCommittedDelta):
		v := r.untrackedVerdict()
		if tracked != nil && 4*r.NMT.NonHeapCommittedDelta >= r.UntrackedNativeDeltaBytes {
			_, what := TrackedCause(tracked.Name)
			v.Sentence += fmt.Sprintf(" NMT also tracked growth outside the heap: %s, most of it %s.",
				analyze.FormatSignedValue(r.NMT.NonHeapCommittedDelta, "bytes"), what)
		}
		return v
	case tracked != nil:
		v := NativeVerdict{Leak: true, Cause: r.NMT.NativeLeak.Cause, Sentence: r.NMT.NativeLeak.Message}
		if r.Complete {
			v.Sentence += fmt.Sprintf(" Untracked native memory: %s.", analyze.FormatSignedValue(r.UntrackedNativeDeltaBytes, "bytes"))
		}
		if r.NMT.NativeLeak.Cause == "direct-buffers" && r.DirectBuffers > 0 {
			v.Sentence += fmt.Sprintf(" %s java.nio.DirectByteBuffer alive (%s).", analyze.FormatCount(r.DirectBuffers), analyze.FormatSignedValue(r.DirectBuffersDelta, "count"))
		}
		return v
	case !r.Complete:
		return r.incompleteVerdict()
	}
	return NativeVerdict{Sentence: fmt.Sprintf("No native growth: RSS %s, of which NMT tracks %s outside the Java heap and the heap %s; untracked native memory %s.",
		analyze.FormatSignedValue(r.RSSDelta, "bytes"), analyze.FormatSignedValue(r.TrackedOutsideHeapDelta, "bytes"),
		analyze.FormatSignedValue(r.HeapDelta, "bytes"), analyze.FormatSignedValue(r.UntrackedNativeDeltaBytes, "bytes"))}
}

// untrackedVerdict names untracked growth, and the zlib streams when they
// explain it.
func (r *NativeReport) untrackedVerdict() NativeVerdict {
	u := r.UntrackedNativeDeltaBytes
	lead := fmt.Sprintf("RSS grew %s beyond what NMT tracks", analyze.FormatBytes(u))
	parts := fmt.Sprintf(" (RSS %s, NMT outside the heap %s, Java heap %s)", analyze.FormatSignedValue(r.RSSDelta, "bytes"),
		analyze.FormatSignedValue(r.TrackedOutsideHeapDelta, "bytes"), analyze.FormatSignedValue(r.HeapDelta, "bytes"))
	// The Inflaters explain the growth when their cost is within a factor of two
	// of it: more would mean most of them hold no memory (ended, awaiting
	// collection), fewer that something else grew.
	if r.InflaterBytes*2 >= u && r.InflaterBytes <= 2*u {
		alive := analyze.FormatCount(r.InflatersAlive)
		if r.InflatersDelta != r.InflatersAlive {
			alive += " (" + analyze.FormatSignedValue(r.InflatersDelta, "count") + " since the first capture)"
		}
		return NativeVerdict{Leak: true, Cause: "untracked-inflaters", Sentence: fmt.Sprintf(
			"%s; %s java.util.zip.Inflater alive ≈ %s at %s each: unclosed GZIPInputStream/Inflater (KAFKA-3933)%s.",
			lead, alive, analyze.FormatBytes(r.InflaterBytes), analyze.FormatBytes(InflaterNativeBytes), parts)}
	}
	if r.DeflatersDelta > 0 && r.DeflatersDelta*deflaterZlibBytes*2 >= u {
		return NativeVerdict{Leak: true, Cause: "untracked-deflaters", Sentence: fmt.Sprintf(
			"%s%s; %s java.util.zip.Deflater alive (%s), up to %s of zlib memory each once used: unclosed GZIPOutputStream/Deflater.",
			lead, parts, analyze.FormatCount(r.DeflatersAlive), analyze.FormatSignedValue(r.DeflatersDelta, "count"), analyze.FormatBytes(deflaterZlibBytes))}
	}
	s := lead + parts + ": native memory the JVM does not track (malloc by JNI libraries or native code, glibc's arenas)."
	if r.InflatersAlive > 0 {
		s += fmt.Sprintf(" The %s java.util.zip.Inflater alive would explain %s of it at %s each.", analyze.FormatCount(r.InflatersAlive),
			analyze.FormatBytes(r.InflaterBytes), analyze.FormatBytes(InflaterNativeBytes))
	}
	return NativeVerdict{Leak: true, Cause: "untracked", Sentence: s}
}

// incompleteVerdict says what can be said without one of the three figures.
func (r *NativeReport) incompleteVerdict() NativeVerdict {
	s := "The untracked native growth cannot be computed: the captures lack " + strings.Join(r.Missing, "; ") + "."
	if r.BaseRSS >= 0 && r.RSS >= 0 {
		s = fmt.Sprintf("RSS %s. ", analyze.FormatSignedValue(r.RSSDelta, "bytes")) + s
	}
	if r.InflatersAlive > 0 {
		s += fmt.Sprintf(" %s java.util.zip.Inflater alive would hold ≈ %s at %s each if their streams are open.",
			analyze.FormatCount(r.InflatersAlive), analyze.FormatBytes(r.InflatersAlive*InflaterNativeBytes), analyze.FormatBytes(InflaterNativeBytes))
	}
	return NativeVerdict{Sentence: s}
}

// oneSnapshot describes a single capture: no growth can be measured.
func (r *NativeReport) oneSnapshot() NativeVerdict {
	row := r.Rows[0]
	var b strings.Builder
	b.WriteString("One capture: ")
	if row.RSS >= 0 {
		fmt.Fprintf(&b, "RSS %s", analyze.FormatBytes(row.RSS))
	} else {
		b.WriteString("RSS unknown")
	}
	if row.TrackedOutsideHeap >= 0 {
		fmt.Fprintf(&b, ", NMT outside the heap %s", analyze.FormatBytes(row.TrackedOutsideHeap))
	}
	if row.Heap >= 0 {
		fmt.Fprintf(&b, ", Java heap %s", analyze.FormatBytes(row.Heap))
	}
	b.WriteString(".")
	if row.Inflaters > 0 {
		fmt.Fprintf(&b, " %s java.util.zip.Inflater alive would hold ≈ %s at %s each if their streams are open.",
			analyze.FormatCount(row.Inflaters), analyze.FormatBytes(row.Inflaters*InflaterNativeBytes), analyze.FormatBytes(InflaterNativeBytes))
	}
	b.WriteString(" Take another capture later: what grows between two is the verdict.")
	return NativeVerdict{Sentence: b.String()}
}
