package incident

import (
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/internal/fixtures"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// steadyHeapSeries is a heap series without steady growth: Parca's heap
// snapshots t0 and t6 (real profiles of one process 18 s apart, both 46.7 MB
// in use) alternating over eight snapshots.
func steadyHeapSeries(t *testing.T) Evidence {
	t.Helper()
	var snaps []pprof.Snapshot
	for i := range 8 {
		name := []string{"parca-self-heap-t0-1644509272.pb.gz", "parca-self-heap-t6-1644509290.pb.gz"}[i%2]
		f, err := os.Open(fixtures.Path(t, "pprof", name))
		if err != nil {
			t.Fatal(err)
		}
		p, err := pprof.Open(pprof.Reader(f), pprof.Options{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, pprof.Snapshot{Name: name, Profile: p})
	}
	rep, err := pprof.Series(snaps, series.Options{KeepOrder: true})
	if err != nil {
		t.Fatal(err)
	}
	return FromSeries("heap series", "parca-self-heap-t0-1644509272.pb.gz", Heap, rep, "/r/steady")
}

// TestFromRealAnalyses checks each kind's judgement on real evidence run
// through its analysis: the strength, the domain, the headline number and the
// finding.
func TestFromRealAnalyses(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ev       func(t *testing.T) Evidence
		strength Strength
		domain   Domain
		number   string
		finding  string
	}{
		{"goroutineleak profile", goroutineLeak, Proven, Goroutines, "7", "7 goroutines proven leaked"},
		{"heap dump suspect", heapDump, Proven, Heap, "1.5 MB", "6 instances of LeakShape$ConsumerThread retain 1.5 MB (71% of the heap)"},
		{"native growth NMT cannot see", jvmCaptures, Proven, OffHeap, "+230.8 MB",
			"RSS − heap grew 230.8 MB beyond what NMT tracks; 20,000 java.util.zip.Inflater alive"},
		{"lab run that leaks", func(*testing.T) Evidence { return labRun("leak") }, Suspected, Reproduction, "", "the reproduction leaks"},
		{"heap series too short", heapSeries, Inconclusive, Heap, "+90.4 MB", "too few snapshots to decide (+90.4 MB over 3)"},
		{"class histograms too few", histogramSeries, Inconclusive, Heap, "+1.0 MB", "too few snapshots to decide (+1.0 MB over 3)"},
		{"heap series without steady growth", steadyHeapSeries, Clean, Heap, "0 B", "no steady growth (0 B)"},
		{"broker log, group members balanced", func(t *testing.T) Evidence { return kafkaLog(t, "kafka-group-members") }, Clean, Resources, "2",
			"every start closed (1 of 1 pairs measurable)"},
		{"broker log, deep iterators not logged", func(t *testing.T) Evidence { return kafkaLog(t, "kafka-3933") }, None, Resources, "",
			"no start/close pair measurable: no verdict"},
		{"one goroutine profile", goroutineDump, None, Goroutines, "10", "10 goroutines, no verdict from one dump"},
		{"lab run that does not leak", func(*testing.T) Evidence { return labRun("no-leak") }, Clean, Reproduction, "", "the reproduction does not leak"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := tc.ev(t)
			if e.Strength != tc.strength || e.Domain != tc.domain || e.NumberText() != tc.number || e.Finding != tc.finding {
				t.Errorf("%s %s %q %q, want %s %s %q %q", e.Strength, e.Domain, e.NumberText(), e.Finding, tc.strength, tc.domain, tc.number, tc.finding)
			}
			if e.Sentence == "" || e.Link == "" || e.Kind == "" {
				t.Errorf("evidence without its sentence, link or kind: %+v", e)
			}
		})
	}
}

// realEvidence is every kind of evidence above, in no particular order.
func realEvidence(t *testing.T) []Evidence {
	return []Evidence{goroutineDump(t), heapSeries(t), kafkaLog(t, "kafka-group-members"), labRun("leak"), steadyHeapSeries(t),
		heapDump(t), kafkaLog(t, "kafka-3933"), jvmCaptures(t), histogramSeries(t), goroutineLeak(t)}
}

// TestRank: proven before suspected before inconclusive before no leak before
// no verdict; within a strength bytes before counts and the larger first; the
// same for any order of the input.
func TestRank(t *testing.T) {
	ev := realEvidence(t)
	want := []string{
		"/r/captures",                // proven, +230.8 MB
		"/r/heapdump",                // proven, 1.5 MB
		"/r/goroutineleak",           // proven, 7 goroutines
		"/runs/run1",                 // suspected: the lab reproduces it
		"/r/heapseries",              // inconclusive, +90.4 MB
		"/r/histograms",              // inconclusive, +1.0 MB
		"/r/steady",                  // no leak, +1.1 MB
		"/r/log-kafka-group-members", // no leak, a count
		"/r/goroutines",              // no verdict, 10 goroutines
		"/r/log-kafka-3933",          // no verdict, no number
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		r.Shuffle(len(ev), func(i, j int) { ev[i], ev[j] = ev[j], ev[i] })
		var got []string
		for _, e := range Rank(ev) {
			got = append(got, e.Link)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("ranked\n%q\nwant\n%q", got, want)
		}
	}
}

// TestDecide builds the headline from the strongest evidence with its number
// and link, and lists the contradictions.
func TestDecide(t *testing.T) {
	v := Decide(realEvidence(t))
	if v.Strength != Proven || v.Link != "/r/captures" || v.Number != "+230.8 MB" || v.Lead != 0 {
		t.Errorf("verdict %s, link %q, number %q, lead %d", v.Strength, v.Link, v.Number, v.Lead)
	}
	wantHead := "Leak proven: JVM captures jvm-unclosed-gzip-before.tar.gz — RSS − heap grew 230.8 MB beyond what NMT tracks; " +
		"20,000 java.util.zip.Inflater alive. 3 other pieces of evidence point at a leak; 2 other pieces of evidence find none."
	if v.Headline != wantHead {
		t.Errorf("headline\n%s\nwant\n%s", v.Headline, wantHead)
	}
	if v.Counts[Proven] != 3 || v.Counts[Suspected] != 1 || v.Counts[Inconclusive] != 2 || v.Counts[Clean] != 2 || v.Counts[None] != 2 {
		t.Errorf("counts %v", v.Counts)
	}
	wantContra := []string{
		"heap series: no steady growth (0 B); JVM captures: RSS − heap grew 230.8 MB beyond what NMT tracks; 20,000 java.util.zip.Inflater alive: look off-heap",
		"log: every start closed (1 of 1 pairs measurable); JVM captures: RSS − heap grew 230.8 MB beyond what NMT tracks; 20,000 java.util.zip.Inflater alive: the leak is not in what the log's pairs count: look off-heap",
		"heap series: no steady growth (0 B); heap dump: 6 instances of LeakShape$ConsumerThread retain 1.5 MB (71% of the heap): they disagree about the heap: compare when and where each was taken",
	}
	var got []string
	for _, c := range v.Contradictions {
		got = append(got, c.Text)
		if !v.Ranked[c.Leak].leak() || v.Ranked[c.Clean].Strength != Clean {
			t.Errorf("contradiction %q pairs %s with %s", c.Text, v.Ranked[c.Leak].Strength, v.Ranked[c.Clean].Strength)
		}
	}
	if len(got) < len(wantContra) || !slices.Equal(got[:len(wantContra)], wantContra) {
		t.Errorf("contradictions\n%s\nwant first\n%s", strings.Join(got, "\n"), strings.Join(wantContra, "\n"))
	}
}

// TestDecideWithoutALeak covers the verdicts without a leak: none attached,
// only inconclusive evidence, only evidence of no leak, only evidence without a
// verdict.
func TestDecideWithoutALeak(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ev       []func(t *testing.T) Evidence
		strength Strength
		head     string
	}{
		{"nothing", nil, None, "No evidence attached yet: attach reports or lab runs to the incident."},
		{"inconclusive", []func(t *testing.T) Evidence{heapSeries, goroutineDump, histogramSeries}, Inconclusive,
			"Inconclusive: heap series parca-self-heap-t0-1644509272.pb.gz — too few snapshots to decide (+90.4 MB over 3). Nothing attached decides: take more snapshots or captures."},
		{"no leak", []func(t *testing.T) Evidence{steadyHeapSeries, func(t *testing.T) Evidence { return kafkaLog(t, "kafka-group-members") }}, Clean,
			"No leak: heap series parca-self-heap-t0-1644509272.pb.gz — no steady growth (0 B). All 2 pieces of evidence with a verdict find no leak."},
		{"no verdict", []func(t *testing.T) Evidence{goroutineDump}, None,
			"No verdict: goroutine dump pprof/goprofnotes-goroutine-snap1-debug0.pb.gz — 10 goroutines, no verdict from one dump. No evidence attached gives a verdict: attach a series, captures, a heap dump or a log."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ev []Evidence
			for _, f := range tc.ev {
				ev = append(ev, f(t))
			}
			v := Decide(ev)
			if v.Strength != tc.strength || v.Headline != tc.head || len(v.Contradictions) != 0 {
				t.Errorf("%s %q %v, want %s %q", v.Strength, v.Headline, v.Contradictions, tc.strength, tc.head)
			}
		})
	}
}

// TestDecideLargeIncident: 10,000 pieces of evidence, half saying leak and
// half not, are decided in bounded time with at most MaxContradictions.
func TestDecideLargeIncident(t *testing.T) {
	var ev []Evidence
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range 10_000 {
		e := Evidence{Kind: "heap series", Strength: Suspected, Domain: Heap, Finding: "grew steadily", Number: int64(i), Unit: "bytes",
			Start: start.Add(time.Duration(i) * time.Second), Link: "/r/x"}
		if i%2 == 1 {
			e.Strength, e.Domain, e.Kind, e.Finding = Clean, OffHeap, "JVM captures", "no native growth"
		}
		ev = append(ev, e)
	}
	begin := time.Now()
	v := Decide(ev)
	if len(v.Ranked) != 10_000 || v.Ranked[0].Number != 9998 || len(v.Contradictions) != 1 {
		t.Errorf("%d ranked, first %d, %d contradictions", len(v.Ranked), v.Ranked[0].Number, len(v.Contradictions))
	}
	if d := time.Since(begin); d > 10*time.Second {
		t.Errorf("deciding 10,000 pieces took %s", d)
	}
}
