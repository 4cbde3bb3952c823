package series

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestInconclusiveWhenTooFewSnapshots: a total that triples over three snapshots
// in one jump has no suspect, but it must not read as reassurance: it is
// inconclusive, names what grew and how many snapshots to take. The same jump over
// eight snapshots, and a flat short series, still read "no steady growth"; a short
// series with a suspect is still a leak.
func TestInconclusiveWhenTooFewSnapshots(t *testing.T) {
	t0 := time.Date(2022, 2, 10, 16, 7, 52, 0, time.UTC)
	times := func(n int) []time.Time {
		var out []time.Time
		for i := range n {
			out = append(out, t0.Add(time.Duration(i)*10*time.Second))
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		series map[string][]int64
		want   Verdict
		reason []string
	}{
		{"three snapshots, one jump", map[string][]int64{"base": {100, 100, 100}, "arena": {0, 0, 200}}, Inconclusive,
			[]string{"Too few snapshots to decide: the total went from 100 to 300 (+200, +200%) over 3 snapshots spanning 20s",
				"; arena grew from 0 to 200 (+200), but it grew in one jump (1 of 2 steps).", "Take 8–12 snapshots (at least 5 more)"}},
		// Both climb in every step; the site tripled, the pool grew by 4%: the
		// site is named first, the pool after it.
		{"three snapshots, a site and a pool climb", map[string][]int64{"pool": {98, 100, 102}, "site": {1, 2, 3}}, Inconclusive,
			[]string{"Too few snapshots to decide: site grew from 1 to 3 (+2), but with 3 snapshots and 2 candidates", "; pool (+4) grew too."}},
		{"three snapshots, a small climb", map[string][]int64{"base": {100, 100, 100}, "leak": {0, 1, 2}}, Inconclusive,
			[]string{"Too few snapshots to decide: leak grew from 0 to 2 (+2), but with 3 snapshots and 1 candidate, growing in 2 of 2 steps could be chance (p = 0.17).",
				"The trend test needs at least 7 snapshots here", "take 4 more snapshots"}},
		{"three snapshots, flat", map[string][]int64{"base": {100, 100, 100}}, Steady, nil},
		{"three snapshots, 5% wobble", map[string][]int64{"base": {100, 100, 100}, "x": {0, 5, 0}}, Steady, nil},
		{"eight snapshots, one jump", map[string][]int64{"base": {100, 100, 100, 100, 100, 100, 100, 100}, "arena": {0, 0, 0, 0, 200, 200, 200, 200}}, Steady, nil},
		{"seven snapshots, steady climb", map[string][]int64{"base": {1000, 1000, 1000, 1000, 1000, 1000, 1000}, "leak": {0, 100, 200, 300, 400, 500, 600}}, Leak, nil},
		// The total moved by 10% without a series that did (the totals are given):
		// the older rule still makes it inconclusive.
		{"three snapshots, total jumped", map[string][]int64{"base": {100, 100, 100}}, Inconclusive,
			[]string{"the total went from 100 to 300 (+200, +200%) over 3 snapshots spanning 20s", "Take 8–12 snapshots (at least 5 more)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			for _, v := range tc.series {
				n = len(v)
			}
			in := Input{Series: tc.series, Times: times(n)}
			if tc.name == "three snapshots, total jumped" {
				in.Totals = []int64{100, 100, 300}
			}
			rep, err := Analyze(in, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict != tc.want || rep.VerdictText != tc.want.Text() {
				t.Fatalf("verdict %s (%s), want %s: %s", rep.Verdict, rep.VerdictText, tc.want, rep.Reason)
			}
			for _, r := range tc.reason {
				if !strings.Contains(rep.Reason, r) {
					t.Errorf("reason %q does not say %q", rep.Reason, r)
				}
			}
		})
	}
}

// TestThinEvidenceNeverReassures grows one goroutine site by one per snapshot in a
// program whose other hundred goroutines wobble, so that the total moves by less
// than 10%: every series of 3 to 6 snapshots is inconclusive and names the site
// and how many snapshots are missing; from 7 on (what the trend test needs with
// this many candidates) the site is a leak.
func TestThinEvidenceNeverReassures(t *testing.T) {
	pool := []int64{100, 98, 101, 99, 100, 102, 97, 100, 101, 99, 100, 98}
	pollers := []int64{6, 6, 7, 6, 6, 6, 7, 6, 6, 6, 7, 6}
	for n := 3; n <= len(pool); n++ {
		leak := linear(n, 1, 1)
		rep, err := Analyze(Input{Unit: "count", Series: map[string][]int64{
			"main.ledgerReplicaWatcher": leak, "main.requestWorker": pool[:n], "main.pollLoop": pollers[:n]}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Needed != 7 {
			t.Fatalf("%d snapshots, %d candidates: needed %d, want 7 (3/7! ≤ 0.001 < 3/6!)", n, rep.Candidates, rep.Needed)
		}
		if n >= 7 {
			if rep.Verdict != Leak || rep.Suspects[0].Name != "main.ledgerReplicaWatcher" {
				t.Errorf("%d snapshots: %s: %s", n, rep.Verdict, rep.Reason)
			}
			continue
		}
		if rep.Verdict != Inconclusive {
			t.Errorf("%d snapshots: %s (%s): %s", n, rep.Verdict, rep.VerdictText, rep.Reason)
			continue
		}
		for _, want := range []string{
			"Too few snapshots to decide: main.ledgerReplicaWatcher grew from 1 to ",
			"The trend test needs at least 7 snapshots here, so nothing can be called steady yet",
			map[bool]string{true: "take 1 more snapshot,", false: fmt.Sprintf("take %d more snapshots,", 7-n)}[n == 6],
		} {
			if !strings.Contains(rep.Reason, want) {
				t.Errorf("%d snapshots: reason %q does not say %q", n, rep.Reason, want)
			}
		}
	}
}

// TestSuspectFloor: a series that passes every check but grew by less than the
// absolute floor (512 KiB for bytes) is a grower, not a suspect, and says why;
// above the floor it is a suspect. The floor can be set.
func TestSuspectFloor(t *testing.T) {
	const n = 12
	base := linear(n, 8<<20, 0) // 8 MiB that do not move
	for _, tc := range []struct {
		step    int64
		floor   int64
		verdict Verdict
		why     string
	}{
		{40 << 10, 0, Steady, "its steady growth of 440.0 kB is under the 512.0 kB a leak suspect needs"},
		{50 << 10, 0, Leak, ""},
		{50 << 10, 1 << 20, Steady, "its steady growth of 550.0 kB is under the 1.0 MB a leak suspect needs"},
	} {
		rep, err := Analyze(Input{Unit: "bytes", Series: map[string][]int64{"base": base, "cache": linear(n, 0, tc.step)}},
			Options{Thresholds: Thresholds{MinGrowth: tc.floor}})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Verdict != tc.verdict {
			t.Errorf("+%d per snapshot, floor %d: %s: %s", tc.step, tc.floor, rep.Verdict, rep.Reason)
			continue
		}
		if tc.why == "" {
			continue
		}
		if len(rep.Growers) != 1 || rep.Growers[0].Why != tc.why || !strings.Contains(rep.Reason, tc.why) {
			t.Errorf("+%d per snapshot: growers %+v, reason %q; want why %q", tc.step, rep.Growers, rep.Reason, tc.why)
		}
	}
	rep, err := Analyze(Input{Unit: "count", Series: map[string][]int64{"x": linear(n, 0, 1)}}, Options{})
	if err != nil || rep.Checks.MinGrowth != 3 || math.IsNaN(rep.Checks.MinShare) {
		t.Errorf("counts: checks %+v, %v", rep.Checks, err)
	}
	if _, err := Analyze(Input{Series: map[string][]int64{"x": linear(n, 0, 1)}}, Options{Thresholds: Thresholds{MinGrowth: -1}}); err == nil {
		t.Error("a negative floor is accepted")
	}
}

// TestProvenLeakedSeries: snapshots of the runtime's goroutineleak profile are a
// leak as soon as the last one holds a goroutine, however flat, and say "proven
// leaked: N"; the warnings of the input come first in the report.
func TestProvenLeakedSeries(t *testing.T) {
	in := Input{Unit: "count", ProvenLeaked: true, Warnings: []string{"different programs"},
		Series: map[string][]int64{"main.strand.func1": {7, 7, 7}, "main.other": {0, 1, 1}}}
	rep, err := Analyze(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != Leak || !rep.ProvenLeaked || rep.Leaked != 8 ||
		!strings.HasPrefix(rep.Reason, "Proven leaked: 8 goroutines in the last snapshot") || !strings.Contains(rep.Reason, "the most in main.strand.func1 (7)") {
		t.Errorf("verdict %s, proven %v, leaked %d: %s", rep.Verdict, rep.ProvenLeaked, rep.Leaked, rep.Reason)
	}
	if !slices.Equal(rep.Warnings, in.Warnings) {
		t.Errorf("warnings %v", rep.Warnings)
	}
	in.Series = map[string][]int64{"main.strand.func1": {1, 0, 0}}
	if rep, err = Analyze(in, Options{}); err != nil || rep.Verdict == Leak || rep.Leaked != 0 {
		t.Errorf("none left in the last snapshot: %s, leaked %d: %s", rep.Verdict, rep.Leaked, rep.Reason)
	}
}
