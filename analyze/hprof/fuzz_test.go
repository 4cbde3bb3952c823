package hprof

import (
	"bytes"
	"testing"
)

// FuzzParse reads arbitrary bytes as a heap dump and reports on what parses: it
// never panics, and memory stays bounded by the input (objects are capped).
func FuzzParse(f *testing.F) {
	f.Add(loopDump(4))
	f.Add(loopDump(8))
	f.Add([]byte("JAVA PROFILE 1.0.1\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Parse(bytes.NewReader(data), int64(len(data)), Options{MaxObjects: 1 << 16})
		if err != nil {
			return
		}
		rep, err := h.NewReport(ReportOptions{}, nil)
		if err != nil {
			return
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
