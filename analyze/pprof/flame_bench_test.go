package pprof

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/hostile"
)

// fiftyMB is a pair of hostile.ManyStacks(10) profiles, 40 MB each (made anew for
// each caller: kept in a package variable, they would swell the heap that the
// series tests profile).
func fiftyMB() ([]byte, []byte) { return hostile.ManyStacks(10, 0), hostile.ManyStacks(10, 1) }

// TestDiffFlameOfTwo50MBProfiles measures the diff flame graph of two profiles
// of a million stacks (40 MB each, issue 21's B2): it is built within a budget of
// 1 GiB, and the time and the bytes allocated are logged (no timing is asserted).
func TestDiffFlameOfTwo50MBProfiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two 45 MB profiles")
	}
	a, b := fiftyMB()
	if raceEnabled {
		a, b = hostile.ManyStacks(8, 0), hostile.ManyStacks(8, 1) // the same code on 65,536 stacks
	}
	base, err := parse(a)
	if err != nil {
		t.Fatal(err)
	}
	target, err := parse(b)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	before := allocated()
	cpu0, _ := processCPUTime()
	start := time.Now()
	fg, err := DiffFlameWithin(base, target, 3, DefaultFlameFraction, analyze.NewBudget(1<<30))
	took := time.Since(start)
	cpu1, _ := processCPUTime()
	grew := allocated() - before
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("diff flame of two %d-byte profiles (%d samples each): %v wall, %v CPU, %d bytes allocated, %d boxes", len(a), target.Samples(), took, cpu1-cpu0, grew, fg.Nodes)
	if fg.Total != mustTop(t, target, 3).Total || fg.BaseTotal != mustTop(t, base, 3).Total {
		t.Errorf("totals %d/%d, want %d/%d", fg.Total, fg.BaseTotal, mustTop(t, target, 3).Total, mustTop(t, base, 3).Total)
	}
	if grew > 1<<30 {
		t.Errorf("%d bytes allocated, more than 1 GiB", grew)
	}
	// A budget too small for the tree refuses it.
	if _, err := DiffFlameWithin(base, target, 3, DefaultFlameFraction, analyze.NewBudget(8<<20)); !isErr(err, analyze.ErrBusy) && !isErr(err, analyze.ErrTooLarge) {
		t.Errorf("within 8 MB: %v, want the budget's error", err)
	}
}

// BenchmarkDiffFlame50MB measures the diff flame graph of two 40 MB profiles.
func BenchmarkDiffFlame50MB(b *testing.B) {
	x, y := fiftyMB()
	base, err := Load(bytes.NewReader(x), 0)
	if err != nil {
		b.Fatal(err)
	}
	target, err := Load(bytes.NewReader(y), 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DiffFlame(base, target, 3, DefaultFlameFraction); err != nil {
			b.Fatal(err)
		}
	}
}
