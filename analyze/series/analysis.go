package series

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// seriesAnalysis is one run of Analyze: the input in analysis order and
// what every series is measured against.
type seriesAnalysis struct {
	th         Thresholds
	ax         *seriesAxis
	sampleType string
	unit       string
	by         string
	names      []string // sorted
	values     map[string][]int64
	parts      map[string][]Part
	totals     []int64
	snapshots  []SnapshotInfo
	candidates int
	// rateNote says why there are no per-minute rates although the snapshots
	// have times (empty otherwise).
	rateNote string
	// span is the time from the first snapshot to the last, when every snapshot
	// has a time.
	span time.Duration
	// provenLeaked and warnings are the input's.
	provenLeaked bool
	warnings     []string
}

// seriesEntry is one series (or part) with its statistics and the outcome of the
// checks in each direction.
type seriesEntry struct {
	name   string
	values []int64
	stats  Stats
	up     seriesCheck // the first check failed as a grower (seriesPassed if none)
	down   seriesCheck // the same as a shrinker
	tested bool        // stats.PValue and Confidence are filled in
}

// newSeriesAnalysis reorders the input and prepares the shared axis.
func newSeriesAnalysis(in Input, order []int, th Thresholds) *seriesAnalysis {
	n := len(order)
	a := &seriesAnalysis{
		th:         th,
		sampleType: in.SampleType,
		unit:       in.Unit,
		by:         in.By,
		values:     make(map[string][]int64, len(in.Series)),
		parts:      make(map[string][]Part, len(in.Parts)),
		// A copy, so that the report never shares the caller's slice.
		provenLeaked: in.ProvenLeaked,
		warnings:     append([]string(nil), in.Warnings...),
	}
	for name, v := range in.Series {
		a.names = append(a.names, name)
		a.values[name] = seriesReorder(v, order)
	}
	sort.Strings(a.names)
	for name, parts := range in.Parts {
		out := make([]Part, len(parts))
		for i, p := range parts {
			out[i] = Part{Frames: p.Frames, Values: seriesReorder(p.Values, order)}
		}
		a.parts[name] = out
	}
	if len(in.Totals) == n {
		a.totals = seriesReorder(in.Totals, order)
	} else {
		a.totals = make([]int64, n)
		for _, name := range a.names {
			for i, v := range a.values[name] {
				a.totals[i] = AddClamped(a.totals[i], AbsClamped(v))
			}
		}
	}
	a.snapshots = make([]SnapshotInfo, n)
	for i, orig := range order {
		s := SnapshotInfo{Index: orig, Total: a.totals[i]}
		if len(in.Labels) == n {
			s.Name = in.Labels[orig]
		}
		if len(in.Times) == n {
			s.Time = in.Times[orig]
		}
		a.snapshots[i] = s
	}
	a.ax = &seriesAxis{n: n, index: make([]float64, n), trend: newSeriesTrendTest(n), refTotal: a.referenceTotal()}
	for i := range a.ax.index {
		a.ax.index[i] = float64(i)
	}
	if seriesTimesKnown(in.Times) {
		t0 := in.Times[order[0]]
		minutes := make([]float64, n)
		var span time.Duration
		for i, orig := range order {
			minutes[i] = in.Times[orig].Sub(t0).Minutes()
			span = max(span, in.Times[orig].Sub(t0))
		}
		a.span = span
		if span >= MinRateSpan {
			a.ax.minutes = minutes
		} else {
			a.rateNote = fmt.Sprintf("the snapshots span %s, less than %s: rates are per snapshot, not per minute", span.Round(time.Millisecond), MinRateSpan)
		}
	}
	a.candidates = a.countCandidates()
	return a
}

// seriesReorder copies v in analysis order.
func seriesReorder(v []int64, order []int) []int64 {
	out := make([]int64, len(order))
	for i, orig := range order {
		out[i] = v[orig]
	}
	return out
}

// referenceTotal is what shares are relative to: the largest absolute total, or,
// when the totals are all zero, the largest absolute value of any series.
func (a *seriesAnalysis) referenceTotal() float64 {
	var ref int64
	for _, t := range a.totals {
		ref = max(ref, AbsClamped(t))
	}
	if ref == 0 {
		for _, name := range a.names {
			for _, v := range a.values[name] {
				ref = max(ref, AbsClamped(v))
			}
		}
	}
	return float64(ref)
}

// material reports whether a series moves enough to be tested at all: its range
// reaches the minimum share of the total. The range does not depend on the order
// of the values, so choosing candidates by it leaves the trend test valid.
func (a *seriesAnalysis) material(v []int64) bool {
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	r := float64(seriesSub(hi, lo))
	return r > 0 && r >= a.th.MinShare*a.ax.refTotal
}

// countCandidates counts the hypotheses tested: every material series, and every
// material stack of a series with more than one stack (a lone stack is the
// series itself).
func (a *seriesAnalysis) countCandidates() int {
	k := 0
	for _, name := range a.names {
		if a.material(a.values[name]) {
			k++
		}
		if parts := a.parts[name]; len(parts) > 1 {
			for _, p := range parts {
				if a.material(p.Values) {
					k++
				}
			}
		}
	}
	return k
}

// entry computes a series' statistics and runs the checks in both directions.
// Only a series that passes every other check is tested for chance.
func (a *seriesAnalysis) entry(name string, v []int64) seriesEntry {
	e := seriesEntry{name: name, values: v, stats: a.ax.stats(v)}
	e.up, e.down = a.check(e.stats, 1), a.check(e.stats, -1)
	if e.up == seriesChance || e.down == seriesChance {
		a.test(&e)
		e.up, e.down = a.check(e.stats, 1), a.check(e.stats, -1)
	}
	return e
}

// test fills in the p-value and confidence.
func (a *seriesAnalysis) test(e *seriesEntry) {
	if !e.tested {
		a.ax.test(&e.stats, e.values, a.candidates)
		e.tested = true
	}
}

// seriesCheck names the first check a series failed.
type seriesCheck int

const (
	seriesPassed         seriesCheck = iota
	seriesWrongDirection             // it does not move in this direction at all
	seriesTooSmall                   // its change is below the minimum share of the total
	seriesUnsteady                   // too few steps moved in the direction
	seriesPoorFit                    // a line fits poorly
	seriesNoisy                      // the change is within the noise around the line
	seriesChance                     // the ordering is likely without a trend
	seriesBelowFloor                 // steady, but its change is under the absolute floor
)

// check runs the thresholds on a series' statistics in one direction (1 growth,
// −1 decline).
func (a *seriesAnalysis) check(st Stats, dir int) seriesCheck {
	change := float64(st.Growth) * float64(dir)
	switch {
	case seriesSign(st.Slope) != dir || change <= 0:
		return seriesWrongDirection
	case change < a.th.MinShare*a.ax.refTotal:
		return seriesTooSmall
	case st.StepShare < a.th.MinStepShare:
		return seriesUnsteady
	case st.R2 < a.th.MinR2 && st.StepShare < 1:
		return seriesPoorFit
	case change < a.th.NoiseFactor*st.Noise:
		return seriesNoisy
	case st.PValue > a.th.Alpha:
		return seriesChance
	case change < float64(a.th.MinGrowth):
		return seriesBelowFloor
	}
	return seriesPassed
}

// report runs the checks on every series and stack and writes the report.
func (a *seriesAnalysis) report(opts Options) *Report {
	rep := &Report{
		SampleType: a.sampleType,
		Unit:       a.unit,
		By:         a.by,
		Snapshots:  a.snapshots,
		Totals:     a.totals,
		Candidates: a.candidates,
		Needed:     seriesMinSnapshots(a.candidates, a.th.Alpha),
		RateNote:   a.rateNote,
		Checks:     a.th,
		Warnings:   a.warnings,
		Suspects:   []Suspect{},
		Growers:    []Suspect{},
		Shrinkers:  []Suspect{},
	}
	rep.Total = a.ax.stats(a.totals)
	a.ax.test(&rep.Total, a.totals, 1)
	if a.provenLeaked {
		rep.ProvenLeaked, rep.Leaked = true, max(a.totals[len(a.totals)-1], 0)
	}

	var suspects, growers, shrinkers []seriesListed
	for _, name := range a.names {
		site := a.entry(name, a.values[name])
		parts := make([]seriesEntry, len(a.parts[name]))
		partUp, partDown := false, false
		for i, p := range a.parts[name] {
			parts[i] = a.entry("", p.Values)
			partUp = partUp || parts[i].up == seriesPassed
			partDown = partDown || parts[i].down == seriesPassed
		}
		l := seriesListed{site: site, parts: a.parts[name], partStats: parts}
		switch {
		case site.up == seriesPassed || partUp:
			suspects = append(suspects, l)
		case site.stats.Growth > 0 && site.up > seriesTooSmall:
			growers = append(growers, l)
		}
		if site.down == seriesPassed || partDown {
			shrinkers = append(shrinkers, l)
		}
	}
	byGrowth := func(ls []seriesListed, dir int64) {
		sort.SliceStable(ls, func(i, j int) bool {
			gi, gj := ls[i].site.stats.Growth*dir, ls[j].site.stats.Growth*dir
			if gi != gj {
				return gi > gj
			}
			return ls[i].site.stats.Confidence > ls[j].site.stats.Confidence
		})
	}
	byGrowth(suspects, 1)
	byGrowth(growers, 1)
	byGrowth(shrinkers, -1)
	maxListed := opts.MaxListed
	if maxListed == 0 {
		maxListed = 20
	}
	if maxListed > 0 && len(growers) > maxListed {
		growers = growers[:maxListed]
	}
	if maxListed > 0 && len(shrinkers) > maxListed {
		shrinkers = shrinkers[:maxListed]
	}
	for _, l := range suspects {
		rep.Suspects = append(rep.Suspects, a.suspect(l, 1, opts.MaxStacks))
	}
	for _, l := range growers {
		rep.Growers = append(rep.Growers, a.suspect(l, 1, opts.MaxStacks))
	}
	for _, l := range shrinkers {
		rep.Shrinkers = append(rep.Shrinkers, a.suspect(l, -1, opts.MaxStacks))
	}
	a.verdict(rep)
	return rep
}

// seriesListed is a series on its way into one of the report's lists.
type seriesListed struct {
	site      seriesEntry
	parts     []Part
	partStats []seriesEntry
}

// suspect renders a listed series in one direction, with its stacks.
func (a *seriesAnalysis) suspect(l seriesListed, dir int, maxStacks int) Suspect {
	a.test(&l.site)
	s := Suspect{Name: l.site.name, Values: l.site.values, Stats: l.site.stats}
	result := l.site.up
	if dir < 0 {
		result = l.site.down
	}
	if result != seriesPassed {
		s.Why, s.failed = a.why(l.site.stats, result, dir, true), result
	}
	idx := make([]int, len(l.parts))
	for i := range idx {
		idx[i] = i
	}
	passed := func(i int) bool {
		if dir > 0 {
			return l.partStats[i].up == seriesPassed
		}
		return l.partStats[i].down == seriesPassed
	}
	sort.SliceStable(idx, func(x, y int) bool {
		i, j := idx[x], idx[y]
		if pi, pj := passed(i), passed(j); pi != pj {
			return pi
		}
		gi, gj := l.partStats[i].stats.Growth*int64(dir), l.partStats[j].stats.Growth*int64(dir)
		if gi != gj {
			return gi > gj
		}
		return strings.Join(l.parts[i].Frames, "\n") < strings.Join(l.parts[j].Frames, "\n")
	})
	if maxStacks == 0 {
		maxStacks = 20
	}
	if maxStacks > 0 && len(idx) > maxStacks {
		s.StacksOmitted = len(idx) - maxStacks
		idx = idx[:maxStacks]
	}
	for _, i := range idx {
		e := l.partStats[i]
		a.test(&e)
		s.Stacks = append(s.Stacks, Stack{Frames: l.parts[i].Frames, Values: e.values, Stats: e.stats, Passed: passed(i)})
	}
	return s
}

// test fills in a series' p-value (multiplied by the candidates) and confidence.
func (ax *seriesAxis) test(st *Stats, v []int64, candidates int) {
	st.PValue, st.Confidence = 1, 0
	dir := seriesSign(st.Slope)
	if dir == 0 || st.Max == st.Min {
		return
	}
	st.PValue = min(1, ax.trend.pValue(v, dir)*float64(max(candidates, 1)))
	st.Confidence = st.StepShare * st.R2 * (1 - st.PValue)
	if math.IsNaN(st.Confidence) {
		st.Confidence = 0
	}
}
