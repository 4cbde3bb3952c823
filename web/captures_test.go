package web

import (
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"strings"
	"sync/atomic"
	"testing"

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
	if r.Status != lab.StatusDone || r.Snapshots != 3 || r.ReportURL == "" || hits.Load() != 3 {
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
