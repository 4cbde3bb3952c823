package web

import (
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"
)

// healthOf GETs a health check as JSON.
func healthOf(t *testing.T, ts *testServer, path string) (int, health) {
	t.Helper()
	code, _, body := ts.get(t, path, "Accept", "application/json")
	var h health
	if err := json.Unmarshal(body, &h); err != nil {
		t.Fatalf("%s: %d %s", path, code, body)
	}
	return code, h
}

// waitHealth polls /healthz until cond holds (the requests it waits for are
// on their way), failing after a minute.
func waitHealth(t *testing.T, ts *testServer, cond func(health) bool) health {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, h := healthOf(t, ts, "/healthz"); cond(h) {
			return h
		}
	}
	t.Fatal("the health check never showed the expected load")
	return health{}
}

// stalledUpload starts an upload whose body stops after its first part's
// header, so the request holds (or waits for) an upload slot until the
// returned function ends it.
func stalledUpload(t *testing.T, ts *testServer) (end func()) {
	t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	req, _ := http.NewRequest("POST", ts.URL+"/api/artifacts", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	go func() {
		w, _ := mw.CreateFormFile("file", "slow.txt")
		w.Write([]byte("goroutine 1 [running]:\n"))
	}()
	return func() { pw.CloseWithError(io.ErrUnexpectedEOF); <-done }
}

// TestHealthzAndReadyz saturates the uploads' throttle (one slot) with
// uploads that stall: /healthz stays 200 and says degraded with the counts;
// /readyz turns 503 once a request waits for the slot, and again while the
// server shuts down; both answer ok when the load is gone.
func TestHealthzAndReadyz(t *testing.T) {
	ts := newTestServer(t, Config{MaxUploads: 1, MaxPerClient: 2, IdleBodyTimeout: -1})
	if code, h := healthOf(t, ts, "/readyz"); code != http.StatusOK || h.Status != "ok" {
		t.Fatalf("idle readyz: %d %+v", code, h)
	}
	first := stalledUpload(t, ts)
	h := waitHealth(t, ts, func(h health) bool { return h.Throttles["uploads"].Busy == 1 })
	if h.Status != "degraded" || len(h.Reasons) == 0 || !strings.Contains(h.Reasons[0], "1 of 1 busy") {
		t.Errorf("healthz with the one slot busy: %+v", h)
	}
	if code, _, body := ts.get(t, "/healthz"); code != http.StatusOK || !strings.HasPrefix(string(body), "degraded: the uploads throttle is saturated") {
		t.Errorf("healthz as text: %d %q", code, body)
	}
	if code, h := healthOf(t, ts, "/readyz"); code != http.StatusOK {
		t.Errorf("readyz with a busy slot and no one waiting: %d %+v", code, h)
	}
	second := stalledUpload(t, ts)
	waitHealth(t, ts, func(h health) bool { return h.Throttles["uploads"].Waiting == 1 })
	if code, h := healthOf(t, ts, "/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(strings.Join(h.Reasons, ";"), "requests waiting for the uploads throttle: 1") {
		t.Errorf("readyz with a request waiting: %d %+v", code, h)
	}
	first()
	second()
	waitHealth(t, ts, func(h health) bool { return h.Throttles["uploads"].Busy == 0 && h.Throttles["uploads"].Waiting == 0 })
	if code, _, body := ts.get(t, "/healthz"); code != http.StatusOK || string(body) != "ok" {
		t.Errorf("healthz after the load: %d %q", code, body)
	}
	if code, _, body := ts.get(t, "/readyz"); code != http.StatusOK || string(body) != "ok" {
		t.Errorf("readyz after the load: %d %q", code, body)
	}
	ts.srv.BeginShutdown()
	if code, _, body := ts.get(t, "/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(string(body), "shutting down") {
		t.Errorf("readyz while shutting down: %d %q", code, body)
	}
}
