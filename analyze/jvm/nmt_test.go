package jvm

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
)

// nmtAnchor reads "reserved=N[KB], committed=N[KB]" from a line grep found, in
// bytes, with a pattern of the test's own (not the parser's code).
func nmtAnchor(t *testing.T, line string) (reserved, committed int64) {
	t.Helper()
	m := regexp.MustCompile(`reserved=(\d+)(KB)?, committed=(\d+)(KB)?`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("no reserved/committed in %q", line)
	}
	unit := int64(1)
	if m[2] == "KB" {
		unit = 1024
	}
	return greptest.Int(t, m[1]) * unit, greptest.Int(t, m[3]) * unit
}

// TestNMTFixtures parses both NMT fixtures (bytes and KB) and checks them against
// grep on the same files: the Total line, the Java Heap line, the thread count, the
// number of categories, and the categories adding up to the total.
func TestNMTFixtures(t *testing.T) {
	for _, tc := range []struct {
		name     string
		scale    string
		rounding int64 // how far the sum of rounded categories may be from the total
	}{
		{"nmt-summary-jdk17-bytes.txt", "", 0},
		{"nmt-summary-jdk8-1529threads-KB.txt", "KB", 1024 * 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := fixtures.Path(t, "jvm", tc.name)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			n, err := ParseNMT(f)
			if err != nil {
				t.Fatal(err)
			}
			reserved, committed := nmtAnchor(t, greptest.Output(t, "-a", "--", `^Total:`, path)[0])
			if n.TotalReserved != reserved || n.TotalCommitted != committed || n.Scale != tc.scale || n.Diff {
				t.Errorf("total %d/%d scale %q diff %v; the Total line says %d/%d", n.TotalReserved, n.TotalCommitted, n.Scale, n.Diff, reserved, committed)
			}
			if want := grepCount(t, `^-`, path); len(n.Categories) != want {
				t.Errorf("%d categories, grep counts %d", len(n.Categories), want)
			}
			heapReserved, heapCommitted := nmtAnchor(t, greptest.Output(t, "-a", "--", `^- *Java Heap`, path)[0])
			if heap, ok := n.Category(HeapCategory); !ok || heap.Reserved != heapReserved || heap.Committed != heapCommitted || heap.MmapCommitted != heapCommitted {
				t.Errorf("Java Heap %+v, the file says %d/%d", heap, heapReserved, heapCommitted)
			}
			threadLine := greptest.Output(t, "-a", "--", `(threads\? #`, path)[0]
			threads := greptest.Int(t, regexp.MustCompile(`#(\d+)`).FindStringSubmatch(threadLine)[1])
			if th, _ := n.Category("Thread"); th.Count != threads {
				t.Errorf("Thread count %d, the file says %q", th.Count, threadLine)
			}
			var sumR, sumC int64
			for _, c := range n.Categories {
				sumR += c.Reserved
				sumC += c.Committed
			}
			if d := n.TotalCommitted - sumC; d < 0 || d > tc.rounding {
				t.Errorf("categories add up to %d committed, total %d", sumC, n.TotalCommitted)
			}
			if d := n.TotalReserved - sumR; d < 0 || d > tc.rounding {
				t.Errorf("categories add up to %d reserved, total %d", sumR, n.TotalReserved)
			}
			if len(n.Warnings) != 0 {
				t.Errorf("warnings %q", n.Warnings)
			}
			self := DiffNMT(n, n)
			if self.TotalCommittedDelta != 0 || self.NativeLeak != nil || len(self.Categories) != len(n.Categories) {
				t.Errorf("a report against itself: %+v", self)
			}
		})
	}
}

// nmtCat is one category of a report a test writes: its amounts at the baseline
// and now, in bytes.
type nmtCat struct {
	name                          string
	baseReserved, reserved        int64
	baseCommitted, committed      int64
	baseMalloc, malloc            int64
	baseMmapCommitted, mmapCommit int64
	baseCount, count              int64 // threads or classes
}

// nmtDiffText writes `jcmd <pid> VM.native_memory summary.diff scale=KB` the way
// MemSummaryDiffReporter prints it (memReporter.cpp: "-%*s (" with the name right
// aligned in 26 columns, details indented by 28, INT64_PLUS_FORMAT deltas printed only
// when not zero, amounts in whole KB).
func nmtDiffText(cats []nmtCat) string {
	kb := func(v int64) int64 { return v / 1024 }
	pair := func(cur, base int64) string {
		s := fmt.Sprintf("%dKB", kb(cur))
		if d := kb(cur) - kb(base); d != 0 {
			s += fmt.Sprintf(" %+dKB", d)
		}
		return s
	}
	count := func(cur, base int64) string {
		s := fmt.Sprintf("#%d", cur)
		if d := cur - base; d != 0 {
			s += fmt.Sprintf(" %+d", d)
		}
		return s
	}
	var tr, tc, br, bc int64
	for _, c := range cats {
		tr, tc, br, bc = tr+c.reserved, tc+c.committed, br+c.baseReserved, bc+c.baseCommitted
	}
	var b strings.Builder
	fmt.Fprintf(&b, "5545:\n\nNative Memory Tracking:\n\nTotal: reserved=%s, committed=%s\n\n", pair(tr, br), pair(tc, bc))
	indent := strings.Repeat(" ", 28)
	for _, c := range cats {
		fmt.Fprintf(&b, "-%26s (reserved=%s, committed=%s)\n", c.name, pair(c.reserved, c.baseReserved), pair(c.committed, c.baseCommitted))
		switch c.name {
		case "Thread":
			fmt.Fprintf(&b, "%s(thread %s)\n", indent, count(c.count, c.baseCount))
			fmt.Fprintf(&b, "%s(stack: reserved=%s, committed=%s)\n", indent, pair(c.reserved-c.malloc, c.baseReserved-c.baseMalloc), pair(c.committed-c.malloc, c.baseCommitted-c.baseMalloc))
		case "Class":
			fmt.Fprintf(&b, "%s(classes %s)\n", indent, count(c.count, c.baseCount))
		}
		if c.malloc > 0 {
			fmt.Fprintf(&b, "%s(malloc=%s #%d)\n", indent, pair(c.malloc, c.baseMalloc), 1000)
		}
		if c.mmapCommit > 0 {
			fmt.Fprintf(&b, "%s(mmap: reserved=%s, committed=%s)\n", indent, pair(c.reserved-c.malloc, c.baseReserved-c.baseMalloc), pair(c.mmapCommit, c.baseMmapCommitted))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// nmtSummaryText writes `jcmd <pid> VM.native_memory summary` of JDK 17+ (scale
// 1: bytes, no unit) the way MemSummaryReporter prints it, from the current amounts.
func nmtSummaryText(cats []nmtCat) string {
	var tr, tc, tm int64
	for _, c := range cats {
		tr, tc, tm = tr+c.reserved, tc+c.committed, tm+c.malloc
	}
	var b strings.Builder
	fmt.Fprintf(&b, "1845899:\n\nNative Memory Tracking:\n\nTotal: reserved=%d, committed=%d\n       malloc: %d #215943\n       mmap:   reserved=%d, committed=%d\n\n", tr, tc, tm, tr-tm, tc-tm)
	indent := strings.Repeat(" ", 28)
	for _, c := range cats {
		fmt.Fprintf(&b, "-%26s (reserved=%d, committed=%d)\n", c.name, c.reserved, c.committed)
		if c.name == "Thread" {
			fmt.Fprintf(&b, "%s(threads #%d)\n", indent, c.count)
			fmt.Fprintf(&b, "%s(stack: reserved=%d, committed=%d, peak=%d)\n", indent, c.reserved-c.malloc, c.committed-c.malloc, c.committed-c.malloc)
		}
		if c.malloc > 0 {
			fmt.Fprintf(&b, "%s(malloc=%d #53780) (peak=%d #68326) \n", indent, c.malloc, c.malloc+4096)
		}
		if c.mmapCommit > 0 {
			fmt.Fprintf(&b, "%s(mmap: reserved=%d, committed=%d, at peak) \n", indent, c.reserved-c.malloc, c.mmapCommit)
		}
		b.WriteString(" \n")
	}
	return b.String()
}

// kafkaBroker returns the categories of a Kafka broker's JVM during log recovery:
// a 1 GiB heap that stays put, and leaked bytes of native memory in Internal (JDK 8)
// or Other (JDK 11+) and malloc.
func kafkaBroker(leakCategory string, leaked int64) []nmtCat {
	const mb = 1 << 20
	return []nmtCat{
		{name: "Java Heap", baseReserved: 4096 * mb, reserved: 4096 * mb, baseCommitted: 1024 * mb, committed: 1024 * mb, baseMmapCommitted: 1024 * mb, mmapCommit: 1024 * mb},
		{name: "Class", baseReserved: 1100 * mb, reserved: 1100 * mb, baseCommitted: 70 * mb, committed: 70 * mb, baseMalloc: 2 * mb, malloc: 2 * mb, baseMmapCommitted: 68 * mb, mmapCommit: 68 * mb, baseCount: 11172, count: 11174},
		{name: "Thread", baseReserved: 130 * mb, reserved: 131 * mb, baseCommitted: 130 * mb, committed: 131 * mb, baseMalloc: mb, malloc: mb, baseCount: 130, count: 131},
		{name: "Code", baseReserved: 250 * mb, reserved: 251 * mb, baseCommitted: 37 * mb, committed: 38 * mb, baseMalloc: 6 * mb, malloc: 7 * mb, baseMmapCommitted: 31 * mb, mmapCommit: 31 * mb},
		{name: leakCategory, baseReserved: 12 * mb, reserved: 12*mb + leaked, baseCommitted: 12 * mb, committed: 12*mb + leaked, baseMalloc: 12 * mb, malloc: 12*mb + leaked},
		{name: "Symbol", baseReserved: 16 * mb, reserved: 16 * mb, baseCommitted: 16 * mb, committed: 16 * mb, baseMalloc: 16 * mb, malloc: 16 * mb},
	}
}

// nmtBase returns the categories' baseline amounts as current ones.
func nmtBase(cats []nmtCat) []nmtCat {
	out := make([]nmtCat, len(cats))
	for i, c := range cats {
		out[i] = nmtCat{name: c.name, reserved: c.baseReserved, committed: c.baseCommitted, malloc: c.baseMalloc, mmapCommit: c.baseMmapCommitted, count: c.baseCount}
	}
	return out
}

// TestNMTSummaryDiff parses a summary.diff of a recovering Kafka broker (JDK 8,
// KB) and checks amounts, deltas and the tracked growth, named by its category
// (never KAFKA-3933: NMT does not see zlib's memory), against what was written.
func TestNMTSummaryDiff(t *testing.T) {
	const leaked = 1536 << 20
	cats := kafkaBroker("Internal", leaked)
	n, err := ParseNMT(strings.NewReader(nmtDiffText(cats)))
	if err != nil {
		t.Fatal(err)
	}
	if !n.Diff || n.Scale != "KB" || len(n.Categories) != len(cats) || len(n.Warnings) != 0 {
		t.Fatalf("diff %v, scale %q, %d categories, warnings %q", n.Diff, n.Scale, len(n.Categories), n.Warnings)
	}
	internal, _ := n.Category("Internal")
	if internal.Committed != 12<<20+leaked || internal.CommittedDelta != leaked || internal.MallocDelta != leaked || internal.Malloc != 12<<20+leaked {
		t.Errorf("Internal %+v, want +%d committed and malloc", internal, leaked)
	}
	if th, _ := n.Category("Thread"); th.Count != 131 || th.CountDelta != 1 {
		t.Errorf("Thread %+v, want 131 threads (+1)", th)
	}
	d := n.BaselineDiff()
	wantGrowth := int64(leaked + 1<<20 + 1<<20) // Internal, Thread, Code
	if d.NonHeapCommittedDelta != wantGrowth || d.HeapCommittedDelta != 0 || d.BaseHeapCommitted != 1<<30 {
		t.Errorf("non-heap %+d, heap %+d (base %d); want %+d and 0", d.NonHeapCommittedDelta, d.HeapCommittedDelta, d.BaseHeapCommitted, wantGrowth)
	}
	if d.NativeLeak == nil || d.NativeLeak.Grew[0].Name != "Internal" || len(d.NativeLeak.Grew) != 3 || d.NativeLeak.Cause != "direct-buffers" || d.NativeLeak.Category != "Internal" {
		t.Fatalf("native leak %+v, want it led by Internal", d.NativeLeak)
	}
	if !strings.Contains(d.NativeLeak.Message, "grew by "+analyze.FormatBytes(wantGrowth)) || strings.Contains(d.NativeLeak.Message, "KAFKA-3933") || !strings.Contains(d.NativeLeak.Message, "direct buffers") || !strings.Contains(d.NativeLeak.Message, "Internal +"+analyze.FormatBytes(d.NativeLeak.Grew[0].CommittedDelta)) {
		t.Errorf("message %q", d.NativeLeak.Message)
	}
}

// TestNMTTwoSummaries diffs two JDK 17 summaries in bytes: the signature fires
// for growth in Other with a flat heap, and not when the heap grows too or when the
// growth is small.
func TestNMTTwoSummaries(t *testing.T) {
	parse := func(cats []nmtCat) *NMT {
		n, err := ParseNMT(strings.NewReader(nmtSummaryText(cats)))
		if err != nil {
			t.Fatal(err)
		}
		if len(n.Warnings) != 0 || n.Diff {
			t.Fatalf("warnings %q, diff %v", n.Warnings, n.Diff)
		}
		return n
	}
	leaking := kafkaBroker("Other", 800<<20)
	d := DiffNMT(parse(nmtBase(leaking)), parse(leaking))
	if d.NativeLeak == nil || d.NativeLeak.Grew[0].Name != "Other" || d.NativeLeak.Grew[0].CommittedDelta != 800<<20 || d.Categories[0].Name != "Other" {
		t.Fatalf("leak %+v, categories %+v", d.NativeLeak, d.Categories)
	}
	if d.TotalCommittedDelta != 802<<20 || d.ThreadsDelta != 1 || d.Threads != 131 {
		t.Errorf("total %+d, threads %d (%+d)", d.TotalCommittedDelta, d.Threads, d.ThreadsDelta)
	}
	if c := d.Categories[0]; c.Committed != 812<<20 || c.CommittedDelta != 800<<20 {
		t.Errorf("Other: %d committed (%+d), want 812 MiB (+800 MiB)", c.Committed, c.CommittedDelta)
	}

	heapToo := kafkaBroker("Other", 800<<20)
	heapToo[0].committed = 2048 << 20
	if d := DiffNMT(parse(nmtBase(heapToo)), parse(heapToo)); d.NativeLeak != nil {
		t.Errorf("the heap grew by 1 GiB as well: no native leak signature, got %q", d.NativeLeak.Message)
	}
	small := kafkaBroker("Other", 512<<10)
	if d := DiffNMT(parse(nmtBase(small)), parse(small)); d.NativeLeak != nil {
		t.Errorf("512 KiB of growth is noise, got %q", d.NativeLeak.Message)
	}
	threads := kafkaBroker("Other", 0)
	threads[2].reserved, threads[2].committed, threads[2].count = 1500<<20, 1500<<20, 1529
	d = DiffNMT(parse(nmtBase(threads)), parse(threads))
	if d.NativeLeak == nil || d.NativeLeak.Grew[0].Name != "Thread" || !strings.Contains(d.NativeLeak.Message, "1,399 more threads (now 1,529)") || d.NativeLeak.Cause != "thread-stacks" || strings.Contains(d.NativeLeak.Message, "KAFKA-3933") {
		t.Errorf("thread stack growth: %+v", d.NativeLeak)
	}
}

// TestNMTSeveralReports reads two reports appended to one file, as a script that
// runs jcmd every minute writes, with `date` lines between them.
func TestNMTSeveralReports(t *testing.T) {
	cats := kafkaBroker("Other", 100<<20)
	text := "Thu Feb 13 23:00:00 UTC 2020\n" + nmtSummaryText(nmtBase(cats)) + "Thu Feb 13 23:01:00 UTC 2020\n" + nmtSummaryText(cats)
	all, err := ParseNMTs(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || all[0].Time.Format("15:04") != "23:00" || all[1].Time.Format("15:04") != "23:01" {
		t.Fatalf("%d reports", len(all))
	}
	if d := DiffNMT(all[0], all[1]); d.NativeLeak == nil {
		t.Error("100 MiB of Other with a flat heap: want the signature")
	}
}

// TestNMTBadInput checks broken reports give the right error, never a panic.
func TestNMTBadInput(t *testing.T) {
	good := nmtSummaryText(kafkaBroker("Other", 0))
	for _, tc := range []struct {
		name, text string
		err        error
	}{
		{"empty", "", analyze.ErrEmpty},
		{"a log", "hello\n", analyze.ErrUnsupportedKind},
		{"no total", "Native Memory Tracking:\n\n-   Java Heap (reserved=1, committed=1)\n", analyze.ErrMalformed},
		{"overflow", "Native Memory Tracking:\nTotal: reserved=999999999999999999GB, committed=1\n", analyze.ErrMalformed},
		{"unknown unit", "Native Memory Tracking:\nTotal: reserved=5TB, committed=1TB\n", analyze.ErrMalformed},
		{"two totals", "Native Memory Tracking:\nTotal: reserved=5, committed=1\nTotal: reserved=5, committed=1\n", analyze.ErrMalformed},
		{"bad delta", "Native Memory Tracking:\nTotal: reserved=5KB +x, committed=1KB\n", analyze.ErrMalformed},
		{"cut", good[:len(good)/2], nil},
		{"garbage details", "Native Memory Tracking:\nTotal: reserved=5, committed=1\n- (\n(threads #\n(malloc=\n-  X (reserved=1, committed=1\n", analyze.ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := ParseNMT(strings.NewReader(tc.text))
			if tc.err != nil {
				if !isErr(err, tc.err) {
					t.Errorf("err %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			_ = n.Headline()
		})
	}
}
