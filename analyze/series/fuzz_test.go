package series

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"
)

// fuzzBytes hands out the fuzzer's bytes, then zeros.
type fuzzBytes struct{ data []byte }

func (f *fuzzBytes) byte() byte {
	if len(f.data) == 0 {
		return 0
	}
	b := f.data[0]
	f.data = f.data[1:]
	return b
}

func (f *fuzzBytes) int64() int64 {
	var b [8]byte
	n := copy(b[:], f.data)
	f.data = f.data[n:]
	return int64(binary.LittleEndian.Uint64(b[:]))
}

// value draws one value of the given scale: small counts (with ties), wide
// values, or anything including the int64 extremes.
func (f *fuzzBytes) value(scale byte) int64 {
	switch scale % 3 {
	case 0:
		return int64(f.byte() % 16)
	case 1:
		return int64(f.byte())<<12 | int64(f.byte())
	}
	return f.int64()
}

// fuzzSeriesInput decodes a series input: some unrelated series from the bytes,
// plus a constant series and a strictly increasing one with steps in [s, 2s],
// which the invariants are about.
func fuzzSeriesInput(data []byte) (in Input, rise []int64) {
	f := &fuzzBytes{data}
	n := 3 + int(f.byte()%30)
	unrelated := int(f.byte() % 8)
	scale := f.byte()
	timed := f.byte()
	in.Series = map[string][]int64{}
	for k := range unrelated {
		v := make([]int64, n)
		for i := range v {
			v[i] = f.value(scale)
		}
		in.Series[fmt.Sprintf("u%d", k)] = v
	}
	constant := f.value(scale)
	in.Series["const"] = make([]int64, n)
	for i := range n {
		in.Series["const"][i] = constant
	}
	step := 1 + int64(f.byte())<<int(f.byte()%32)
	rise = make([]int64, n)
	rise[0] = int64(f.byte())
	for i := 1; i < n; i++ {
		rise[i] = rise[i-1] + step + step*int64(f.byte())/255
	}
	in.Series["rise"] = rise
	if timed%2 == 1 {
		t0 := time.Unix(1_600_000_000, 0)
		in.Times = make([]time.Time, n)
		for i := range in.Times {
			in.Times[i] = t0.Add(time.Duration(f.byte()%8) * time.Minute) // ties and disorder
		}
	}
	return in, rise
}

// FuzzSeriesAnalysis feeds decoded series to Analyze. It must never panic or
// produce a document that does not encode; every statistic stays in its range;
// a constant series is never listed; a strictly increasing series with regular
// steps that grew by the minimum share, with enough snapshots for the number of
// candidates, is a suspect; and renaming or reordering the other series, or
// shuffling snapshots that carry distinct times, changes nothing about it.
func FuzzSeriesAnalysis(f *testing.F) {
	f.Add([]byte{9, 0, 0, 0})
	f.Add([]byte{3, 5, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte{40, 7, 2, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0x80})
	f.Add([]byte{12, 3, 1, 0, 200, 100, 50, 25, 12, 6, 3, 1, 0, 255, 128, 64})
	f.Fuzz(func(t *testing.T, data []byte) {
		in, rise := fuzzSeriesInput(data)
		rep, err := Analyze(in, Options{MaxListed: -1, MaxStacks: -1})
		if err != nil {
			t.Fatalf("well-formed input refused: %v", err)
		}
		doc, err := json.Marshal(rep)
		if err != nil {
			t.Fatalf("the report does not encode: %v", err)
		}
		checkSeriesReport(t, rep, len(rise))
		for _, list := range [][]Suspect{rep.Suspects, rep.Growers, rep.Shrinkers} {
			for _, s := range list {
				if s.Name == "const" {
					t.Fatalf("a constant series is listed: %s", doc)
				}
			}
		}
		var ref int64
		for _, v := range rep.Totals {
			ref = max(ref, AbsClamped(v))
		}
		got := findSeries(rep, "rise")
		growth := rise[len(rise)-1] - rise[0]
		ordered := !seriesTimesKnown(in.Times) || timesAscending(in.Times)
		enough := seriesMinSnapshots(rep.Candidates, rep.Checks.Alpha) <= len(rise)
		if ordered && enough && float64(growth) >= rep.Checks.MinShare*float64(ref) {
			if got == nil || got.Why != "" {
				t.Fatalf("strictly increasing %v (growth %d of %d, %d candidates) is not a suspect: %+v\n%s", rise, growth, ref, rep.Candidates, got, doc)
			}
		}
		// Rename and reorder the unrelated series: the rise's entry is unchanged.
		renamed := in
		renamed.Series = map[string][]int64{}
		for name, v := range in.Series {
			if name[0] == 'u' {
				name = "v" + name
			}
			renamed.Series[name] = v
		}
		again, err := Analyze(renamed, Options{MaxListed: -1, MaxStacks: -1})
		if err != nil {
			t.Fatal(err)
		}
		if again.Verdict != rep.Verdict || !reflect.DeepEqual(findSeries(again, "rise"), got) {
			t.Fatalf("renaming other series changed the rise: %+v vs %+v", findSeries(again, "rise"), got)
		}
		// Shuffle the snapshots with their distinct times: they are put back in order.
		if seriesTimesKnown(in.Times) && distinctTimes(in.Times) {
			shuffledIn := reverseSnapshots(in)
			back, err := Analyze(shuffledIn, Options{MaxListed: -1, MaxStacks: -1})
			if err != nil {
				t.Fatal(err)
			}
			if back.Verdict != rep.Verdict || !reflect.DeepEqual(findSeries(back, "rise"), got) || !reflect.DeepEqual(back.Totals, rep.Totals) {
				t.Fatalf("reversing timed snapshots changed the result")
			}
		}
	})
}

// checkSeriesReport asserts what holds for every report.
func checkSeriesReport(t *testing.T, rep *Report, n int) {
	t.Helper()
	if rep.VerdictText != rep.Verdict.Text() || rep.Reason == "" || len(rep.Totals) != n || len(rep.Snapshots) != n {
		t.Fatalf("verdict %q/%q, reason %q, %d totals", rep.Verdict, rep.VerdictText, rep.Reason, len(rep.Totals))
	}
	switch rep.Verdict {
	case Leak:
		if len(rep.Suspects) == 0 {
			t.Fatal("a leak without suspects")
		}
	case Steady, Shrinking, Inconclusive:
		if len(rep.Suspects) != 0 {
			t.Fatalf("%s with suspects", rep.Verdict)
		}
	default:
		t.Fatalf("unknown verdict %q", rep.Verdict)
	}
	stats := func(name string, st Stats, values []int64) {
		in01 := func(f float64) bool { return f >= 0 && f <= 1 }
		if !in01(st.Confidence) || !in01(st.PValue) || !in01(st.R2) || !in01(st.StepShare) || len(values) != n ||
			st.GrewSteps+st.ShrankSteps > st.Steps || st.Steps != n-1 || st.First != values[0] || st.Last != values[n-1] ||
			math.IsNaN(st.Slope) || math.IsNaN(st.Noise) || st.Noise < 0 {
			t.Fatalf("%s: stats out of range: %+v for %v", name, st, values)
		}
	}
	stats("total", rep.Total, rep.Totals)
	for _, list := range [][]Suspect{rep.Suspects, rep.Growers, rep.Shrinkers} {
		for _, s := range list {
			stats(s.Name, s.Stats, s.Values)
			for _, st := range s.Stacks {
				stats(s.Name+" stack", st.Stats, st.Values)
			}
		}
	}
	for _, s := range rep.Suspects {
		if s.Why == "" && (s.Growth <= 0 || s.Slope <= 0 || s.PValue > rep.Checks.Alpha || s.StepShare < rep.Checks.MinStepShare) {
			t.Fatalf("suspect %s fails the checks: %+v", s.Name, s.Stats)
		}
	}
}

func timesAscending(ts []time.Time) bool {
	for i := 1; i < len(ts); i++ {
		if ts[i].Before(ts[i-1]) {
			return false
		}
	}
	return true
}

func distinctTimes(ts []time.Time) bool {
	seen := map[time.Time]bool{}
	for _, t := range ts {
		if seen[t] {
			return false
		}
		seen[t] = true
	}
	return true
}

// reverseSnapshots reverses the snapshot order of an input, times included.
func reverseSnapshots(in Input) Input {
	rev := func(v []int64) []int64 {
		out := make([]int64, len(v))
		for i, x := range v {
			out[len(v)-1-i] = x
		}
		return out
	}
	out := in
	out.Series = map[string][]int64{}
	for name, v := range in.Series {
		out.Series[name] = rev(v)
	}
	out.Times = make([]time.Time, len(in.Times))
	for i, t := range in.Times {
		out.Times[len(in.Times)-1-i] = t
	}
	return out
}
