package series

import (
	"strings"
	"testing"
	"time"
)

// TestInconclusiveWhenTooFewSnapshots: a total that triples over three snapshots
// in one jump has no suspect, but it must not read as reassurance: it is
// inconclusive, says why and how many snapshots to take. The same jump over eight
// snapshots, and a flat short series, still read "no steady growth"; a short
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
			[]string{"Too few snapshots to decide: the total went from 100 to 300 (+200, +200%) over 3 snapshots spanning 20s", "arena", "one jump", "Take 8–12 snapshots (at least 5 more)"}},
		{"three snapshots, flat", map[string][]int64{"base": {100, 100, 100}}, Steady, nil},
		{"three snapshots, 5% wobble", map[string][]int64{"base": {100, 100, 100}, "x": {0, 5, 0}}, Steady, nil},
		{"eight snapshots, one jump", map[string][]int64{"base": {100, 100, 100, 100, 100, 100, 100, 100}, "arena": {0, 0, 0, 0, 200, 200, 200, 200}}, Steady, nil},
		{"seven snapshots, steady climb", map[string][]int64{"base": {1000, 1000, 1000, 1000, 1000, 1000, 1000}, "leak": {0, 100, 200, 300, 400, 500, 600}}, Leak, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			for _, v := range tc.series {
				n = len(v)
			}
			rep, err := Analyze(Input{Series: tc.series, Times: times(n)}, Options{})
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
