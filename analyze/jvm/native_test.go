package jvm

import (
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/jvmtext"
)

// nativeSnap builds a snapshot of a broker: rss, NMT's categories, the heap, and
// a -all histogram with the given zlib classes alive.
func nativeSnap(t *testing.T, at int, rss int64, cats []nmtCat, heap int64, inflaters, deflaters int64) NativeSnapshot {
	t.Helper()
	n, err := ParseNMT(strings.NewReader(nmtSummaryText(cats)))
	if err != nil {
		t.Fatal(err)
	}
	rows := []jvmtext.Class{{Name: "[B", Module: "java.base@17.0.15", Instances: 5000, Bytes: 4 << 20}}
	if inflaters > 0 {
		rows = append(rows, jvmtext.Class{Name: InflaterClass, Module: "java.base@17.0.15", Instances: inflaters, Bytes: inflaters * 64})
	}
	if deflaters > 0 {
		rows = append(rows, jvmtext.Class{Name: DeflaterClass, Module: "java.base@17.0.15", Instances: deflaters, Bytes: deflaters * 64})
	}
	jvmtext.SortByBytes(rows)
	h, err := ParseHistogram(strings.NewReader(jvmtext.Histogram(jvmtext.JDK9, rows)))
	if err != nil {
		t.Fatal(err)
	}
	return NativeSnapshot{Time: time.Date(2026, 12, 1, 10, at, 0, 0, time.UTC), RSS: rss, NMT: n, Heap: heap, HeapSource: HeapFromSmaps, Histogram: h}
}

// TestNativeVerdicts checks each verdict on the figures that lead to it: the
// untracked growth is ΔRSS − ΔNMT outside the heap − Δheap, named KAFKA-3933
// only when the Inflaters alive explain it, and growth NMT tracks is named by
// its category.
func TestNativeVerdicts(t *testing.T) {
	const mb = 1 << 20
	flat := kafkaBroker("Other", 0)
	base := func() NativeSnapshot { return nativeSnap(t, 0, 1200*mb, flat, 300*mb, 0, 0) }

	// 20,000 streams left open: +260 MB of RSS, +20 MB of it the heap.
	leak := AnalyzeNative([]NativeSnapshot{base(), nativeSnap(t, 30, 1460*mb, flat, 320*mb, 20_000, 0)})
	if !leak.Complete || leak.UntrackedNativeDeltaBytes != 240*mb || leak.RSSDelta != 260*mb || leak.HeapDelta != 20*mb || leak.TrackedOutsideHeapDelta != 0 {
		t.Fatalf("untracked %d, RSS %+d, heap %+d, NMT %+d", leak.UntrackedNativeDeltaBytes, leak.RSSDelta, leak.HeapDelta, leak.TrackedOutsideHeapDelta)
	}
	if v := leak.Verdict; !v.Leak || v.Cause != "untracked-inflaters" || leak.InflatersAlive != 20_000 || leak.InflaterBytes != 20_000*InflaterNativeBytes ||
		!strings.Contains(v.Sentence, "RSS grew "+analyze.FormatBytes(240*mb)+" beyond what NMT tracks; 20,000 java.util.zip.Inflater alive ≈ "+analyze.FormatBytes(20_000*InflaterNativeBytes)+" at 12.2 kB each: unclosed GZIPInputStream/Inflater (KAFKA-3933)") {
		t.Errorf("leak: %+v", v)
	}
	if r := leak.Rows[1]; r.Untracked != 240*mb || r.Inflaters != 20_000 || r.TrackedOutsideHeap != leak.TrackedOutsideHeap {
		t.Errorf("row %+v", r)
	}

	// The same growth with a hundred Inflaters: untracked, not KAFKA-3933.
	other := AnalyzeNative([]NativeSnapshot{base(), nativeSnap(t, 30, 1460*mb, flat, 320*mb, 100, 0)})
	if v := other.Verdict; !v.Leak || v.Cause != "untracked" || strings.Contains(v.Sentence, "KAFKA-3933") || !strings.Contains(v.Sentence, "would explain") {
		t.Errorf("untracked without Inflaters: %+v", v)
	}
	// Ten times too many Inflaters to be what grew: most hold nothing.
	many := AnalyzeNative([]NativeSnapshot{base(), nativeSnap(t, 30, 1460*mb, flat, 320*mb, 200_000, 0)})
	if v := many.Verdict; v.Cause != "untracked" {
		t.Errorf("200,000 Inflaters for 240 MB: %+v", v)
	}
	// Deflaters, each up to 256 KiB of zlib memory once used.
	deflaters := AnalyzeNative([]NativeSnapshot{base(), nativeSnap(t, 30, 1460*mb, flat, 320*mb, 0, 1000)})
	if v := deflaters.Verdict; v.Cause != "untracked-deflaters" || !strings.Contains(v.Sentence, "1,000 java.util.zip.Deflater") {
		t.Errorf("Deflaters: %+v", v)
	}

	// Thread stacks: NMT's Thread category grows as much as RSS does.
	threads := kafkaBroker("Other", 0)
	threads[2].reserved, threads[2].committed, threads[2].count = 431*mb, 431*mb, 431
	stacks := AnalyzeNative([]NativeSnapshot{base(), nativeSnap(t, 30, 1500*mb, threads, 300*mb, 0, 0)})
	if v := stacks.Verdict; !v.Leak || v.Cause != "thread-stacks" || !strings.Contains(v.Sentence, "thread stacks") || strings.Contains(v.Sentence, "KAFKA-3933") ||
		stacks.UntrackedNativeDeltaBytes != 0 || stacks.ThreadsDelta != 300 {
		t.Errorf("thread stacks: untracked %d, threads %+d: %+v", stacks.UntrackedNativeDeltaBytes, stacks.ThreadsDelta, v)
	}

	// Noise: 10 MB of untracked growth is under the threshold.
	quiet := AnalyzeNative([]NativeSnapshot{base(), nativeSnap(t, 30, 1220*mb, flat, 310*mb, 0, 0)})
	if v := quiet.Verdict; v.Leak || v.Cause != "" || !strings.HasPrefix(v.Sentence, "No native growth") || quiet.UntrackedNativeDeltaBytes != 10*mb {
		t.Errorf("noise: untracked %d: %+v", quiet.UntrackedNativeDeltaBytes, v)
	}

	// Without NMT (or the heap, or RSS) the untracked growth is not computed,
	// and the verdict says what is missing.
	noNMT := nativeSnap(t, 30, 1460*mb, flat, 320*mb, 20_000, 0)
	noNMT.NMT = nil
	incomplete := AnalyzeNative([]NativeSnapshot{base(), noNMT})
	if v := incomplete.Verdict; incomplete.Complete || v.Leak || !strings.Contains(v.Sentence, "-XX:NativeMemoryTracking=summary") || !strings.Contains(v.Sentence, "20,000 java.util.zip.Inflater") {
		t.Errorf("no NMT: %+v", v)
	}
	otherHeap := nativeSnap(t, 30, 1460*mb, flat, 320*mb, 20_000, 0)
	otherHeap.HeapSource = HeapFromUsed
	if r := AnalyzeNative([]NativeSnapshot{base(), otherHeap}); r.Complete || r.HeapSource != "" {
		t.Errorf("heaps from two sources were compared: %+v", r)
	}
	one := AnalyzeNative([]NativeSnapshot{nativeSnap(t, 30, 1460*mb, flat, 320*mb, 20_000, 0)})
	if v := one.Verdict; v.Leak || !strings.HasPrefix(v.Sentence, "One capture: RSS "+analyze.FormatBytes(1460*mb)) || !strings.Contains(v.Sentence, "Take another capture") {
		t.Errorf("one snapshot: %+v", v)
	}
}
