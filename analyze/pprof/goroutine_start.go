package pprof

import (
	"fmt"
	"sort"

	"github.com/leakui/leakui/analyze"
)

// goroutineStart returns the function a goroutine was started in, from its frames
// leaf first: the first frame outside the runtime, internal, sync and time packages
// counted from the root, which is how `go tool trace` groups goroutines (by start
// function). A stack of nothing but such frames (a GC worker, the finalizer
// goroutine) is attributed to its root-most frame other than runtime.goexit.
// frames must not be empty.
func goroutineStart(frames []string) string {
	for i := len(frames) - 1; i >= 0; i-- {
		if !seriesMachinery.MatchString(frames[i]) {
			return frames[i]
		}
	}
	for i := len(frames) - 1; i >= 0; i-- {
		if frames[i] != "runtime.goexit" {
			return frames[i]
		}
	}
	return frames[0]
}

// goroutineStarts counts the goroutines of a goroutine profile by start function;
// total counts them all, those without frames too.
func goroutineStarts(p *Profile) (counts map[string]int64, total int64, err error) {
	g := p.tables()
	counts = make(map[string]int64)
	var frames []string
	err = p.walkValues(p.DefaultSampleIndex(), func(buf []int32, v int64) {
		frames = frames[:0]
		for _, l := range buf {
			for _, ln := range g.locs[l].lines {
				frames = append(frames, g.names[ln.node])
			}
		}
		total += v
		if len(frames) > 0 {
			counts[goroutineStart(frames)] += v
		}
	})
	return counts, total, err
}

// DiffByGoroutineStart compares two goroutine profiles by the function each
// goroutine was started in (see goroutineStart), so that the runtime's park
// functions, which every blocked goroutine shares, never head the comparison: each
// row is one start function, its Flat and Cum the change in its goroutines, ranked
// by the absolute change, then by name. Profiles that are not both goroutine
// profiles are refused with ErrMismatch.
func DiffByGoroutineStart(base, target *Profile) (DiffResult, error) {
	if err := Comparable(base, target); err != nil {
		return DiffResult{}, err
	}
	if !base.IsGoroutineProfile() {
		return DiffResult{}, fmt.Errorf("%w: a comparison by start function needs goroutine profiles", analyze.ErrMismatch)
	}
	bCounts, bTotal, err := goroutineStarts(base)
	if err != nil {
		return DiffResult{}, err
	}
	tCounts, tTotal, err := goroutineStarts(target)
	if err != nil {
		return DiffResult{}, err
	}
	st := base.meta.sampleTypes[base.DefaultSampleIndex()]
	res := DiffResult{SampleType: st.typ, Unit: st.unit, BaseTotal: bTotal, TargetTotal: tTotal, Total: bTotal}
	if bTotal == 0 {
		res.Total = tTotal
	}
	names := make(map[string]bool, len(tCounts)+len(bCounts))
	for n := range bCounts {
		names[n] = true
	}
	for n := range tCounts {
		names[n] = true
	}
	for n := range names {
		b, t := bCounts[n], tCounts[n]
		res.Rows = append(res.Rows, DiffRow{Name: n, Flat: t - b, Cum: t - b, BaseFlat: b, TargetFlat: t, BaseCum: b, TargetCum: t})
	}
	sort.Slice(res.Rows, func(i, j int) bool {
		if a, b := abs64(res.Rows[i].Flat), abs64(res.Rows[j].Flat); a != b {
			return a > b
		}
		return res.Rows[i].Name < res.Rows[j].Name
	})
	return res, nil
}
