package pprof

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/leakui/leakui/internal/hostile"
)

// TestMemSizeEstimatesTheRetainedHeap parses a profile of 200,000 samples over
// 2,000 functions and compares MemSize with the heap it really keeps alive.
func TestMemSizeEstimatesTheRetainedHeap(t *testing.T) {
	p := hostile.Profile{SampleTypes: hostile.Heap}
	for i := range 200_000 {
		p.Samples = append(p.Samples, hostile.Sample{
			Stack:  []string{fmt.Sprintf("main.leaf%04d", i%2000), fmt.Sprintf("main.mid%02d", i%50), "main.main"},
			Values: []int64{1, 64, 1, 64},
		})
	}
	data := p.Encode()
	p = hostile.Profile{}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	prof, err := parse(data)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	retained := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	est := prof.MemSize()
	t.Logf("MemSize %d bytes, retained heap %d bytes", est, retained)
	if est < retained/2 || est > retained*2 {
		t.Errorf("MemSize %d is not within a factor of 2 of the retained heap %d", est, retained)
	}
	runtime.KeepAlive(prof)
	runtime.KeepAlive(data)
}
