package goroutines

import (
	"bytes"
	"runtime"
	"testing"
)

// TestReportMemSizeIsNearTheHeapItHolds: what Report.MemSize says a report of a
// dump of 20,000 goroutines in 20,000 groups holds is within a factor of 3 of the
// heap that grouping actually kept (measured with the dump already parsed, so
// the shared stacks are not counted on either side).
func TestReportMemSizeIsNearTheHeapItHolds(t *testing.T) {
	d, err := Parse(bytes.NewReader(goroutineNamesDump(20_000, 8)), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r := NewReport(d, nil)
	runtime.GC()
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	size := r.MemSize()
	if len(r.Groups) != 20_000 {
		t.Fatalf("%d groups, want 20000", len(r.Groups))
	}
	t.Logf("MemSize %d bytes, heap growth %d bytes", size, grown)
	if grown <= 0 || size < grown/3 || size > grown*3 {
		t.Errorf("MemSize %d bytes, the heap grew by %d bytes: not within a factor of 3", size, grown)
	}
	runtime.KeepAlive(r)
	runtime.KeepAlive(d)
}
