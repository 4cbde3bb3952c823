package hprof

import (
	"bytes"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/hostile"
)

// FuzzParse reads arbitrary bytes as a heap dump and reports on what parses,
// native memory section included, and writes and reads back its index with
// every view: it never panics, memory stays bounded by the input (objects are capped), and what
// the parse charged to its budget is all given back, on an error or at Close.
func FuzzParse(f *testing.F) {
	f.Add(loopDump(4))
	f.Add(loopDump(8))
	f.Add([]byte("JAVA PROFILE 1.0.1\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00"))
	// The records the native memory section and the reachability read:
	// references with referents, Inflaters and their zlib streams' holders.
	var native bytes.Buffer
	if err := hostile.NativeHolderDump(&native, 6, 4); err != nil {
		f.Fatal(err)
	}
	f.Add(native.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		budget := analyze.NewBudget(0).Child(64 << 20)
		h, err := Parse(bytes.NewReader(data), int64(len(data)), Options{MaxObjects: 1 << 16, Budget: budget})
		if err != nil {
			if budget.Used() != 0 {
				t.Fatalf("%d bytes charged after %v", budget.Used(), err)
			}
			return
		}
		defer func() {
			h.Close()
			if budget.Used() != 0 {
				t.Fatalf("%d bytes charged after Close", budget.Used())
			}
		}()
		rep, err := h.NewReport(ReportOptions{Native: true}, nil)
		if err != nil {
			return
		}
		// The index it writes opens, and every view of it answers.
		var idx bytes.Buffer
		if _, err := h.WriteIndex(&idx); err != nil {
			t.Fatalf("WriteIndex: %v", err)
		}
		x, err := OpenIndex(bytes.NewReader(idx.Bytes()), int64(idx.Len()))
		if err != nil {
			t.Fatalf("OpenIndex of the index just written: %v", err)
		}
		if err := walkIndex(x, 64); err != nil {
			t.Fatalf("the index just written: %v", err)
		}
		if rep.Reachable > rep.Shallow {
			t.Fatalf("reachable %d > shallow %d", rep.Reachable, rep.Shallow)
		}
		for o := range uint32(h.Objects()) {
			if h.Reachable(o) && h.Retained(o) < h.ShallowSize(o) {
				t.Fatalf("object %d retains %d < its shallow size %d", o, h.Retained(o), h.ShallowSize(o))
			}
		}
	})
}
