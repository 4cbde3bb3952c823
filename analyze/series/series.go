package series

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/leakui/leakui/analyze"
)

// Input is a series of snapshots of one program, reduced to named series of
// values: one value per snapshot for every name. Profiles (pprof.Series) produce
// one series per allocation or goroutine site with its stacks as parts; JVM class
// histograms can produce one per class. The analysis does not care where the
// numbers came from.
type Input struct {
	// Labels names the snapshots (file names, artifact ids); optional.
	Labels []string
	// Times says when each snapshot was taken; optional. When every snapshot has a
	// time, the snapshots are ordered by it (unless the options keep the given order)
	// and slopes per minute are reported when they span at least MinRateSpan.
	Times []time.Time
	// Totals is the whole program's value in each snapshot (what a line chart of
	// the series draws); optional, by default the sum of the absolute values of
	// the series.
	Totals []int64
	// SampleType and Unit say what the values measure, such as "inuse_space" in
	// "bytes" or "goroutine" in "count"; Unit picks how values are printed.
	SampleType, Unit string
	// By says what one series stands for in the report, such as "allocation site".
	By string
	// Series maps a name (a function, a class) to its values, one per snapshot.
	Series map[string][]int64
	// Parts optionally breaks a series down by name: for a profile, the full
	// stacks whose sum is the site's series. A part that grows steadily makes its
	// series a suspect even when the rest of the series hides it.
	Parts map[string][]Part
	// ProvenLeaked says that every value counts goroutines the Go runtime proved
	// leaked (its goroutineleak profile): any of them in the last snapshot makes the
	// verdict a leak, whether or not they grow.
	ProvenLeaked bool
	// Warnings say why the snapshots may not be comparable (different programs
	// or processes); the report carries them first.
	Warnings []string
}

// Part is one part of a series: a full stack and its values.
type Part struct {
	// Frames lists the stack's functions, innermost (the leaf) first.
	Frames []string `json:"frames"`
	// Values has one value per snapshot.
	Values []int64 `json:"values"`
}

// Thresholds are the checks a series must pass to be reported as growing (or
// shrinking) steadily. Together they keep the verdict from firing on noise: a
// flat, noisy series fails the step and fit checks, and a series that merely
// happens to rise in every step among many candidates fails the chance check.
type Thresholds struct {
	// MinShare is the smallest change first→last, as a share of the largest total,
	// that counts (0.005 = 0.5%). Smaller series are not tested at all.
	MinShare float64 `json:"min_share"`
	// MinStepShare is the smallest share of steps that must move in the direction
	// of the trend (0.6: at least 60% of the steps grew).
	MinStepShare float64 `json:"min_step_share"`
	// MinR2 is the smallest R² of the least-squares line. A series that moved in
	// the direction of its trend in every step needs no line (an accelerating leak
	// fits one poorly).
	MinR2 float64 `json:"min_r2"`
	// NoiseFactor is how many times the noise around the line the change must be.
	NoiseFactor float64 `json:"noise_factor"`
	// Alpha is the largest acceptable chance that the ordering arose without a
	// trend, after multiplying by the number of candidates tested (Bonferroni).
	Alpha float64 `json:"alpha"`
	// MinGrowth is the smallest change first→last, in the series' unit, that a
	// suspect needs however steady it is (the absolute half of the floor a red
	// suspect needs; MinShare is the other): by default
	// analyze.SuspectMinGrowth of the unit, 512 KiB for bytes and 3 for counts. A
	// series below it that passes every other check is listed as a grower.
	MinGrowth int64 `json:"min_growth"`
}

// defaultThresholds are the thresholds used for any field left zero (MinGrowth
// depends on the unit).
var defaultThresholds = Thresholds{
	MinShare:     analyze.SuspectMinShare,
	MinStepShare: 0.6,
	MinR2:        0.6,
	NoiseFactor:  3,
	Alpha:        0.001,
}

// Options tune a series analysis. The zero value gives the defaults.
type Options struct {
	// SampleIndex picks the sample type of profiles (pprof.Series only), as
	// `go tool pprof -sample_index` does; "" picks the default, preferring the
	// in-use type of heap profiles.
	SampleIndex string
	// KeepOrder analyzes the snapshots in the given order even when they carry
	// times (the user reordered them).
	KeepOrder bool
	// Thresholds override defaultThresholds field by field.
	Thresholds Thresholds
	// MaxListed caps the growers and shrinkers listed besides the suspects
	// (default 20; negative lists all).
	MaxListed int
	// MaxStacks caps the stacks listed under each series (default 20; negative
	// lists all).
	MaxStacks int
	// GoroutineStart attributes each goroutine of goroutine profiles (pprof.Series
	// only) to the function it was started in, the first frame outside the runtime,
	// internal, sync and time packages counted from the root, as `go tool trace`
	// groups goroutines; by default, to the first such frame counted from the leaf.
	GoroutineStart bool
}

// Verdict is the conclusion of a series analysis.
type Verdict string

// The verdicts of a series analysis.
const (
	// Leak means at least one series grows steadily: a leak is suspected.
	Leak Verdict = "leak"
	// Steady means nothing grows steadily, over enough snapshots for the trend test
	// to have found it.
	Steady Verdict = "steady"
	// Shrinking means nothing grows steadily and the program is releasing.
	Shrinking Verdict = "shrinking"
	// Inconclusive means nothing passed the checks, but the snapshots are too few
	// for that to reassure: a series grew while there are fewer snapshots than the
	// trend test needs to pass any series (see Report.Needed), or the total moved
	// by MinDecisiveChange or more over fewer than MinDecisiveSnapshots snapshots.
	// The reason names what grew and how many more snapshots to take.
	Inconclusive Verdict = "inconclusive"
)

// MinDecisiveSnapshots is the fewest snapshots over which a total that moved by
// MinDecisiveChange or more may read "no steady growth"; with fewer, the verdict
// is Inconclusive. The guide's advice is 8–12 snapshots.
const MinDecisiveSnapshots = 8

// MinDecisiveChange is the change of the total, as a share of its first value,
// from which a short series is inconclusive rather than steady.
const MinDecisiveChange = 0.10

// Text is the verdict as the report page shows it.
func (v Verdict) Text() string {
	switch v {
	case Leak:
		return "leak suspected"
	case Shrinking:
		return "shrinking"
	case Inconclusive:
		return "inconclusive"
	}
	return "no steady growth"
}

// Stats describe how one series moves over the snapshots.
type Stats struct {
	// First and Last are the values in the first and last snapshot; Min and Max
	// the extremes.
	First int64 `json:"first"`
	Last  int64 `json:"last"`
	Min   int64 `json:"min"`
	Max   int64 `json:"max"`
	// Growth is Last − First.
	Growth int64 `json:"growth"`
	// GrowthRatio is Growth relative to |First|; absent when First is 0.
	GrowthRatio *float64 `json:"growth_ratio,omitempty"`
	// ShareOfTotal is Growth relative to the largest total of the series.
	ShareOfTotal float64 `json:"share_of_total"`
	// Slope is the least-squares slope per snapshot.
	Slope float64 `json:"slope"`
	// SlopePerMinute is the least-squares slope over the snapshots' times; absent
	// when the times are unknown.
	SlopePerMinute *float64 `json:"slope_per_minute,omitempty"`
	// Steps is the number of steps (snapshots − 1); GrewSteps and ShrankSteps
	// count those that went up and down.
	Steps       int `json:"steps"`
	GrewSteps   int `json:"grew_steps"`
	ShrankSteps int `json:"shrank_steps"`
	// StepShare is the share of steps that moved in the direction of the slope
	// (grew when the slope is positive, shrank when it is negative).
	StepShare float64 `json:"step_share"`
	// R2 is how well the least-squares line over the snapshots fits, in [0,1].
	R2 float64 `json:"r2"`
	// Noise is the standard deviation of the values around that line.
	Noise float64 `json:"noise"`
	// PValue is the chance of an ordering at least this steady in the direction of
	// the slope if the values had no trend (Mann-Kendall), multiplied by the number
	// of candidates tested and capped at 1.
	PValue float64 `json:"p_value"`
	// Confidence, in [0,1], is StepShare × R2 × (1 − PValue): how sure the
	// analysis is that the series moves steadily in the direction of its slope.
	Confidence float64 `json:"confidence"`
}

// Suspect is one series of the report with its statistics.
type Suspect struct {
	Name   string  `json:"name"`
	Values []int64 `json:"values"`
	Stats
	// Why names the check a grower (or shrinker) failed; empty for suspects.
	Why string `json:"why,omitempty"`
	// failed is the check Why names (seriesPassed for suspects).
	failed seriesCheck
	// Stacks are the series' parts (full stacks), those that passed the checks
	// first, then by change; StacksOmitted counts those left out.
	Stacks        []Stack `json:"stacks,omitempty"`
	StacksOmitted int     `json:"stacks_omitted,omitempty"`
}

// Stack is one part (full stack) of a listed series.
type Stack struct {
	Frames []string `json:"frames"`
	Values []int64  `json:"values"`
	Stats
	// Passed is true when this stack on its own passed the checks in the
	// direction of the list it is in.
	Passed bool `json:"passed,omitempty"`
}

// SnapshotInfo describes one snapshot in analysis order.
type SnapshotInfo struct {
	// Index is the snapshot's position in the input (upload order).
	Index int       `json:"index"`
	Name  string    `json:"name,omitempty"`
	Time  time.Time `json:"time,omitzero"`
	Total int64     `json:"total"`
}

// Report is the result of a series analysis: the verdict with its reason,
// the totals over the snapshots, and the suspects.
type Report struct {
	// Warnings say why the snapshots may not be comparable (different programs
	// or processes), to be shown before anything else; absent when none.
	Warnings []string `json:"warnings,omitempty"`
	Verdict  Verdict  `json:"verdict"`
	// VerdictText is the verdict as shown: "leak suspected", "no steady growth",
	// "shrinking", "inconclusive".
	VerdictText string `json:"verdict_text"`
	// Reason explains the verdict in one sentence with the numbers behind it.
	Reason string `json:"reason"`
	// ProvenLeaked reports snapshots of the Go runtime's goroutineleak profile
	// (Input.ProvenLeaked); Leaked is how many goroutines the last one proves
	// leaked, which the reason says as "proven leaked: N".
	ProvenLeaked bool   `json:"proven_leaked,omitempty"`
	Leaked       int64  `json:"leaked,omitempty"`
	SampleType   string `json:"sample_type,omitempty"`
	Unit         string `json:"unit,omitempty"`
	By           string `json:"by,omitempty"`
	// Snapshots lists the snapshots in the order analyzed; Totals repeats their
	// totals for a line chart, and Total describes that line.
	Snapshots []SnapshotInfo `json:"snapshots"`
	Totals    []int64        `json:"totals"`
	Total     Stats          `json:"total"`
	// Candidates is the number of series and stacks large enough to be tested,
	// the multiplier of the p-values.
	Candidates int `json:"candidates"`
	// Needed is the fewest snapshots over which a series growing in every step
	// passes the trend test with this many candidates: with fewer, no series can
	// be a suspect, and one that grew makes the verdict Inconclusive.
	Needed int `json:"needed"`
	// Suspects are the series that grow steadily (themselves or through one of
	// their stacks), largest growth first.
	Suspects []Suspect `json:"suspects"`
	// Growers are other series that grew enough to be tested but failed a check
	// (see Why), largest growth first; Shrinkers are the series that shrink
	// steadily, largest decline first.
	Growers   []Suspect  `json:"growers"`
	Shrinkers []Suspect  `json:"shrinkers"`
	Checks    Thresholds `json:"checks"`
	// RateNote says why the slopes are per snapshot only although the snapshots
	// have times: they were taken less than MinRateSpan apart, too close for a
	// rate per minute to mean anything. Empty otherwise.
	RateNote string `json:"rate_note,omitempty"`
}

// MinRateSpan is the shortest time from the first snapshot to the last over which
// slopes are also given per minute; over a shorter span a per-minute figure
// would be an extrapolation (snapshots taken within one second gave "+129 MB per
// minute").
const MinRateSpan = time.Minute

// Analyze finds the series that grow steadily over the snapshots and gives
// a verdict. It needs at least three snapshots (ErrInvalidParameter), and every
// series, part, label, time and total must have one entry per snapshot.
func Analyze(in Input, opts Options) (*Report, error) {
	n, err := validateSeriesInput(in)
	if err != nil {
		return nil, err
	}
	th, err := opts.thresholds(in.Unit)
	if err != nil {
		return nil, err
	}
	order := seriesOrder(in.Times, n, opts.KeepOrder)
	a := newSeriesAnalysis(in, order, th)
	rep := a.report(opts)
	return rep, nil
}

// validateSeriesInput checks the shape of the input and returns the number of
// snapshots.
func validateSeriesInput(in Input) (int, error) {
	n := -1
	for _, v := range in.Series {
		n = len(v)
		break
	}
	switch {
	case n < 0 && len(in.Totals) > 0:
		n = len(in.Totals)
	case n < 0:
		n = max(len(in.Times), len(in.Labels))
	}
	if n < 3 {
		return 0, fmt.Errorf("%w: a series needs at least 3 snapshots, got %d", analyze.ErrInvalidParameter, max(n, 0))
	}
	for name, v := range in.Series {
		if len(v) != n {
			return 0, fmt.Errorf("%w: series %q has %d values for %d snapshots", analyze.ErrInvalidParameter, name, len(v), n)
		}
	}
	for name, parts := range in.Parts {
		if _, ok := in.Series[name]; !ok {
			return 0, fmt.Errorf("%w: parts of %q, which is not a series", analyze.ErrInvalidParameter, name)
		}
		for _, p := range parts {
			if len(p.Values) != n {
				return 0, fmt.Errorf("%w: a stack of %q has %d values for %d snapshots", analyze.ErrInvalidParameter, name, len(p.Values), n)
			}
		}
	}
	for _, f := range []struct {
		what string
		len  int
	}{{"labels", len(in.Labels)}, {"times", len(in.Times)}, {"totals", len(in.Totals)}} {
		if f.len != 0 && f.len != n {
			return 0, fmt.Errorf("%w: %d %s for %d snapshots", analyze.ErrInvalidParameter, f.len, f.what, n)
		}
	}
	return n, nil
}

// thresholds fills the zero fields with the defaults (MinGrowth by the unit) and
// checks the rest.
func (o Options) thresholds(unit string) (Thresholds, error) {
	th := o.Thresholds
	d := defaultThresholds
	switch {
	case th.MinGrowth < 0:
		return th, fmt.Errorf("%w: min growth %d is out of range", analyze.ErrInvalidParameter, th.MinGrowth)
	case th.MinGrowth == 0:
		th.MinGrowth = analyze.SuspectMinGrowth(unit)
	}
	for _, f := range []struct {
		v      *float64
		def    float64
		name   string
		maxOne bool
	}{
		{&th.MinShare, d.MinShare, "min share", true},
		{&th.MinStepShare, d.MinStepShare, "min step share", true},
		{&th.MinR2, d.MinR2, "min R²", true},
		{&th.NoiseFactor, d.NoiseFactor, "noise factor", false},
		{&th.Alpha, d.Alpha, "alpha", true},
	} {
		if *f.v == 0 {
			*f.v = f.def
		}
		if math.IsNaN(*f.v) || math.IsInf(*f.v, 0) || *f.v < 0 || (f.maxOne && *f.v > 1) {
			return th, fmt.Errorf("%w: %s %v is out of range", analyze.ErrInvalidParameter, f.name, *f.v)
		}
	}
	return th, nil
}

// seriesOrder returns the snapshot indexes in analysis order: by time when every
// snapshot has one (ties keep the given order), else as given.
func seriesOrder(times []time.Time, n int, keep bool) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if keep || !seriesTimesKnown(times) {
		return order
	}
	sort.SliceStable(order, func(a, b int) bool { return times[order[a]].Before(times[order[b]]) })
	return order
}

// seriesTimesKnown reports whether there are times and none is zero.
func seriesTimesKnown(times []time.Time) bool {
	if len(times) == 0 {
		return false
	}
	for _, t := range times {
		if t.IsZero() {
			return false
		}
	}
	return true
}
