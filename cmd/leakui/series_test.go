package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/internal/fixtures"
)

// writeGoroutineSeries writes n goroutine profiles (as /debug/pprof/goroutine
// serves them, written with pprof's own encoder) of a program in which
// main.leaker parks one more goroutine per snapshot and main.worker a random
// number (0–30); it returns the file names, newest first.
func writeGoroutineSeries(t *testing.T, n int, leak bool) []string {
	t.Helper()
	dir := t.TempDir()
	var fns []*profile.Function
	loc := map[string]*profile.Location{}
	for i, name := range []string{"runtime.gopark", "runtime.chanrecv1", "runtime.selectgo", "main.leaker", "main.worker", "runtime.goexit"} {
		fn := &profile.Function{ID: uint64(i + 1), Name: name, Filename: "x.go"}
		fns = append(fns, fn)
		loc[name] = &profile.Location{ID: uint64(i + 1), Address: uint64(0x1000 * (i + 1)), Line: []profile.Line{{Function: fn, Line: 1}}}
	}
	var locs []*profile.Location
	for _, l := range loc {
		locs = append(locs, l)
	}
	stack := func(names ...string) []*profile.Location {
		var out []*profile.Location
		for _, n := range names {
			out = append(out, loc[n])
		}
		return out
	}
	rng := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var paths []string
	for i := range n {
		leaked := int64(0)
		if leak {
			leaked = int64(i + 1)
		}
		p := &profile.Profile{
			SampleType: []*profile.ValueType{{Type: "goroutine", Unit: "count"}},
			PeriodType: &profile.ValueType{Type: "goroutine", Unit: "count"},
			Period:     1,
			TimeNanos:  t0.Add(time.Duration(i) * time.Minute).UnixNano(),
			Function:   fns,
			Location:   locs,
			Sample: []*profile.Sample{
				{Location: stack("runtime.gopark", "runtime.chanrecv1", "main.leaker", "runtime.goexit"), Value: []int64{leaked}},
				{Location: stack("runtime.gopark", "runtime.selectgo", "main.worker", "runtime.goexit"), Value: []int64{int64(rng.IntN(31))}},
			},
		}
		path := filepath.Join(dir, fmt.Sprintf("goroutine-%02d.pb.gz", i))
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Write(f); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		paths = append([]string{path}, paths...)
	}
	return paths
}

func TestSeriesCLILeakJSON(t *testing.T) {
	paths := writeGoroutineSeries(t, 10, true)
	code, out, errs := runCLI(t, append([]string{"series", "-json"}, paths...)...)
	if code != 3 {
		t.Fatalf("exit %d, want 3 (leak suspected): %s\n%s", code, errs, out)
	}
	var got struct {
		Verdict     string `json:"verdict"`
		VerdictText string `json:"verdict_text"`
		Reason      string `json:"reason"`
		Suspects    []struct {
			Name   string  `json:"name"`
			Values []int64 `json:"values"`
			Slope  float64 `json:"slope"`
			Stacks []struct {
				Frames []string `json:"frames"`
			} `json:"stacks"`
		} `json:"suspects"`
		Snapshots []struct {
			Name string `json:"name"`
		} `json:"snapshots"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if got.Verdict != "leak" || got.VerdictText != "leak suspected" || len(got.Suspects) != 1 {
		t.Fatalf("got %+v", got)
	}
	s := got.Suspects[0]
	if s.Name != "main.leaker" || !slices.Equal(s.Values, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) || s.Slope < 0.999999 || s.Slope > 1.000001 {
		t.Errorf("suspect %+v: want main.leaker with one more goroutine per snapshot", s)
	}
	if len(s.Stacks) != 1 || !slices.Equal(s.Stacks[0].Frames, []string{"runtime.gopark", "runtime.chanrecv1", "main.leaker", "runtime.goexit"}) {
		t.Errorf("stacks %+v", s.Stacks)
	}
	// Given newest first, analyzed in the profiles' time order.
	if got.Snapshots[0].Name != paths[len(paths)-1] {
		t.Errorf("first snapshot %s, want the oldest %s", got.Snapshots[0].Name, paths[len(paths)-1])
	}
	if !strings.Contains(got.Reason, "+1 per minute") {
		t.Errorf("one goroutine per snapshot a minute apart: reason %q", got.Reason)
	}
}

func TestSeriesCLIText(t *testing.T) {
	code, out, errs := runCLI(t, append([]string{"series"}, writeGoroutineSeries(t, 10, true)...)...)
	if code != 3 || !strings.HasPrefix(out, "LEAK SUSPECTED: main.leaker grew steadily from 1 to 10") {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	for _, want := range []string{"Snapshots: 10 of goroutine (count), 2026-03-01 12:00:00 → 2026-03-01 12:09:00 (9m0s)", "Suspects (1):", "9/9", "▁▂▃▃▄▅▆▆▇█", "runtime.gopark ← runtime.chanrecv1 ← main.leaker ← runtime.goexit"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = runCLI(t, append([]string{"series"}, writeGoroutineSeries(t, 10, false)...)...)
	if code != 0 || !strings.HasPrefix(out, "NO STEADY GROWTH: ") {
		t.Fatalf("without the leak: exit %d: %s\n%s", code, errs, out)
	}
	// Nine goroutines are under a floor of 100: the leak is a grower that says so.
	code, out, errs = runCLI(t, append([]string{"series", "-min_growth", "100"}, writeGoroutineSeries(t, 10, true)...)...)
	if code != 0 || !strings.Contains(out, "main.leaker went from 1 to 10 (+9), but its steady growth of 9 is under the 100 a leak suspect needs") {
		t.Fatalf("-min_growth 100: exit %d: %s\n%s", code, errs, out)
	}
}

// TestSeriesCLIParca: the three Parca heap snapshots grow by one jump, not
// steadily (see pprof.TestSeriesParcaHeap), and three are too few to tell:
// inconclusive, exit 4, so that a CI gate does not pass it silently.
func TestSeriesCLIParca(t *testing.T) {
	var paths []string
	for _, name := range []string{"parca-self-heap-t0-1644509272.pb.gz", "parca-self-heap-t6-1644509290.pb.gz", "parca-self-heap-t9-1644509299.pb.gz"} {
		paths = append(paths, fixtures.Path(t, "pprof", name))
	}
	code, out, errs := runCLI(t, append([]string{"series", "-json", "-sample_index", "inuse_space"}, paths...)...)
	var got struct {
		Verdict  string            `json:"verdict"`
		Suspects []json.RawMessage `json:"suspects"`
		Totals   []int64           `json:"totals"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 4 {
		t.Fatalf("exit %d (%s), %v:\n%s", code, errs, err, out)
	}
	if got.Verdict != "inconclusive" || got.Suspects == nil || len(got.Suspects) != 0 || len(got.Totals) != 3 {
		t.Errorf("got %+v", got)
	}
	// The three snapshots span 27 s: too short for rates per minute, and the text
	// and the JSON say so.
	if !strings.Contains(out, `"rate_note": "the snapshots span 27s, less than 1m0s: rates are per snapshot, not per minute"`) ||
		strings.Contains(out, "slope_per_minute") {
		t.Errorf("JSON lacks the rate note or still has a per-minute slope:\n%s", out)
	}
	code, out, errs = runCLI(t, append([]string{"series", "-sample_index", "inuse_space"}, paths...)...)
	if code != 4 || !strings.HasPrefix(out, "INCONCLUSIVE: Too few snapshots to decide: the total went from 46.7 MB to 137.0 MB") || !strings.Contains(out, "skl.newArena grew from 0 B to 83.2 MB") ||
		!strings.Contains(out, "Rates:     the snapshots span 27s, less than 1m0s") || strings.Contains(out, " per minute,") {
		t.Errorf("text: exit %d (%s):\n%s", code, errs, out)
	}
}

// TestSeriesCLIExitStatuses: -h documents every exit status of leakui series, and
// the command's summary in leakui -h names the two a gate fails on.
func TestSeriesCLIExitStatuses(t *testing.T) {
	code, _, errs := runCLI(t, "series", "-h")
	for _, want := range []string{"Usage: leakui series", "Exit status:", "  3  leak suspected", "  4  inconclusive: too few snapshots to decide"} {
		if !strings.Contains(errs, want) {
			t.Errorf("leakui series -h (exit %d) lacks %q:\n%s", code, want, errs)
		}
	}
	_, out, errs := runCLI(t, "-h")
	if !strings.Contains(out+errs, "exit 3 when a leak is suspected, 4 when too few snapshots decide nothing") {
		t.Errorf("leakui -h does not name the exit statuses of series:\n%s%s", out, errs)
	}
}

func TestSeriesCLIErrors(t *testing.T) {
	heap := fixtures.Path(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz")
	goroutine := fixtures.Path(t, "pprof", "goprofnotes-goroutine-snap1-debug0.pb.gz")
	log := fixtures.Path(t, "logs", "loghub-HDFS_2k.log")
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"series"}, 2, "a series needs at least 3 snapshots, got 0"},
		{[]string{"series", heap, heap}, 2, "Usage: leakui series"},
		{[]string{"series", heap, heap, goroutine}, 1, "is a goroutine profile but snapshot 1"},
		{[]string{"series", "-sample_index", "alloc_space", heap, heap, heap}, 1, "alloc_space counts everything since the program started"},
		{[]string{"series", "-sample_index", "nope", heap, heap, heap}, 1, `sample_index "nope" must be one of`},
		{[]string{"series", "-min_share", "2", heap, heap, heap}, 1, "min share 2 is out of range"},
		{[]string{"series", "-min_growth", "-1", heap, heap, heap}, 1, "min growth -1 is out of range"},
		{[]string{"series", heap, log, heap}, 1, "detected text log, not a pprof profile"},
		{[]string{"series", heap, heap, "/does/not/exist"}, 1, "no such file"},
	} {
		code, _, errs := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("leakui %v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errs, tc.code, tc.msg)
		}
	}
}
