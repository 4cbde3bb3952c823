package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze/goroutines"
	"github.com/leakui/leakui/internal/jvmtext"
	"github.com/leakui/leakui/internal/markdown"
)

// TestGoroutineLeakProtoProvesLeaks uploads the Go runtime's goroutineleak
// profile as a proto (what /debug/pprof/goroutineleak serves) and checks that
// every view of it says the runtime's proof, "proven leaked: 100", in red: the
// top, flame and goroutine group pages, the JSON of each view, and the Markdown.
func TestGoroutineLeakProtoProvesLeaks(t *testing.T) {
	ts := newTestServer(t, Config{})
	up := ts.mustUpload(t, nil, fixture(t, "pprof", "leakui-leaky-goroutineleak-100.pb.gz"))
	for _, v := range []string{"", "?view=flame", "?view=goroutines"} {
		pg := goroutinePage(t, ts, up.ReportURL+v)
		state := pg.Find("[data-testid=verdict-state]")
		if got := state.Text(); got != "proven leaked: 100" || !state.HasClass("bad") {
			t.Errorf("%s: verdict badge %q (class %q), want a red \"proven leaked: 100\"", v, got, state.AttrOr("class", ""))
		}
		if reason := pg.Find("[data-testid=verdict-reason]").Text(); !strings.HasPrefix(reason, "Proven leaked: 100 goroutines") || !strings.Contains(reason, "main.strand.func1") {
			t.Errorf("%s: verdict reason %q, want the proof and its function", v, reason)
		}
	}
	for _, v := range []string{"", "?view=flame"} {
		code, _, body := ts.get(t, "/api/reports/"+up.ReportID+v)
		var doc struct {
			Profile struct {
				Headline     string `json:"headline"`
				ProvenLeaked bool   `json:"proven_leaked"`
				Leaked       int64  `json:"leaked"`
			} `json:"profile"`
		}
		if err := json.Unmarshal(body, &doc); code != 200 || err != nil {
			t.Fatalf("JSON%s: %d %v %s", v, code, err, body)
		}
		if p := doc.Profile; !p.ProvenLeaked || p.Leaked != 100 || !strings.HasPrefix(p.Headline, "Proven leaked: 100 goroutines") {
			t.Errorf("JSON%s: proven_leaked %v leaked %d headline %q, want true, 100 and the proof", v, p.ProvenLeaked, p.Leaked, p.Headline)
		}
	}
	code, _, body := ts.get(t, "/api/reports/"+up.ReportID+"?view=goroutines")
	var groups struct {
		Analysis struct {
			Verdict      string `json:"verdict"`
			ProvenLeaked bool   `json:"proven_leaked"`
			Leaked       int    `json:"leaked"`
		} `json:"analysis"`
	}
	if err := json.Unmarshal(body, &groups); code != 200 || err != nil {
		t.Fatalf("groups JSON: %d %v %s", code, err, body)
	}
	if a := groups.Analysis; a.Verdict != goroutines.VerdictLeak || !a.ProvenLeaked || a.Leaked != 100 {
		t.Errorf("groups JSON: verdict %q proven_leaked %v leaked %d, want leak, true, 100", a.Verdict, a.ProvenLeaked, a.Leaked)
	}
	_, _, md := ts.get(t, up.ReportURL+".md")
	if !strings.Contains(string(md), "- Verdict: Proven leaked: 100 goroutines") || strings.Contains(string(md), "1 samples") {
		t.Errorf("Markdown lacks the proof, or says \"1 samples\":\n%s", md)
	}
}

// TestProfileBannerIsTheAnalysisHeadline checks that a single profile's banner,
// its JSON and its Markdown say what pprof's Profile.Headline says for the
// sample type shown: a CPU profile shows where time goes, never "where memory
// is"; a heap profile's alloc_space speaks of allocations.
func TestProfileBannerIsTheAnalysisHeadline(t *testing.T) {
	ts := newTestServer(t, Config{})
	for _, c := range []struct {
		file, si, want, never string
	}{
		{"erigon-cpu-30s.pb.gz", "", "where time goes", "memory"},
		{"flameshow-heap.pb.gz", "alloc_space", "Allocations count everything allocated", "where memory is held now"},
		{"flameshow-heap.pb.gz", "inuse_space", "where memory is held now", "where time goes"},
		{"goprofnotes-goroutine-snap1-debug0.pb.gz", "", "where goroutines wait", "memory"},
	} {
		f := fixture(t, "pprof", c.file)
		p := loadProfileBytes(t, f.data)
		si := p.DefaultSampleIndex()
		query := ""
		if c.si != "" {
			var err error
			if si, err = p.SampleIndex(c.si); err != nil {
				t.Fatal(err)
			}
			query = "?si=" + c.si
		}
		want, err := p.Headline(si)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(want, c.want) || strings.Contains(want, c.never) {
			t.Fatalf("%s %s: the analysis says %q", c.file, c.si, want)
		}
		up := ts.mustUpload(t, nil, f)
		pg := goroutinePage(t, ts, up.ReportURL+query)
		if got := pg.Find("[data-testid=verdict-reason]").Text(); got != want {
			t.Errorf("%s %s: banner %q, want the analysis's %q", c.file, c.si, got, want)
		}
		code, _, body := ts.get(t, "/api/reports/"+up.ReportID+query)
		var doc struct {
			Profile struct {
				Headline string `json:"headline"`
			} `json:"profile"`
		}
		if err := json.Unmarshal(body, &doc); code != 200 || err != nil {
			t.Fatalf("JSON: %d %v", code, err)
		}
		if doc.Profile.Headline != want {
			t.Errorf("%s %s: JSON headline %q, want %q", c.file, c.si, doc.Profile.Headline, want)
		}
		_, _, md := ts.get(t, up.ReportURL+".md"+query)
		if !strings.Contains(string(md), "- Verdict: "+markdown.Escape(want)+"\n") {
			t.Errorf("%s %s: Markdown lacks the headline %q:\n%s", c.file, c.si, want, md)
		}
	}
}

// TestGoroutineVerdictNamesTheLargestGroup uploads a crash whose panicking
// goroutine is alone in its group, listed first, beside a group of 100: the
// verdict is the analysis's headline, which names the group of 100 as the
// largest and the panicking one apart, and never says "1 goroutines".
func TestGoroutineVerdictNamesTheLargestGroup(t *testing.T) {
	var b strings.Builder
	b.WriteString("panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:5 +0x19\n")
	for i := range 100 {
		fmt.Fprintf(&b, "\ngoroutine %d [chan receive]:\nmain.worker()\n\t/src/main.go:10 +0x19\ncreated by main.start in goroutine 1\n\t/src/main.go:20 +0x1b\n", i+10)
	}
	b.WriteString("exit status 2\n")
	ts := newTestServer(t, Config{})
	status, up, raw := ts.upload(t, file{name: "crash.txt", data: []byte(b.String())})
	if status != 201 {
		t.Fatalf("%d %s", status, raw)
	}
	d, err := goroutines.Parse(strings.NewReader(b.String()), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	rep := goroutines.NewReport(d, nil)
	pg := goroutinePage(t, ts, up.ReportURL)
	reason := pg.Find("[data-testid=verdict-reason]").Text()
	if reason != rep.Headline {
		t.Errorf("verdict %q, want the analysis's headline %q", reason, rep.Headline)
	}
	if !strings.Contains(reason, "the largest group is 100 goroutines in main.worker") || !strings.Contains(reason, "panicked is in main.main") || strings.Contains(reason, " 1 goroutines") {
		t.Errorf("verdict %q does not name the group of 100 as the largest and the panicking one apart", reason)
	}
	if count := strings.Join(strings.Fields(pg.Find("[data-testid=goroutine-count]").Text()), " "); count != "Showing 2 of 2 groups. Lines of the file that belong to no goroutine: 1." {
		t.Errorf("group count %q", count)
	}
}

// TestHistogramComparisonAcrossJVMVersionsWarns compares class histograms of a
// JDK 11 and a JDK 17 process: the diff page, its JSON (the diff's and the
// series' warnings) and its Markdown say first that the JVM versions differ.
func TestHistogramComparisonAcrossJVMVersionsWarns(t *testing.T) {
	withVersion := func(rows []jvmtext.Class, v string) []jvmtext.Class {
		for i := range rows {
			if rows[i].Module != "" {
				rows[i].Module = "java.base@" + v
			}
		}
		return rows
	}
	var all strings.Builder
	for i, v := range []string{"11.0.20", "11.0.20", "17.0.15"} {
		text, _, _ := jvmHistogramText(fmt.Sprintf("2026-12-02T01:0%d:00Z", i), withVersion(jvmSamzaHeap(int64(10*(i+1))), v))
		all.WriteString(text)
	}
	ts := newTestServer(t, Config{})
	up := ts.mustUpload(t, nil, file{"three.histo", []byte(all.String())})
	const want = "different JVM versions (11.0.20 in "
	pg := goroutinePage(t, ts, up.ReportURL)
	if n := pg.Find("[data-testid=notice]").First().Text(); !strings.Contains(n, want) || !strings.Contains(n, "17.0.15") {
		t.Errorf("first notice %q, want the JVM versions' warning", n)
	}
	code, _, body := ts.get(t, "/api/reports/"+up.ReportID)
	var doc struct {
		Analysis struct {
			Warnings []string `json:"warnings"`
			Series   map[string]struct {
				Warnings []string `json:"warnings"`
			} `json:"series"`
		} `json:"analysis"`
	}
	if err := json.Unmarshal(body, &doc); code != 200 || err != nil {
		t.Fatalf("JSON: %d %v %s", code, err, body)
	}
	if w := doc.Analysis.Warnings; len(w) != 1 || !strings.Contains(w[0], want) {
		t.Errorf("JSON warnings %q", w)
	}
	for _, by := range []string{"instances", "bytes"} {
		if w := doc.Analysis.Series[by].Warnings; len(w) != 1 || !strings.Contains(w[0], "The snapshots come from different JVM versions") {
			t.Errorf("JSON series by %s: warnings %q", by, w)
		}
	}
	_, _, md := ts.get(t, up.ReportURL+".md")
	if !strings.Contains(string(md), "> Warning: The two files come from "+want) {
		t.Errorf("Markdown lacks the warning:\n%s", md)
	}
}

// TestComparisonColours checks that colours mean one thing: a profile diff that
// grew is red and one that shrank green; native memory that grew by 1.4 GB
// without a native leak is red, never green; a single histogram, with no
// verdict, is grey.
func TestComparisonColours(t *testing.T) {
	ts := newTestServer(t, Config{})
	t0, t9 := fixture(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz"), fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")
	up := ts.mustUpload(t, nil, t0, t9) // ordered by time: t0 → t9
	for _, c := range []struct {
		query, class string
	}{
		{"?base=0&target=1", "bad"},
		{"?base=1&target=0", "good"},
	} {
		pg := goroutinePage(t, ts, up.ReportURL+c.query)
		banner := pg.Find("[data-testid=verdict-banner]")
		if !banner.HasClass(c.class) || banner.HasClass("warn") {
			t.Errorf("%s: banner class %q, want %q", c.query, banner.AttrOr("class", ""), c.class)
		}
	}
	base, _, _ := jvmNMTSummaryText("2026-12-02T01:00:00Z", jvmKafkaBroker(0))
	heap := jvmKafkaBroker(0)
	heap[0].committed += 1400 << 10 // Java Heap +1.4 GB
	target, _, _ := jvmNMTSummaryText("2026-12-02T01:10:00Z", heap)
	up = ts.mustUpload(t, nil, file{"before.nmt", []byte(base)}, file{"after.nmt", []byte(target)})
	pg := goroutinePage(t, ts, up.ReportURL)
	if banner := pg.Find("[data-testid=verdict-banner]"); banner.HasClass("good") || !banner.HasClass("bad") {
		t.Errorf("NMT +1.4 GB: banner class %q, want red", banner.AttrOr("class", ""))
	}
	text, _, _ := jvmHistogramText("", jvmSamzaHeap(10))
	up = ts.mustUpload(t, nil, file{"one.histo", []byte(text)})
	pg = goroutinePage(t, ts, up.ReportURL)
	if banner := pg.Find("[data-testid=verdict-banner]"); banner.HasClass("good") || banner.HasClass("bad") {
		t.Errorf("one histogram: banner class %q, want grey", banner.AttrOr("class", ""))
	}
}
