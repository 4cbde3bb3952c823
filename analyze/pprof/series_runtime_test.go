package pprof

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/leakui/leakui/analyze/series"
)

// The tests in this file profile the test process itself with runtime/pprof while
// it runs real goroutines and retains real allocations in known functions; the
// expected numbers are the counts the test set, not the analysis' output.

const seriesLabSnapshots = 12

// goroutineLab drives the goroutine pools of one test and takes the snapshots.
type goroutineLab struct {
	t      *testing.T
	leaked seriesPool
	freed  seriesPool
	noise  []*seriesPool
	snaps  []Snapshot
	// counts[fn][i] is how many goroutines of fn were parked at snapshot i.
	counts map[string][]int64
}

func newGoroutineLab(t *testing.T) *goroutineLab {
	lab := &goroutineLab{t: t, leaked: seriesPool{fn: seriesLeakedWorker}, freed: seriesPool{fn: seriesReleasedWorker}, counts: map[string][]int64{}}
	for _, fn := range seriesNoiseWorkers {
		lab.noise = append(lab.noise, &seriesPool{fn: fn})
	}
	return lab
}

// snapshot sets every pool to its size, then takes a goroutine profile.
func (lab *goroutineLab) snapshot(leaked, freed int, noise []int) {
	lab.leaked.resize(leaked)
	lab.freed.resize(freed)
	lab.record(seriesLeakedWorker, leaked)
	lab.record(seriesReleasedWorker, freed)
	for k, n := range noise {
		lab.noise[k].resize(n)
		lab.record(seriesNoiseWorkers[k], n)
	}
	lab.snaps = append(lab.snaps, goroutineSnapshot(lab.t, fmt.Sprintf("goroutine-%02d", len(lab.snaps))))
}

func (lab *goroutineLab) record(fn any, n int) {
	name := funcName(fn)
	lab.counts[name] = append(lab.counts[name], int64(n))
}

// stop ends every goroutine the lab started.
func (lab *goroutineLab) stop() {
	lab.leaked.resize(0)
	lab.freed.resize(0)
	for _, p := range lab.noise {
		p.resize(0)
	}
}

// checkCounts asserts that every site the lab drives has exactly the values the
// lab set, in snapshot order.
func (lab *goroutineLab) checkCounts(rep *series.Report, in series.Input) {
	lab.t.Helper()
	for name, want := range lab.counts {
		got := in.Series[name]
		if slices.Max(want) == 0 && got == nil {
			continue
		}
		if !slices.Equal(got, want) {
			lab.t.Errorf("%s: series %v, the test parked %v", name, got, want)
		}
	}
}

// uniformNoise draws a count per noise function.
func uniformNoise(rng *rand.Rand, hi int) []int {
	out := make([]int, len(seriesNoiseWorkers))
	for k := range out {
		out[k] = rng.IntN(hi + 1)
	}
	return out
}

// seriesInputOf rebuilds the input Series analyzed, in snapshot order, so
// that a test can compare the per-site values with what it set.
func seriesInputOf(t *testing.T, snaps []Snapshot, sampleIndex string) series.Input {
	t.Helper()
	si, err := seriesSampleIndex(snaps, sampleIndex)
	if err != nil {
		t.Fatal(err)
	}
	b := newSeriesBuilder(len(snaps), snaps[0].Profile.IsGoroutineProfile())
	for i, s := range snaps {
		if err := b.add(i, s.Profile, si); err != nil {
			t.Fatal(err)
		}
	}
	var in series.Input
	b.fill(&in)
	return in
}

// TestSeriesGoroutineLeakInNoise leaks one goroutine per snapshot in one function
// while four other functions run a random number of goroutines (0–40 each), so
// that the total swings by far more than the leak adds. The leak must be the one
// suspect, with its exact counts, even though the snapshots arrive shuffled.
func TestSeriesGoroutineLeakInNoise(t *testing.T) {
	defer goleak.VerifyNone(t)
	lab := newGoroutineLab(t)
	defer lab.stop()
	rng := rand.New(rand.NewPCG(3933, 2785))
	var noiseTotals []int
	for i := range seriesLabSnapshots {
		noise := uniformNoise(rng, 40)
		noiseTotals = append(noiseTotals, noise[0]+noise[1]+noise[2]+noise[3])
		lab.snapshot(i+1, 0, noise)
	}
	if swing := slices.Max(noiseTotals) - slices.Min(noiseTotals); swing <= seriesLabSnapshots {
		t.Fatalf("the noise swings by %d goroutines, not more than the leak's %d: the leak is not hidden", swing, seriesLabSnapshots-1)
	}
	rep, err := Series(shuffled(rng, lab.snaps), series.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range rep.Snapshots {
		if want := fmt.Sprintf("goroutine-%02d", i); s.Name != want {
			t.Fatalf("snapshot %d is %s, want %s: not ordered by the profiles' times", i, s.Name, want)
		}
	}
	lab.checkCounts(rep, seriesInputOf(t, lab.snaps, ""))
	leak := funcName(seriesLeakedWorker)
	if rep.Verdict != series.Leak || rep.VerdictText != "leak suspected" {
		t.Fatalf("verdict %s (%s): %s", rep.Verdict, rep.VerdictText, rep.Reason)
	}
	if len(rep.Suspects) != 1 || rep.Suspects[0].Name != leak {
		t.Fatalf("suspects %v, want only %s", suspectNames(rep.Suspects), leak)
	}
	s := rep.Suspects[0]
	want := make([]int64, seriesLabSnapshots)
	for i := range want {
		want[i] = int64(i + 1)
	}
	if !slices.Equal(s.Values, want) || s.Growth != seriesLabSnapshots-1 || math.Abs(s.Slope-1) > 1e-9 ||
		s.GrewSteps != seriesLabSnapshots-1 || s.R2 < 0.999999 {
		t.Errorf("suspect stats %+v", s.Stats)
	}
	// The snapshots were taken milliseconds apart: no rate per minute, and the
	// report says why.
	if s.SlopePerMinute != nil || !strings.Contains(rep.RateNote, "rates are per snapshot") {
		t.Errorf("slope per minute %v, rate note %q: want none over a span of milliseconds, and the note", s.SlopePerMinute, rep.RateNote)
	}
	if len(s.Stacks) == 0 || !slices.Contains(s.Stacks[0].Frames, leak) || s.Stacks[0].Frames[0] != "runtime.gopark" {
		t.Errorf("first stack %v: want the full stack from runtime.gopark through %s", s.Stacks[0].Frames, leak)
	}
	if !strings.HasPrefix(rep.Reason, leak+" grew steadily from 1 to 12 (+11, +1 per snapshot") || !strings.Contains(rep.Reason, "in 11 of 11 steps") {
		t.Errorf("reason %q", rep.Reason)
	}
}

// TestSeriesGoroutineFlatNoise runs the same noise without a leak under several
// seeds: nothing may be suspected.
func TestSeriesGoroutineFlatNoise(t *testing.T) {
	defer goleak.VerifyNone(t)
	for seed := range uint64(5) {
		lab := newGoroutineLab(t)
		rng := rand.New(rand.NewPCG(seed, 42))
		for range seriesLabSnapshots {
			lab.snapshot(0, 0, uniformNoise(rng, 40))
		}
		lab.stop()
		rep, err := Series(lab.snaps, series.Options{})
		if err != nil {
			t.Fatal(err)
		}
		lab.checkCounts(rep, seriesInputOf(t, lab.snaps, ""))
		if rep.Verdict == series.Leak || len(rep.Suspects) != 0 {
			t.Errorf("seed %d: verdict %s, suspects %v: %s", seed, rep.Verdict, suspectNames(rep.Suspects), rep.Reason)
		}
	}
}

// TestSeriesGoroutineRelease releases four goroutines per snapshot from one
// function, with a little noise elsewhere: the verdict is shrinking and names it.
func TestSeriesGoroutineRelease(t *testing.T) {
	defer goleak.VerifyNone(t)
	lab := newGoroutineLab(t)
	defer lab.stop()
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 10
	for i := range n {
		lab.snapshot(0, 40-4*i, uniformNoise(rng, 5))
	}
	rep, err := Series(lab.snaps, series.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lab.checkCounts(rep, seriesInputOf(t, lab.snaps, ""))
	freed := funcName(seriesReleasedWorker)
	if rep.Verdict != series.Shrinking || rep.VerdictText != "shrinking" || len(rep.Suspects) != 0 {
		t.Fatalf("verdict %s, suspects %v: %s", rep.Verdict, suspectNames(rep.Suspects), rep.Reason)
	}
	if len(rep.Shrinkers) == 0 || rep.Shrinkers[0].Name != freed || rep.Shrinkers[0].Growth != -36 || rep.Shrinkers[0].Slope > -3.999 {
		t.Fatalf("shrinkers %v", suspectNames(rep.Shrinkers))
	}
	if !strings.Contains(rep.Reason, freed+" shrank from 40 to 4") {
		t.Errorf("reason %q", rep.Reason)
	}
}

// heapLab retains one more small object per snapshot at seriesLeakyAlloc (when
// leaking) while four other sites retain a random number (0–256) of 1 kB buffers,
// replaced at every snapshot. It returns the snapshots and how many buffers each
// noise site held at each snapshot.
func heapLab(t *testing.T, seed uint64, leak bool) ([]Snapshot, [][]int64) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(seed, 512))
	var head *seriesLeakNode
	var noise [4][][]byte
	buffers := make([][]int64, len(seriesNoiseAllocs))
	for k := range buffers {
		buffers[k] = make([]int64, seriesLabSnapshots) // allocated before profiling starts
	}
	withMemProfileRate(t, func() {
		for i := range seriesLabSnapshots {
			if leak {
				head = seriesLeakyAlloc(head)
			}
			for k, alloc := range seriesNoiseAllocs {
				n := rng.IntN(257)
				noise[k] = alloc(n)
				buffers[k][i] = int64(n)
			}
			writeHeapSnapshot(t, dir, i)
		}
	})
	runtime.KeepAlive(head)
	runtime.KeepAlive(noise)
	return loadHeapSnapshots(t, dir, seriesLabSnapshots), buffers
}

// checkHeapObjects asserts that each noise site holds exactly the objects the test
// retained: its buffers plus the slice that holds them.
func checkHeapObjects(t *testing.T, snaps []Snapshot, buffers [][]int64) {
	t.Helper()
	in := seriesInputOf(t, snaps, "inuse_objects")
	for k, fn := range seriesNoiseAllocs {
		want := make([]int64, len(buffers[k]))
		for i, n := range buffers[k] {
			want[i] = n
			if n > 0 {
				want[i]++
			}
		}
		if got := in.Series[funcName(fn)]; !slices.Equal(got, want) {
			t.Errorf("%s holds %v objects, the test retained %v", funcName(fn), got, want)
		}
	}
}

// TestSeriesHeapLeakInNoise: one 4 kB object per snapshot at one site, hidden in
// hundreds of kB of noise, is the suspect, first and alone. The profiles count
// every allocation (MemProfileRate 1), so the floor of growth a suspect in bytes
// needs by default (512 KiB, the default sampling interval) is lowered to one
// object. With the default floor, the same leak, 44 kB in all, is not a suspect
// but a grower that says why, and the verdict's reason names it.
func TestSeriesHeapLeakInNoise(t *testing.T) {
	snaps, buffers := heapLab(t, 1, true)
	checkHeapObjects(t, snaps, buffers)
	checkLeakUnderTheFloor(t, snaps)
	rep, err := Series(snaps, series.Options{Thresholds: series.Thresholds{MinGrowth: 4000}})
	if err != nil {
		t.Fatal(err)
	}
	leak := funcName(seriesLeakyAlloc)
	if rep.Verdict != series.Leak || len(rep.Suspects) == 0 || rep.Suspects[0].Name != leak {
		t.Fatalf("verdict %s, suspects %v: %s", rep.Verdict, suspectNames(rep.Suspects), rep.Reason)
	}
	if rep.SampleType != "inuse_space" || rep.Unit != "bytes" {
		t.Errorf("analyzed %s in %s, want inuse_space in bytes", rep.SampleType, rep.Unit)
	}
	if swing := slices.Max(rep.Totals) - slices.Min(rep.Totals); swing < 4*rep.Suspects[0].Growth {
		t.Errorf("the total swings by %d bytes, less than 4× the leak's %d: not hidden", swing, rep.Suspects[0].Growth)
	}
	objects, err := Series(snaps, series.Options{SampleIndex: "inuse_objects"}) // 11 objects: over the floor of 3
	if err != nil {
		t.Fatal(err)
	}
	if len(objects.Suspects) == 0 || objects.Suspects[0].Name != leak {
		t.Fatalf("inuse_objects suspects %v", suspectNames(objects.Suspects))
	}
	for i, v := range objects.Suspects[0].Values {
		if v != int64(i+1) {
			t.Fatalf("%s holds %v objects, the test retained one more per snapshot", leak, objects.Suspects[0].Values)
		}
	}
	// Every object has the same size, so the bytes grow by exactly one object per
	// snapshot.
	s := rep.Suspects[0]
	size := s.Values[0]
	if size < 4000 || s.Growth != size*(seriesLabSnapshots-1) || math.Abs(s.Slope-float64(size)) > 1e-6 {
		t.Errorf("%s: values %v, slope %v", leak, s.Values, s.Slope)
	}
}

// checkLeakUnderTheFloor analyzes the heap lab's leak with the default floor.
func checkLeakUnderTheFloor(t *testing.T, snaps []Snapshot) {
	t.Helper()
	rep, err := Series(snaps, series.Options{})
	if err != nil {
		t.Fatal(err)
	}
	leak := funcName(seriesLeakyAlloc)
	if rep.Verdict == series.Leak || len(rep.Suspects) != 0 {
		t.Fatalf("verdict %s, suspects %v: %s", rep.Verdict, suspectNames(rep.Suspects), rep.Reason)
	}
	i := slices.IndexFunc(rep.Growers, func(g series.Suspect) bool { return g.Name == leak })
	if i < 0 || !strings.HasPrefix(rep.Growers[i].Why, "its steady growth of ") || !strings.HasSuffix(rep.Growers[i].Why, " is under the 512.0 kB a leak suspect needs") {
		t.Fatalf("growers %v: %s not among them with the floor as the reason", suspectNames(rep.Growers), leak)
	}
	if !strings.Contains(rep.Reason, leak+" went from ") || !strings.Contains(rep.Reason, rep.Growers[i].Why) {
		t.Errorf("reason %q does not name %s and its floor", rep.Reason, leak)
	}
}

// TestSeriesHeapFlatNoise: the same noise without the leak is not a leak.
func TestSeriesHeapFlatNoise(t *testing.T) {
	for seed := range uint64(3) {
		snaps, buffers := heapLab(t, seed+10, false)
		checkHeapObjects(t, snaps, buffers)
		rep, err := Series(snaps, series.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Verdict == series.Leak {
			t.Errorf("seed %d: verdict %s, suspects %v: %s", seed, rep.Verdict, suspectNames(rep.Suspects), rep.Reason)
		}
	}
}

func suspectNames(ss []series.Suspect) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}
