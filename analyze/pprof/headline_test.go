package pprof

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/internal/fixtures"
)

// TestHeadlineSaysWhatEachSampleTypeShows reads every profile in testdata/pprof
// and checks the sentence of each sample type: a CPU profile is told where time
// goes and never that it shows where memory is, a heap profile where memory is
// held, allocations that they are not what is held, a goroutine profile where its
// goroutines wait (by site, not runtime.gopark), block and threadcreate profiles
// what they count.
func TestHeadlineSaysWhatEachSampleTypeShows(t *testing.T) {
	seen := map[string]bool{}
	for _, path := range fixturesGlob(t, "pprof") {
		p := loadFile(t, path)
		for si, st := range p.SampleTypes() {
			h, err := p.Headline(si)
			if err != nil {
				t.Fatal(err)
			}
			name := filepath.Base(path) + "/" + st.Type
			var want, kind string
			switch {
			case p.IsGoroutineLeakProfile():
				kind, want = "goroutineleak", "Proven leaked: 100 goroutines, by the Go runtime's goroutineleak profile"
			case p.IsGoroutineProfile():
				kind, want = "goroutine", "A goroutine profile shows where goroutines wait, not whether they pile up"
			case strings.HasPrefix(st.Type, "alloc_"):
				kind, want = "allocs", "Allocations count everything allocated since the program started, freed or not"
			case strings.HasPrefix(st.Type, "inuse_") || strings.Contains(name, "cppbench"): // heapz and growthz: objects/space
				kind, want = "heap", "A heap profile shows where memory is held now, not whether it grows"
			case st.Type == "cpu" || st.Type == "samples" && strings.Contains(p.TypeNames(), "cpu"):
				kind, want = "cpu", "A CPU profile shows where time goes while the program runs, not what it holds"
			case st.Type == "contentions" || st.Type == "delay":
				kind, want = "block", "A block or mutex profile shows where goroutines waited"
			case st.Type == "threadcreate":
				kind, want = "threadcreate", "A threadcreate profile shows where OS threads were created"
			case strings.Contains(name, "wallclock"): // fgprof: samples/count, time/nanoseconds
				kind, want = "wallclock", "A wall-clock profile shows where time goes, running or waiting"
			default:
				t.Errorf("%s: no sentence expected for this fixture: %q", name, h)
				continue
			}
			seen[kind] = true
			if !strings.Contains(h, want) {
				t.Errorf("%s: headline %q does not say %q", name, h, want)
			}
			if kind != "heap" && kind != "allocs" && strings.Contains(h, "where memory is") {
				t.Errorf("%s (%s): headline %q speaks of memory", name, kind, h)
			}
			if (kind == "goroutine" || kind == "goroutineleak") && strings.Contains(h, "runtime.gopark") {
				t.Errorf("%s: headline %q names runtime.gopark, not the goroutines' site", name, h)
			}
		}
	}
	for _, kind := range []string{"goroutineleak", "goroutine", "heap", "allocs", "cpu", "wallclock", "block", "threadcreate"} {
		if !seen[kind] {
			t.Errorf("no fixture has a %s sample type", kind)
		}
	}
}

// TestGoroutineLeakProtoCarriesTheProof reads the goroutineleak profile a real Go
// 1.26 program built with GOEXPERIMENT=goroutineleakprofile served (100 goroutines
// stranded in main.strand.func1) as a proto: its top table says proven leaked: 100
// in its JSON, its headline names the site, and a series of it carries the proof.
func TestGoroutineLeakProtoCarriesTheProof(t *testing.T) {
	p := loadFile(t, fixtures.Path(t, "pprof", "leakui-leaky-goroutineleak-100.pb.gz"))
	if !p.IsGoroutineLeakProfile() {
		t.Fatalf("types %s: not the goroutineleak profile", p.TypeNames())
	}
	top := mustTop(t, p, 0)
	b, err := json.Marshal(top)
	if err != nil {
		t.Fatal(err)
	}
	if !top.ProvenLeaked || top.Leaked != 100 || !strings.Contains(string(b), `"proven_leaked":true,"leaked":100`) {
		t.Errorf("top: proven %v, leaked %d: %s", top.ProvenLeaked, top.Leaked, b)
	}
	if h, err := p.Headline(0); err != nil || !strings.HasPrefix(h, "Proven leaked: 100 goroutines") || !strings.Contains(h, "the most in main.strand.func1 (100)") {
		t.Errorf("headline %q", h)
	}
	rep, err := Series([]Snapshot{{"a", p}, {"b", p}, {"c", p}}, series.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != series.Leak || !rep.ProvenLeaked || rep.Leaked != 100 || !strings.HasPrefix(rep.Reason, "Proven leaked: 100 goroutines in the last snapshot") {
		t.Errorf("series: %s, proven %v, leaked %d: %s", rep.Verdict, rep.ProvenLeaked, rep.Leaked, rep.Reason)
	}
	// An ordinary goroutine profile proves nothing.
	g := loadFile(t, fixtures.Path(t, "pprof", "flameshow-goroutine.pb.gz"))
	if top := mustTop(t, g, 0); top.ProvenLeaked || top.Leaked != 0 {
		t.Errorf("a goroutine profile: proven %v, leaked %d", top.ProvenLeaked, top.Leaked)
	}
}

// TestSeriesWarnsOfDifferentPrograms: heap profiles of two programs (Prometheus's
// node-exporter and Erigon's integration tool) make a series only with a warning
// that names both; snapshots of one program carry none.
func TestSeriesWarnsOfDifferentPrograms(t *testing.T) {
	node := loadFile(t, fixtures.Path(t, "pprof", "flameshow-heap.pb.gz"))
	erigon := loadFile(t, fixtures.Path(t, "pprof", "erigon-integration-heap.pb.gz"))
	rep, err := Series([]Snapshot{{"n1", node}, {"n2", node}, {"e", erigon}}, series.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "The snapshots come from different programs (node-exporter in snapshot 1, integration in snapshot 3)"
	if len(rep.Warnings) != 1 || !strings.HasPrefix(rep.Warnings[0], want) {
		t.Errorf("warnings %q, want %q", rep.Warnings, want)
	}
	rep, err = Series([]Snapshot{{"n1", node}, {"n2", node}, {"n3", node}}, series.Options{})
	if err != nil || len(rep.Warnings) != 0 {
		t.Errorf("one program: warnings %q, %v", rep.Warnings, err)
	}
}
