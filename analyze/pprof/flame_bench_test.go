package pprof

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/hostile"
)

// fiftyMB is a pair of heap profiles of 1,048,576 stacks of 36 frames, 50 MB
// each, their samples in the scrambled order the Go runtime writes them in
// (made anew for each caller: kept in a package variable, they would swell the
// heap that the series tests profile).
func fiftyMB() ([]byte, []byte) {
	shape := hostile.StackShape{Depth: 10, Hops: 1, Scattered: true}
	base := hostile.ManyStacksShaped(shape)
	shape.Seed = 1
	return base, hostile.ManyStacksShaped(shape)
}

// diffFlameView is what an uncached diff flame view costs: both profiles
// parsed from their bytes within the budget, their trees built, the diff cut
// and streamed to w, a line per box (name, value, base, depth), as a page
// writes its data. It returns the cut.
func diffFlameView(x, y []byte, si int, budget *analyze.Budget, w io.Writer) (*FlameCut, error) {
	b := budget.Child(budget.Remaining())
	defer b.Release()
	trees := make([]*FlameTree, 2)
	for i, data := range [][]byte{x, y} {
		p, err := Open(Reader(bytes.NewReader(data)), Options{Budget: b})
		if err != nil {
			return nil, err
		}
		if err := b.Charge(p.MemSize()); err != nil { // held until its tree is built
			return nil, err
		}
		if trees[i], err = p.FlameTree(si, b); err != nil {
			return nil, err
		}
		b.Uncharge(p.MemSize())
		if err := b.Charge(trees[i].MemSize()); err != nil {
			return nil, err
		}
	}
	cut, err := CutDiffFlame(trees[0], trees[1], DefaultFlameFraction)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriter(w)
	var line []byte
	for box := range cut.Walk() {
		line = append(strconv.AppendQuote(line[:0], box.Name), ' ')
		line = append(strconv.AppendInt(line, box.Value, 10), ' ')
		line = append(strconv.AppendInt(line, box.Base, 10), ' ')
		line = append(strconv.AppendInt(line, int64(box.Depth), 10), '\n')
		bw.Write(line)
	}
	return cut, bw.Flush()
}

// TestDiffFlameOfTwo50MBProfiles measures the uncached diff flame view of two
// profiles of a million stacks (50 MB each): it is built within a budget of
// 1 GiB, and the time and the bytes allocated are logged (no timing is
// asserted). A budget too small for the trees refuses them.
func TestDiffFlameOfTwo50MBProfiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two 50 MB profiles")
	}
	a, b := fiftyMB()
	if raceEnabled { // the same code on 65,536 stacks
		shape := hostile.StackShape{Depth: 8, Hops: 1, Scattered: true}
		a = hostile.ManyStacksShaped(shape)
		shape.Seed = 1
		b = hostile.ManyStacksShaped(shape)
	}
	runtime.GC()
	before := allocated()
	cpu0, _ := processCPUTime()
	start := time.Now()
	cut, err := diffFlameView(a, b, 3, analyze.NewBudget(1<<30), io.Discard)
	took := time.Since(start)
	cpu1, _ := processCPUTime()
	grew := allocated() - before
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("uncached diff flame view of two %d-byte profiles: %v wall, %v CPU, %d bytes allocated, %d boxes", len(a), took, cpu1-cpu0, grew, cut.Nodes)
	base, err := parse(a)
	if err != nil {
		t.Fatal(err)
	}
	target, err := parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if cut.Total != mustTop(t, target, 3).Total || cut.BaseTotal != mustTop(t, base, 3).Total || cut.Nodes != maxFlameNodes {
		t.Errorf("totals %d/%d, %d boxes; want %d/%d, %d", cut.Total, cut.BaseTotal, cut.Nodes, mustTop(t, target, 3).Total, mustTop(t, base, 3).Total, maxFlameNodes)
	}
	if grew > 1<<30 {
		t.Errorf("%d bytes allocated, more than 1 GiB", grew)
	}
	// A budget too small for the trees refuses them.
	tb := analyze.NewBudget(8 << 20)
	if _, err := target.FlameTree(3, tb); !isErr(err, analyze.ErrBusy) && !isErr(err, analyze.ErrTooLarge) {
		t.Errorf("within 8 MB: %v, want the budget's error", err)
	}
	if tb.Used() != 0 {
		t.Errorf("the refused tree left %d bytes charged", tb.Used())
	}
}

// BenchmarkDiffFlame50MB measures the uncached diff flame view of two 50 MB
// profiles of a million stacks (diffFlameView: parse both, build, cut and
// stream), with the CPU seconds (every thread's, the garbage collector's
// included) and the process's peak resident memory beside the time.
func BenchmarkDiffFlame50MB(b *testing.B) {
	x, y := fiftyMB()
	b.ReportAllocs()
	b.SetBytes(int64(len(x) + len(y)))
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	cpu0, _ := processCPUTime()
	for b.Loop() {
		if _, err := diffFlameView(x, y, 3, nil, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	cpu1, _ := processCPUTime()
	b.ReportMetric((cpu1-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	if kib := peakRSSKiB(); kib > 0 {
		b.ReportMetric(float64(kib)/1024, "peak-RSS-MiB")
	}
}

// resetPeakRSS resets the process's peak resident memory (VmHWM) where Linux
// allows it (writing 5 to /proc/self/clear_refs).
func resetPeakRSS() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSSKiB is the process's peak resident memory in KiB (VmHWM), 0 where
// there is no /proc.
func peakRSSKiB() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kib
		}
	}
	return 0
}
