package web

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/lab"
)

// pprofTarget is a live pprof endpoint (this test process's own profiles) that
// counts the requests it gets.
func pprofTarget(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestCaptureFromATarget(t *testing.T) {
	target, hits := pprofTarget(t)
	ts := newTestServer(t, Config{Lab: &lab.Config{}, RunsPerMinute: -1, Targets: lab.Targets{"api": target.URL}})
	code, out := postJSON(t, ts.URL+"/api/captures", `{"target":"api","what":"goroutine","interval":"1s","count":3}`)
	if code != http.StatusAccepted {
		t.Fatalf("%d %v", code, out)
	}
	r := waitRun(t, ts, out["id"])
	// Three goroutine profiles, and one request for the goroutineleak profile this
	// test binary (built without the experiment) answers with 404: not asked again.
	if r.Status != lab.StatusDone || r.Snapshots != 3 || r.ReportURL == "" || hits.Load() != 4 {
		t.Fatalf("capture ended %+v after %d requests", r, hits.Load())
	}
	doc := reportDoc(t, ts, strings.Replace(r.ReportURL, "/r/", "/api/reports/", 1))
	if len(doc.Artifacts) != 3 || doc.Kind != "series" || doc.Analysis == nil {
		t.Errorf("the capture's report is a %s of %d artifacts (analysis %v)", doc.Kind, len(doc.Artifacts), doc.Analysis != nil)
	}
}

func TestUnknownTargetSendsNothing(t *testing.T) {
	target, hits := pprofTarget(t)
	ts := newTestServer(t, Config{Lab: &lab.Config{}, RunsPerMinute: -1, Targets: lab.Targets{"api": target.URL}})
	for _, body := range []string{
		`{"target":"` + target.URL + `","count":3}`,
		`{"target":"db","count":3}`,
		`{"target":"api","count":3,"url":"http://169.254.169.254/"}`,
	} {
		if code, out := postJSON(t, ts.URL+"/api/captures", body); code != http.StatusBadRequest || out["error"] == "" {
			t.Errorf("%s: %d %v", body, code, out)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("%d requests left for a target that was not allowed", hits.Load())
	}
	if a, _, r, _ := ts.db.Counts(t.Context()); a+r != 0 {
		t.Error("a refused capture stored something")
	}
}

func TestParseTarget(t *testing.T) {
	if name, base, err := lab.ParseTarget("api=http://10.0.0.5:6060/"); err != nil || name != "api" || base != "http://10.0.0.5:6060" {
		t.Errorf("%q %q %v", name, base, err)
	}
	for _, bad := range []string{"api", "=http://x", "api=file:///etc/passwd", "api=localhost:6060"} {
		if _, _, err := lab.ParseTarget(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

// goroutineLeakProfile is a goroutineleak profile (sample type goroutineleak/count,
// as GOEXPERIMENT=goroutineleakprofile programs serve it) of n goroutines in
// main.strand.func1.
func goroutineLeakProfile(t *testing.T, n int64) []byte {
	t.Helper()
	fn := &profile.Function{ID: 1, Name: "main.strand.func1", Filename: "/src/main.go"}
	loc := &profile.Location{ID: 1, Address: 0x1000, Line: []profile.Line{{Function: fn, Line: 55}}}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "goroutineleak", Unit: "count"}},
		PeriodType: &profile.ValueType{Type: "goroutineleak", Unit: "count"}, Period: 1,
		Sample:   []*profile.Sample{{Location: []*profile.Location{loc}, Value: []int64{n}}},
		Location: []*profile.Location{loc}, Function: []*profile.Function{fn},
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCaptureTakesGoroutineLeak checks that a goroutine capture of a target that
// serves /debug/pprof/goroutineleak takes it with every snapshot, keeps it out of
// the series report, and that the run page and its JSON show the proven count.
func TestCaptureTakesGoroutineLeak(t *testing.T) {
	var leakHits atomic.Int64
	leak := goroutineLeakProfile(t, 6)
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/goroutineleak", func(w http.ResponseWriter, r *http.Request) {
		leakHits.Add(1)
		w.Write(leak)
	})
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	target := httptest.NewServer(mux)
	t.Cleanup(target.Close)
	ts := newTestServer(t, Config{Lab: &lab.Config{}, RunsPerMinute: -1, Targets: lab.Targets{"api": target.URL}})
	code, out := postJSON(t, ts.URL+"/api/captures", `{"target":"api","what":"goroutine","interval":"1s","count":3}`)
	if code != http.StatusAccepted {
		t.Fatalf("%d %v", code, out)
	}
	r := waitRun(t, ts, out["id"])
	if r.Status != lab.StatusDone || r.Snapshots != 3 || leakHits.Load() != 3 {
		t.Fatalf("capture ended %+v after %d goroutineleak requests", r, leakHits.Load())
	}
	doc := reportDoc(t, ts, strings.Replace(r.ReportURL, "/r/", "/api/reports/", 1))
	if len(doc.Artifacts) != 3 || doc.Kind != "series" {
		t.Errorf("the capture's report is a %s of %d artifacts, want a series of the 3 goroutine profiles", doc.Kind, len(doc.Artifacts))
	}
	pg := goroutinePage(t, ts, "/runs/"+out["id"])
	sec := pg.Find("[data-testid=section-proven-leaked]").Text()
	if !strings.Contains(sec, "Proven leaked by the Go runtime") || !strings.Contains(sec, "6 goroutines proven leaked in the last of 3 goroutineleak captures") || !strings.Contains(sec, "6 × main.strand.func1") {
		t.Errorf("run page section: %q", sec)
	}
}
