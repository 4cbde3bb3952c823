package pprof

import (
	"errors"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze"
)

// The goroutines of TestDiffByGoroutineStart: each start function parks in a helper
// of its own, so the start function is never the leaf site.

//go:noinline
func startDiffLeaked(ready chan<- struct{}, stop <-chan struct{}) { startDiffWait(ready, stop) }

//go:noinline
func startDiffSteady(ready chan<- struct{}, stop <-chan struct{}) { startDiffWait(ready, stop) }

//go:noinline
func startDiffWait(ready chan<- struct{}, stop <-chan struct{}) {
	close(ready)
	<-stop
}

// startDiffPool starts goroutines with `go fn(…)`, so fn is their start function.
type startDiffPool struct {
	fn    func(chan<- struct{}, <-chan struct{})
	stops []chan struct{}
}

func (p *startDiffPool) grow(n int) {
	for range n {
		ready, stop := make(chan struct{}), make(chan struct{})
		go p.fn(ready, stop)
		<-ready
		p.stops = append(p.stops, stop)
	}
}

// stop ends the pool's goroutines and waits until the goroutine profile has
// none of them left, so that a next run of the test (-count) starts clean.
func (p *startDiffPool) stop(tb testing.TB) {
	for _, s := range p.stops {
		close(s)
	}
	p.stops = nil
	name := funcName(p.fn)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		counts, _, _ := goroutineStarts(processProfile(tb, "goroutine"))
		if counts[name] == 0 {
			return
		}
		if time.Now().After(deadline) {
			tb.Errorf("%d goroutines of %s still there 10 s after their stop", counts[name], name)
			return
		}
	}
}

func TestDiffByGoroutineStart(t *testing.T) {
	leaked, steady := &startDiffPool{fn: startDiffLeaked}, &startDiffPool{fn: startDiffSteady}
	defer leaked.stop(t)
	defer steady.stop(t)
	leaked.grow(3)
	steady.grow(5)
	base := goroutineSnapshot(t, "base").Profile
	leaked.grow(40)
	target := goroutineSnapshot(t, "target").Profile

	d, err := DiffByGoroutineStart(base, target)
	if err != nil {
		t.Fatal(err)
	}
	// The totals include goroutines other tests left winding down, which may end
	// between the snapshots; only this test's 8 and 48 are certain.
	if d.SampleType != "goroutine" || d.BaseTotal < 8 || d.TargetTotal < 48 {
		t.Errorf("totals %d → %d of %s, want at least 8 → 48 goroutines", d.BaseTotal, d.TargetTotal, d.SampleType)
	}
	// The leaked start function is the largest growth. (Rows rank by the
	// absolute change: goroutines an earlier test left winding down may drop by
	// more between the snapshots, so the first row is not checked as such.)
	var top DiffRow
	for _, r := range d.Rows {
		if r.Flat > top.Flat {
			top = r
		}
	}
	if top.Name != funcName(startDiffLeaked) || top.Flat != 40 || top.BaseFlat != 3 || top.TargetFlat != 43 {
		t.Errorf("largest growth %+v, want %s 3 → 43", top, funcName(startDiffLeaked))
	}
	var sum int64
	for _, r := range d.Rows {
		// Rows are start functions, never the park frames every blocked
		// goroutine shares. (A goroutine another test left exiting may be
		// caught in runtime.goexit1 alone and get a runtime row of its own:
		// that is its root-most frame, so it is not checked here.)
		if parkFrames[r.Name] {
			t.Errorf("row %q is a park frame", r.Name)
		}
		if r.Name == funcName(startDiffWait) {
			t.Errorf("row %q: the helper the goroutines park in is not their start function", r.Name)
		}
		if r.Name == funcName(startDiffSteady) && (r.Flat != 0 || r.TargetFlat != 5) {
			t.Errorf("steady row %+v, want 5 → 5", r)
		}
		sum += r.TargetFlat
	}
	if sum != d.TargetTotal {
		t.Errorf("rows hold %d goroutines of the target's %d", sum, d.TargetTotal)
	}

	if _, err := DiffByGoroutineStart(base, processProfile(t, "heap")); !errors.Is(err, analyze.ErrMismatch) {
		t.Errorf("goroutine vs heap: %v, want ErrMismatch", err)
	}
}

// parkFrames are the runtime functions a goroutine blocked on a channel,
// a select or a lock has at its leaf.
var parkFrames = map[string]bool{"runtime.gopark": true, "runtime.goparkunlock": true,
	"runtime.chanrecv": true, "runtime.chanrecv1": true, "runtime.selectgo": true,
	"runtime.semacquire1": true, "sync.runtime_SemacquireMutex": true}

func TestGoroutineStart(t *testing.T) {
	for _, c := range []struct {
		frames []string
		want   string
	}{
		{[]string{"runtime.gopark", "runtime.selectgo", "lib.Wait", "app.loop", "runtime.goexit"}, "app.loop"},
		{[]string{"runtime.gopark", "runtime.goparkunlock", "runtime.bgsweep", "runtime.goexit"}, "runtime.bgsweep"},
		{[]string{"runtime.gopark", "sync.(*Cond).Wait", "app.worker"}, "app.worker"},
		{[]string{"runtime.goexit"}, "runtime.goexit"},
	} {
		if got := goroutineStart(c.frames); got != c.want {
			t.Errorf("goroutineStart(%q) = %q, want %q", c.frames, got, c.want)
		}
	}
}

// BenchmarkDiffByGoroutineStart compares two goroutine profiles of 5000 parked
// goroutines by start function; BenchmarkDiffGoroutines is the same pair through
// Diff, the anchor (pprof's -diff_base top).
func BenchmarkDiffByGoroutineStart(b *testing.B) {
	base, target := benchGoroutinePair(b)
	for b.Loop() {
		if _, err := DiffByGoroutineStart(base, target); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDiffGoroutines(b *testing.B) {
	base, target := benchGoroutinePair(b)
	for b.Loop() {
		if _, err := Diff(base, target, target.DefaultSampleIndex()); err != nil {
			b.Fatal(err)
		}
	}
}

func benchGoroutinePair(b *testing.B) (base, target *Profile) {
	b.Helper()
	leaked, steady := &startDiffPool{fn: startDiffLeaked}, &startDiffPool{fn: startDiffSteady}
	b.Cleanup(func() { leaked.stop(b) })
	b.Cleanup(func() { steady.stop(b) })
	steady.grow(1000)
	leaked.grow(1000)
	base = processProfile(b, "goroutine")
	leaked.grow(3000)
	return base, processProfile(b, "goroutine")
}
