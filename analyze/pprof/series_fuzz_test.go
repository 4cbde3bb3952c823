package pprof

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"testing"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/series"
)

// checkSeriesReport asserts what holds for every report.
func checkSeriesReport(t *testing.T, rep *series.Report, n int) {
	t.Helper()
	if rep.VerdictText != rep.Verdict.Text() || rep.Reason == "" || len(rep.Totals) != n || len(rep.Snapshots) != n {
		t.Fatalf("verdict %q/%q, reason %q, %d totals", rep.Verdict, rep.VerdictText, rep.Reason, len(rep.Totals))
	}
	switch rep.Verdict {
	case series.Leak:
		if len(rep.Suspects) == 0 && !(rep.ProvenLeaked && rep.Leaked > 0) {
			t.Fatal("a leak without suspects or goroutines proven leaked")
		}
	case series.Steady, series.Shrinking, series.Inconclusive:
		if len(rep.Suspects) != 0 {
			t.Fatalf("%s with suspects", rep.Verdict)
		}
	default:
		t.Fatalf("unknown verdict %q", rep.Verdict)
	}
	stats := func(name string, st series.Stats, values []int64) {
		in01 := func(f float64) bool { return f >= 0 && f <= 1 }
		if !in01(st.Confidence) || !in01(st.PValue) || !in01(st.R2) || !in01(st.StepShare) || len(values) != n ||
			st.GrewSteps+st.ShrankSteps > st.Steps || st.Steps != n-1 || st.First != values[0] || st.Last != values[n-1] ||
			math.IsNaN(st.Slope) || math.IsNaN(st.Noise) || st.Noise < 0 {
			t.Fatalf("%s: stats out of range: %+v for %v", name, st, values)
		}
	}
	stats("total", rep.Total, rep.Totals)
	for _, list := range [][]series.Suspect{rep.Suspects, rep.Growers, rep.Shrinkers} {
		for _, s := range list {
			stats(s.Name, s.Stats, s.Values)
			for _, st := range s.Stacks {
				stats(s.Name+" stack", st.Stats, st.Values)
			}
		}
	}
	for _, s := range rep.Suspects {
		if s.Why == "" && (s.Growth <= 0 || s.Slope <= 0 || s.PValue > rep.Checks.Alpha || s.StepShare < rep.Checks.MinStepShare || s.Growth < rep.Checks.MinGrowth) {
			t.Fatalf("suspect %s fails the checks: %+v", s.Name, s.Stats)
		}
	}
}

// FuzzSeriesProfiles runs a series over three copies of any profile the loader
// accepts: it must not panic, and three identical snapshots are flat — or the
// sample type is refused as cumulative.
func FuzzSeriesProfiles(f *testing.F) {
	for _, path := range fixturesGlob(f, "pprof") {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > 32<<10 {
			continue
		}
		if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
			if raw, err := io.ReadAll(zr); err == nil {
				data = raw
			}
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parse(data)
		if err != nil {
			return
		}
		snaps := []Snapshot{{"a", p}, {"b", p}, {"c", p}}
		rep, err := Series(snaps, series.Options{})
		if errors.Is(err, analyze.ErrInvalidParameter) && seriesCumulative(p.meta.sampleTypes[p.DefaultSampleIndex()].typ) {
			return
		}
		if err != nil {
			t.Fatalf("three copies of a loaded profile refused: %v", err)
		}
		if _, err := json.Marshal(rep); err != nil {
			t.Fatalf("the report does not encode: %v", err)
		}
		checkSeriesReport(t, rep, 3)
		want := p.SampleTypes()[p.DefaultSampleIndex()].Total
		verdict := series.Steady
		if rep.ProvenLeaked && want > 0 { // the goroutineleak profile: a proof, not a trend
			verdict = series.Leak
		}
		if rep.Verdict != verdict || len(rep.Growers)+len(rep.Shrinkers) != 0 || rep.Totals[0] != want || rep.Total.Growth != 0 {
			t.Fatalf("identical snapshots: %s, totals %v (profile total %d): %s", rep.Verdict, rep.Totals, want, rep.Reason)
		}
	})
}
