package series

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze"
)

// permutations calls fn with every ordering of 0…n−1.
func permutations(n int, fn func([]int64)) {
	p := make([]int64, n)
	for i := range p {
		p[i] = int64(i)
	}
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			fn(p)
			return
		}
		for i := k; i < n; i++ {
			p[k], p[i] = p[i], p[k]
			rec(k + 1)
			p[k], p[i] = p[i], p[k]
		}
	}
	rec(0)
}

// kendallS counts concordant minus discordant pairs, the slow obvious way.
func kendallS(v []int64) int {
	s := 0
	for i := range v {
		for j := i + 1; j < len(v); j++ {
			if v[j] > v[i] {
				s++
			} else if v[j] < v[i] {
				s--
			}
		}
	}
	return s
}

// TestSeriesTrendPValueIsExact compares the trend test's p-value with a count over
// all n! orderings: the share of orderings whose score is at least as high.
func TestSeriesTrendPValueIsExact(t *testing.T) {
	for n := 3; n <= 7; n++ {
		var scores []int
		permutations(n, func(p []int64) { scores = append(scores, kendallS(p)) })
		tt := newSeriesTrendTest(n)
		permutations(n, func(p []int64) {
			s := kendallS(p)
			atLeast := 0
			for _, o := range scores {
				if o >= s {
					atLeast++
				}
			}
			want := float64(atLeast) / float64(len(scores))
			if got := tt.pValue(p, 1); math.Abs(got-want) > 1e-12 {
				t.Fatalf("n=%d %v: p = %v, counting orderings gives %v", n, p, got, want)
			}
			atMost := 0
			for _, o := range scores {
				if o <= s {
					atMost++
				}
			}
			if got := tt.pValue(p, -1); math.Abs(got-float64(atMost)/float64(len(scores))) > 1e-12 {
				t.Fatalf("n=%d %v: decline p = %v, want %v", n, p, got, float64(atMost)/float64(len(scores)))
			}
		})
	}
	// Strictly increasing: 1/n!, down to the exact limit and beyond it.
	fact := 1.0
	for n := 1; n <= 20; n++ {
		fact *= float64(n)
		if n < 3 {
			continue
		}
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(i)
		}
		if got := newSeriesTrendTest(n).pValue(v, 1); math.Abs(got*fact-1) > 1e-9 {
			t.Errorf("n=%d increasing: p = %v, want 1/%v", n, got, fact)
		}
	}
	big := make([]int64, 200)
	for i := range big {
		big[i] = int64(i % 2) // alternating: no trend
	}
	if p := newSeriesTrendTest(200).pValue(big, 1); p < 0.3 || p > 0.7 {
		t.Errorf("alternating 200 values: p = %v, want about 0.5", p)
	}
}

// TestSeriesLeastSquares checks the fit against numbers worked out by hand.
func TestSeriesLeastSquares(t *testing.T) {
	x := []float64{0, 1, 2}
	// y = 1, 3, 2: mean 2, sxx = 2, sxy = 1, syy = 2 → slope 0.5, SSres = 1.5,
	// R² = 0.25, noise = √1.5.
	slope, r2, noise := seriesLeastSquares(x, []int64{1, 3, 2})
	if slope != 0.5 || math.Abs(r2-0.25) > 1e-12 || math.Abs(noise-math.Sqrt(1.5)) > 1e-12 {
		t.Errorf("slope %v r2 %v noise %v", slope, r2, noise)
	}
	slope, r2, noise = seriesLeastSquares([]float64{0, 1, 2, 3}, []int64{5, 7, 9, 11})
	if slope != 2 || r2 != 1 || noise != 0 {
		t.Errorf("a line: slope %v r2 %v noise %v", slope, r2, noise)
	}
	if slope, r2, _ = seriesLeastSquares(x, []int64{4, 4, 4}); slope != 0 || r2 != 0 {
		t.Errorf("constant: slope %v r2 %v", slope, r2)
	}
}

func linear(n int, base, step int64) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = base + int64(i)*step
	}
	return v
}

// TestSeriesOrderAndTimes: snapshots are ordered by time when every snapshot has
// one, else kept as given; slopes per minute follow the times.
func TestSeriesOrderAndTimes(t *testing.T) {
	t0 := time.Date(2020, 2, 25, 3, 21, 0, 0, time.UTC)
	minute := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	// Given out of order: the values, read in time order, are 10, 20, 30, 40.
	in := Input{
		Labels: []string{"c", "a", "d", "b"},
		Times:  []time.Time{minute(4), minute(0), minute(6), minute(2)},
		Series: map[string][]int64{"grower": {30, 10, 40, 20}, "flat": {100, 100, 100, 100}},
	}
	rep, err := Analyze(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	var indexes []int
	for _, s := range rep.Snapshots {
		labels, indexes = append(labels, s.Name), append(indexes, s.Index)
	}
	if !slices.Equal(labels, []string{"a", "b", "c", "d"}) || !slices.Equal(indexes, []int{1, 3, 0, 2}) {
		t.Fatalf("order %v %v", labels, indexes)
	}
	if !slices.Equal(rep.Totals, []int64{110, 120, 130, 140}) {
		t.Errorf("totals %v", rep.Totals)
	}
	g := findSeries(rep, "grower")
	if g == nil || !slices.Equal(g.Values, []int64{10, 20, 30, 40}) || g.Slope != 10 || g.SlopePerMinute == nil || math.Abs(*g.SlopePerMinute-5) > 1e-9 {
		t.Fatalf("grower %+v", g)
	}
	// One time missing: upload order, and no slope per minute.
	in.Times[2] = time.Time{}
	rep, err = Analyze(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Snapshots[0].Name != "c" || !slices.Equal(rep.Totals, []int64{130, 110, 140, 120}) || rep.Total.SlopePerMinute != nil {
		t.Errorf("without all times: snapshots %+v, total %+v", rep.Snapshots, rep.Total)
	}
	// The user's order wins over the times.
	in.Times[2] = minute(6)
	rep, err = Analyze(in, Options{KeepOrder: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Snapshots[0].Name != "c" || rep.Snapshots[0].Time != minute(4) {
		t.Errorf("KeepOrder: %+v", rep.Snapshots)
	}
}

func findSeries(rep *Report, name string) *Suspect {
	for _, list := range [][]Suspect{rep.Suspects, rep.Growers, rep.Shrinkers} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}

// noiseInput makes `series` flat noisy series of n snapshots: uniform in [0, hi].
func noiseInput(rng *rand.Rand, series, n, hi int) Input {
	in := Input{Series: map[string][]int64{}}
	for k := range series {
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(rng.IntN(hi + 1))
		}
		in.Series[fmt.Sprintf("noise%03d", k)] = v
	}
	return in
}

// TestSeriesManyNoisySeries is the multiple-comparisons test: 200 flat noisy
// series, where by chance some always look like they climb. Over 100 seeds, each
// for small counts (goroutine-like, with many ties) and for large values, no
// analysis may suspect a leak; adding a series that grows by one unit per snapshot
// (under 1% of the total) must make it the one suspect every time.
func TestSeriesManyNoisySeries(t *testing.T) {
	for _, hi := range []int{10, 1 << 20} {
		falseAlarms, missed := 0, 0
		for seed := range uint64(100) {
			rng := rand.New(rand.NewPCG(seed, uint64(hi)))
			in := noiseInput(rng, 200, 10, hi)
			rep, err := Analyze(in, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict == Leak {
				falseAlarms++
				t.Logf("hi=%d seed %d: %s", hi, seed, rep.Reason)
			}
			step := int64(1)
			if hi > 10 {
				step = 1 << 17 // one small allocation per snapshot in a 100 MB heap
			}
			in.Series["leak"] = linear(10, 0, step)
			rep, err = Analyze(in, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Suspects) != 1 || rep.Suspects[0].Name != "leak" {
				missed++
				t.Logf("hi=%d seed %d: suspects %v: %s", hi, seed, suspectNames(rep.Suspects), rep.Reason)
			}
		}
		if falseAlarms > 0 || missed > 0 {
			t.Errorf("values up to %d: %d false alarms and %d missed leaks in 100 seeds", hi, falseAlarms, missed)
		}
	}
}

// TestSeriesNeedsEnoughSnapshots: growing in every step is no evidence when there
// are too few steps for it to be unlikely by chance; the reason says how many
// snapshots would do.
func TestSeriesNeedsEnoughSnapshots(t *testing.T) {
	flat := func(n int) []int64 { return linear(n, 1000, 0) }
	rep, err := Analyze(Input{Series: map[string][]int64{"leak": linear(3, 0, 10), "flat": flat(3)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// One candidate: 1/3! = 0.17 > 0.001, and 1/7! = 0.0002 is the first below.
	// Growing in every step of too few is no reassurance either: inconclusive.
	if rep.Verdict != Inconclusive || rep.Needed != 7 ||
		!strings.Contains(rep.Reason, "leak grew from 0 to 20 (+20), but with 3 snapshots and 1 candidate, growing in 2 of 2 steps could be chance (p = 0.17). The trend test needs at least 7 snapshots here") ||
		!strings.Contains(rep.Reason, "take 4 more snapshots") {
		t.Fatalf("3 snapshots: %s: %s", rep.Verdict, rep.Reason)
	}
	if len(rep.Growers) != 1 || rep.Growers[0].Why != "with 3 snapshots and 1 candidate, growing in 2 of 2 steps could be chance (p = 0.17); take at least 7 snapshots" {
		t.Errorf("growers %+v", rep.Growers)
	}
	rep, err = Analyze(Input{Series: map[string][]int64{"leak": linear(7, 0, 10), "flat": flat(7)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != Leak || rep.Suspects[0].Name != "leak" || math.Abs(rep.Suspects[0].PValue-1.0/5040) > 1e-12 {
		t.Fatalf("7 snapshots: %s: %s", rep.Verdict, rep.Reason)
	}
	// 60 of a largest total of 1,060 is 5.7%.
	want := "leak grew steadily from 0 to 60 (+60, +10 per snapshot) in 6 of 6 steps with R² 1.00, 5.7% of the total."
	if rep.Reason != want {
		t.Errorf("reason\n%q, want\n%q", rep.Reason, want)
	}
}

// TestSeriesChecks runs one series past each check.
func TestSeriesChecks(t *testing.T) {
	const n = 12
	base := func() map[string][]int64 { return map[string][]int64{"ballast": linear(n, 100000, 0)} }
	for _, tc := range []struct {
		name    string
		values  []int64
		verdict Verdict
		why     string
	}{
		{"steady", linear(n, 0, 1000), Leak, ""},
		{"accelerating", []int64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048}, Leak, ""},
		{"tiny", linear(n, 0, 1), Steady, ""},
		{"one jump", []int64{0, 0, 0, 0, 0, 0, 9000, 9000, 9000, 9000, 9000, 9000}, Steady, "it grew in one jump (1 of 11 steps)"},
		{"staircase", []int64{0, 0, 0, 3000, 3000, 3000, 6000, 6000, 6000, 9000, 9000, 9000}, Steady, "it grew in only 3 of 11 steps"},
		{"jumpy", []int64{0, 5000, 100, 5100, 200, 5200, 300, 5300, 400, 5400, 500, 5500}, Steady, "it grew in only 6 of 11 steps"},
		{"spike and late jump", []int64{0, 9000, 100, 100, 200, 200, 300, 400, 500, 600, 700, 8000}, Steady, "a straight line fits it poorly (R² 0.01)"},
		{"shrinking", linear(n, 20000, -1000), Shrinking, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			series := base()
			series["x"] = tc.values
			rep, err := Analyze(Input{Series: series}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict != tc.verdict {
				t.Fatalf("verdict %s: %s", rep.Verdict, rep.Reason)
			}
			if tc.name == "tiny" && !strings.HasPrefix(rep.Reason, "Nothing grew by 0.5% of the total or more") {
				t.Errorf("reason %q", rep.Reason)
			}
			if tc.why != "" && (len(rep.Growers) == 0 || rep.Growers[0].Why != tc.why) {
				t.Errorf("growers %+v: want why %q (reason %q)", rep.Growers, tc.why, rep.Reason)
			}
		})
	}
	// A zigzag climb: half the steps grew (allowed here), a line fits poorly; with
	// the fit check off too, the climb is within three times its noise.
	th := Thresholds{MinStepShare: 0.5}
	series := base()
	zigzag := make([]int64, n)
	for i := range zigzag {
		zigzag[i] = int64(1000*i + 20000*(i%2))
	}
	series["x"] = zigzag
	rep, err := Analyze(Input{Series: series}, Options{Thresholds: th})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != Steady || !strings.HasPrefix(rep.Growers[0].Why, "a straight line fits it poorly (R² 0.") {
		t.Errorf("poor fit: %s", rep.Reason)
	}
	th.MinR2 = 0.01
	rep, err = Analyze(Input{Series: series}, Options{Thresholds: th})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != Steady || !strings.HasPrefix(rep.Growers[0].Why, "its change, 31,000, is within 3× the noise around its line") {
		t.Errorf("noisy: %s", rep.Reason)
	}
}

// TestSeriesStackInsideNoisySite: a site whose total is noisy because most of its
// stacks come and go, with one stack leaking one unit per snapshot, is a suspect
// through that stack, and the reason quotes the stack.
func TestSeriesStackInsideNoisySite(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 12
	in := noiseInput(rng, 20, n, 10)
	leak := Part{Frames: []string{"bytes.growSlice", "leaky.(*Cache).Put", "main.main"}, Values: linear(n, 0, 1)}
	parts := []Part{leak}
	site := slices.Clone(leak.Values)
	for k := range 3 {
		noise := make([]int64, n)
		for i := range noise {
			noise[i] = int64(rng.IntN(20))
			site[i] += noise[i]
		}
		parts = append(parts, Part{Frames: []string{"bytes.growSlice", fmt.Sprintf("pool%d.Get", k)}, Values: noise})
	}
	in.Series["bytes.growSlice"] = site
	in.Parts = map[string][]Part{"bytes.growSlice": parts}
	rep, err := Analyze(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != Leak || len(rep.Suspects) != 1 || rep.Suspects[0].Name != "bytes.growSlice" {
		t.Fatalf("verdict %s, suspects %v: %s", rep.Verdict, suspectNames(rep.Suspects), rep.Reason)
	}
	s := rep.Suspects[0]
	if s.Why == "" || !s.Stacks[0].Passed || !slices.Equal(s.Stacks[0].Frames, leak.Frames) || len(s.Stacks) != 4 {
		t.Fatalf("the site passed on its own (%q) or its leaking stack is not first: %+v", s.Why, s.Stacks)
	}
	if !strings.HasPrefix(rep.Reason, "a stack of bytes.growSlice (called from leaky.(*Cache).Put) grew steadily from 0 to 11") {
		t.Errorf("reason %q", rep.Reason)
	}
}

// TestSeriesInputErrors: malformed inputs are refused with ErrInvalidParameter.
func TestSeriesInputErrors(t *testing.T) {
	three := []int64{1, 2, 3}
	for _, tc := range []struct {
		name string
		in   Input
		opts Options
		msg  string
	}{
		{"empty", Input{}, Options{}, "at least 3 snapshots, got 0"},
		{"two", Input{Series: map[string][]int64{"a": {1, 2}}}, Options{}, "at least 3 snapshots, got 2"},
		{"ragged", Input{Series: map[string][]int64{"a": three, "b": {1, 2}}}, Options{}, "snapshots"},
		{"orphan parts", Input{Series: map[string][]int64{"a": three}, Parts: map[string][]Part{"b": {{Values: three}}}}, Options{}, `parts of "b", which is not a series`},
		{"short part", Input{Series: map[string][]int64{"a": three}, Parts: map[string][]Part{"a": {{Values: three[:2]}}}}, Options{}, "a stack of \"a\" has 2 values"},
		{"times", Input{Series: map[string][]int64{"a": three}, Times: make([]time.Time, 2)}, Options{}, "2 times for 3 snapshots"},
		{"negative share", Input{Series: map[string][]int64{"a": three}}, Options{Thresholds: Thresholds{MinShare: -1}}, "min share -1 is out of range"},
		{"NaN R²", Input{Series: map[string][]int64{"a": three}}, Options{Thresholds: Thresholds{MinR2: math.NaN()}}, "min R² NaN is out of range"},
	} {
		_, err := Analyze(tc.in, tc.opts)
		if !errors.Is(err, analyze.ErrInvalidParameter) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want ErrInvalidParameter saying %q", tc.name, err, tc.msg)
		}
	}
}

// TestSeriesJSONShape checks the fields the CLI and the web page rely on, and
// that extreme values still encode (no NaN or infinity).
func TestSeriesJSONShape(t *testing.T) {
	in := Input{
		SampleType: "goroutine", Unit: "count",
		Series: map[string][]int64{
			"leak": linear(8, 1, 1),
			"big":  {math.MaxInt64, math.MinInt64, 0, math.MaxInt64, 1, math.MinInt64, 5, 6},
			"zero": make([]int64, 8),
		},
	}
	rep, err := Analyze(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Verdict  string `json:"verdict"`
		Suspects []struct {
			Name   string   `json:"name"`
			Values []int64  `json:"values"`
			Slope  *float64 `json:"slope"`
		} `json:"suspects"`
		Totals []int64 `json:"totals"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Verdict == "" || doc.Totals == nil || len(doc.Totals) != 8 {
		t.Errorf("document %s", data)
	}
	for _, s := range doc.Suspects {
		if s.Name == "" || len(s.Values) != 8 || s.Slope == nil {
			t.Errorf("suspect without name, values or slope: %s", data)
		}
	}
}

func suspectNames(ss []Suspect) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

// TestSeriesRatesNeedASpan gives the same growing series taken one second apart
// and one minute apart: per-minute slopes and their mention in the reason only
// for the second, and for the first a note that says why.
func TestSeriesRatesNeedASpan(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 7, 35, 50, 0, time.UTC)
	values := []int64{100 << 20, 200 << 20, 300 << 20, 400 << 20, 500 << 20, 600 << 20, 700 << 20, 800 << 20}
	for _, tc := range []struct {
		step     time.Duration
		perMin   bool
		wantNote string
	}{
		{time.Second, false, "the snapshots span 7s, less than 1m0s: rates are per snapshot, not per minute"},
		{0, false, "the snapshots span 0s, less than 1m0s"},
		{15 * time.Second, true, ""},
		{time.Minute, true, ""},
	} {
		times := make([]time.Time, len(values))
		for i := range times {
			times[i] = t0.Add(time.Duration(i) * tc.step)
		}
		rep, err := Analyze(Input{Times: times, Unit: "bytes", Series: map[string][]int64{"grower": values}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		g := findSeries(rep, "grower")
		if g == nil {
			t.Fatalf("step %s: no grower in %+v", tc.step, rep)
		}
		if got := g.SlopePerMinute != nil; got != tc.perMin {
			t.Errorf("step %s: slope per minute %v, want one: %v", tc.step, g.SlopePerMinute, tc.perMin)
		}
		if got := strings.Contains(rep.Reason, "per minute"); got != tc.perMin {
			t.Errorf("step %s: reason %q", tc.step, rep.Reason)
		}
		if tc.wantNote == "" && rep.RateNote != "" || !strings.HasPrefix(rep.RateNote, tc.wantNote) {
			t.Errorf("step %s: rate note %q, want %q", tc.step, rep.RateNote, tc.wantNote)
		}
	}
}
