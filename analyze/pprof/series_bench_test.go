package pprof

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/series"
)

// seriesBenchProgram is a made-up Go program whose heap profiles the benchmark
// writes with pprof's own encoder: functions, stacks over them, and a few stacks
// that leak (100 kB more per snapshot each).
type seriesBenchProgram struct {
	functions []*profile.Function
	locations []*profile.Location
	stacks    [][]*profile.Location
	leaking   map[int]bool // stack index → grows by one object per snapshot
}

func newSeriesBenchProgram(rng *rand.Rand, functions, stacks, leaking int) *seriesBenchProgram {
	prog := &seriesBenchProgram{leaking: map[int]bool{}}
	for i := range functions {
		fn := &profile.Function{ID: uint64(i + 1), Name: fmt.Sprintf("example.com/pkg%d.Func%d", i%37, i), Filename: fmt.Sprintf("pkg%d/f.go", i%37)}
		prog.functions = append(prog.functions, fn)
		prog.locations = append(prog.locations, &profile.Location{ID: uint64(i + 1), Address: uint64(0x1000 + 16*i), Line: []profile.Line{{Function: fn, Line: int64(10 + i)}}})
	}
	for range stacks {
		depth := 5 + rng.IntN(26)
		s := make([]*profile.Location, depth)
		for d := range s {
			s[d] = prog.locations[rng.IntN(functions)]
		}
		prog.stacks = append(prog.stacks, s)
	}
	for len(prog.leaking) < leaking {
		prog.leaking[rng.IntN(stacks)] = true
	}
	return prog
}

// snapshot writes the heap profile at snapshot i: every stack holds a random
// number of objects (a tenth of them none at all, so stacks come and go), the
// leaking ones 100 objects of 1 kB more per snapshot.
func (prog *seriesBenchProgram) snapshot(rng *rand.Rand, i int) []byte {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"},
			{Type: "inuse_objects", Unit: "count"}, {Type: "inuse_space", Unit: "bytes"},
		},
		PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"},
		Period:     512 * 1024,
		TimeNanos:  time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * 30 * time.Second).UnixNano(),
		Function:   prog.functions,
		Location:   prog.locations,
	}
	for k, s := range prog.stacks {
		objects, size := int64(rng.IntN(100)), int64(16<<(k%8))
		if prog.leaking[k] {
			objects, size = int64(100+100*i), 1024
		} else if rng.IntN(10) == 0 {
			continue
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: s, Value: []int64{objects * 3, objects * 3 * size, objects, objects * size}})
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// seriesBenchSnapshots loads n snapshots of a program with the given number of
// stacks.
func seriesBenchSnapshots(tb testing.TB, n, stacks int) ([]Snapshot, *seriesBenchProgram) {
	rng := rand.New(rand.NewPCG(uint64(stacks), 7))
	prog := newSeriesBenchProgram(rng, 800, stacks, 3)
	snaps := make([]Snapshot, n)
	for i := range snaps {
		p, err := parse(gunzip(tb, prog.snapshot(rng, i)))
		if err != nil {
			tb.Fatal(err)
		}
		snaps[i] = Snapshot{Name: fmt.Sprintf("heap-%02d", i), Profile: p}
	}
	return snaps, prog
}

func gunzip(tb testing.TB, data []byte) []byte {
	out, _, err := analyze.ReadAllLimited(bytes.NewReader(data), 0)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestSeriesSynthesizedProfiles runs the benchmark's profiles through the analysis
// once: the leaking stacks' leaf functions are the suspects (or a stack of them).
func TestSeriesSynthesizedProfiles(t *testing.T) {
	snaps, prog := seriesBenchSnapshots(t, 12, 2000)
	slices.Reverse(snaps) // given newest first: the profiles' times put them back in order
	rep, err := Series(snaps, series.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for k := range prog.leaking {
		want = append(want, prog.stacks[k][0].Line[0].Function.Name)
	}
	if rep.Verdict != series.Leak {
		t.Fatalf("verdict %s: %s", rep.Verdict, rep.Reason)
	}
	got := suspectNames(rep.Suspects)
	for _, name := range got {
		if !slices.Contains(want, name) {
			t.Errorf("suspect %s is not the leaf of a leaking stack %v", name, want)
		}
	}
	for _, name := range want {
		if !slices.Contains(got, name) {
			t.Errorf("the leaking stack's leaf %s is not a suspect (suspects %v)", name, got)
		}
	}
}

// BenchmarkProfileSeries measures the analysis of 10, 25 and 50 heap snapshots
// (5,000 stacks each, loaded beforehand): the time per snapshot should stay flat.
// cpu-ns/snapshot is the process' CPU time (garbage collection included), which
// the other work on a shared machine does not inflate as it does the wall clock.
func BenchmarkProfileSeries(b *testing.B) {
	for _, n := range []int{10, 25, 50} {
		b.Run(fmt.Sprintf("snapshots=%d", n), func(b *testing.B) {
			snaps, _ := seriesBenchSnapshots(b, n, 5000)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0, cpuOK := processCPUTime()
			for b.Loop() {
				if _, err := Series(snaps, series.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/snapshot")
			if cpu1, ok := processCPUTime(); ok && cpuOK {
				b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/snapshot")
			}
		})
	}
}
