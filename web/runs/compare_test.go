package runs

import (
	"strings"
	"testing"

	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/web/view"
)

// TestRunCalloutOnlyWhenRSSMinusHeapGrew: the heap vs RSS warning of a gzip
// recovery run appears when RSS − heap in use grew beyond the allocator's noise,
// and not when it stayed or fell.
func TestRunCalloutOnlyWhenRSSMinusHeapGrew(t *testing.T) {
	spec := lab.Spec{Workload: lab.WorkloadRecovery, Codec: "gzip"}
	run := func(rss0, heap0, rss1, heap1 int64) lab.Progress {
		return lab.Progress{Points: []lab.Point{{Step: 1, RSS: rss0, HeapInuse: heap0}, {Step: 10, RSS: rss1, HeapInuse: heap1}}}
	}
	if c := runCallout(spec, run(100<<20, 20<<20, 300<<20, 22<<20)); !strings.Contains(c, "RSS − Go heap in use grew by +198.0 MB") {
		t.Errorf("RSS − heap grew by 198 MB: callout %q", c)
	}
	for _, p := range []lab.Progress{run(100<<20, 20<<20, 100<<20, 20<<20), run(100<<20, 20<<20, 90<<20, 30<<20), run(100<<20, 20<<20, 110<<20, 20<<20)} {
		if c := runCallout(spec, p); c != "" {
			t.Errorf("RSS − heap did not grow beyond 16 MiB (%+v): callout %q", p.Points, c)
		}
	}
}

// TestCompareRows lines up two runs' verdicts, counters and figures, with the
// second minus the first.
func TestCompareRows(t *testing.T) {
	runs := [2]view.RunPage{
		{Verdict: lab.VerdictLeak, Step: 30, Steps: 30, Counters: []view.Counter{{Key: "consumer_starts", Label: "consumer starts"}, {Key: "consumer_stops", Label: "consumer stops"}}},
		{Verdict: lab.VerdictNoLeak, Step: 30, Steps: 30, Counters: []view.Counter{{Key: "consumer_starts", Label: "consumer starts"}, {Key: "consumer_stops", Label: "consumer stops"}}},
	}
	progs := [2]lab.Progress{
		{Counters: map[string]int64{"consumer_starts": 30, "consumer_stops": 0}, Points: []lab.Point{{Step: 1, Goroutines: 3, RSS: 10 << 20}, {Step: 31, Goroutines: 33, RSS: 12 << 20}}},
		{Counters: map[string]int64{"consumer_starts": 30, "consumer_stops": 30}, Points: []lab.Point{{Step: 1, Goroutines: 3, RSS: 10 << 20}, {Step: 31, Goroutines: 3, RSS: 11 << 20}}},
	}
	got := map[string]view.CompareRow{}
	for _, r := range compareRows(runs, progs) {
		got[r.Key] = r
	}
	for key, want := range map[string][3]string{
		"verdict":             {"leak", "no leak", ""},
		"consumer_stops":      {"0", "30", "+30"},
		"goroutines_growth":   {"30", "0", "-30"},
		"goroutines_per_step": {"1.00", "0.00", "-1.00"},
		"peak_rss":            {"12.0 MB", "11.0 MB", "-1.0 MB"},
	} {
		r := got[key]
		if r.Values[0] != want[0] || r.Values[1] != want[1] || r.Change != want[2] || !r.Differs {
			t.Errorf("%s: %q %q change %q differs %v; want %q", key, r.Values[0], r.Values[1], r.Change, r.Differs, want)
		}
	}
	if r := got["consumer_starts"]; r.Differs || r.Change != "0" {
		t.Errorf("consumer starts 30 and 30: %+v", r)
	}
}
