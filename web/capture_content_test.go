package web

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/leakui/leakui/lab"
)

// typedProfile is a one-sample profile.proto whose sample type is typ.
func typedProfile(t *testing.T, typ, unit string) []byte {
	t.Helper()
	fn := &profile.Function{ID: 1, Name: "main.work", Filename: "/src/main.go"}
	loc := &profile.Location{ID: 1, Address: 0x1000, Line: []profile.Line{{Function: fn, Line: 5}}}
	vt := &profile.ValueType{Type: typ, Unit: unit}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{vt}, PeriodType: vt, Period: 1,
		Sample:   []*profile.Sample{{Location: []*profile.Location{loc}, Value: []int64{100}}},
		Location: []*profile.Location{loc}, Function: []*profile.Function{fn},
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// captureFrom runs a heap capture of three snapshots from a target that answers
// with handler and returns how the run ended.
func captureFrom(t *testing.T, handler http.HandlerFunc) (runJSON, *testServer) {
	t.Helper()
	target := httptest.NewServer(handler)
	t.Cleanup(target.Close)
	ts := newTestServer(t, Config{Lab: &lab.Config{}, RunsPerMinute: -1, Targets: lab.Targets{"api": target.URL}})
	code, out := postJSON(t, ts.URL+"/api/captures", `{"target":"api","what":"heap","interval":"1s","count":3}`)
	if code != http.StatusAccepted {
		t.Fatalf("%d %v", code, out)
	}
	return waitRun(t, ts, out["id"]), ts
}

// TestCaptureThatIsNotAProfile checks captures whose bytes are not profiles
// leakui can report on: an HTML page served with 200, and profiles whose type
// changes between snapshots. Each run ends failed with the reason in its
// error, not running or interrupted, and stores nothing of the bad capture.
func TestCaptureThatIsNotAProfile(t *testing.T) {
	t.Run("html", func(t *testing.T) {
		r, ts := captureFrom(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<!doctype html><html><body><h1>Sign in</h1></body></html>\n"))
		})
		if r.Status != lab.StatusFailed || !strings.Contains(r.Error, "not a pprof profile") || r.ReportURL != "" {
			t.Fatalf("the capture of an HTML page ended %s with error %q and report %q", r.Status, r.Error, r.ReportURL)
		}
		if a, _, _, _ := ts.db.Counts(t.Context()); a != 0 {
			t.Errorf("%d artifacts stored from an HTML page", a)
		}
	})
	t.Run("type changes", func(t *testing.T) {
		heap, cpu := typedProfile(t, "inuse_space", "bytes"), typedProfile(t, "samples", "count")
		var n atomic.Int64
		r, ts := captureFrom(t, func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) == 1 {
				w.Write(heap)
				return
			}
			w.Write(cpu)
		})
		if r.Status != lab.StatusFailed || !strings.Contains(r.Error, "inuse_space") || r.Snapshots != 1 {
			t.Fatalf("the capture whose type changed ended %s after %d snapshots with error %q", r.Status, r.Snapshots, r.Error)
		}
		if a, _, _, _ := ts.db.Counts(t.Context()); a != 1 {
			t.Errorf("%d artifacts stored, want the first snapshot only", a)
		}
	})
}

// TestCaptureDoesNotFollowRedirectsElsewhere checks that a target answering
// with a redirect to another host is not followed there: the run fails naming
// the redirect and the other host gets no request; a redirect within the
// target is followed.
func TestCaptureDoesNotFollowRedirectsElsewhere(t *testing.T) {
	heap := typedProfile(t, "inuse_space", "bytes")
	var elsewhereHits atomic.Int64
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhereHits.Add(1)
		w.Write(heap)
	}))
	t.Cleanup(elsewhere.Close)
	r, _ := captureFrom(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/debug/pprof/heap", http.StatusFound)
	})
	if r.Status != lab.StatusFailed || !strings.Contains(r.Error, "another origin") || elsewhereHits.Load() != 0 {
		t.Fatalf("the redirected capture ended %s (%q) after %d requests elsewhere", r.Status, r.Error, elsewhereHits.Load())
	}
	r, _ = captureFrom(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/moved" {
			http.Redirect(w, r, "/moved", http.StatusFound)
			return
		}
		w.Write(heap)
	})
	if r.Status != lab.StatusDone || r.Snapshots != 3 {
		t.Errorf("the capture redirected within its target ended %s after %d snapshots (%q)", r.Status, r.Snapshots, r.Error)
	}
}
