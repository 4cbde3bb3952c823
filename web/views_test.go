package web

import (
	"net/http"
	"testing"
	"time"
)

// TestDiffFlameIsCachedByItsParameters: a diff's flame graph is built once per
// sample type and filter and then served from the cache, charged to the server's
// memory budget; a new filter builds a new one.
func TestDiffFlameIsCachedByItsParameters(t *testing.T) {
	ts := newTestServer(t, Config{})
	up := ts.mustUpload(t, nil, fixture(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz"), fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz"))
	for i, path := range []string{"?view=flame", "?view=flame", "/api/reports/" + up.ReportID + "?view=flame", "?view=flame&h=runtime"} {
		url := up.ReportURL + path
		if path[0] == '/' {
			url = path
		}
		if code, _, body := ts.get(t, url); code != http.StatusOK {
			t.Fatalf("%s: %d %.200s", url, code, body)
		}
		want := []int{1, 1, 1, 2}[i] // the page and the API share the graph
		if got := ts.srv.flames.order.Len(); got != want {
			t.Errorf("after %s: %d flame graphs cached, want %d", path, got, want)
		}
	}
	if ts.srv.budget.Used() <= ts.srv.profiles.total {
		t.Errorf("the budget holds %d bytes, the profiles alone %d: the flame graphs are not charged", ts.srv.budget.Used(), ts.srv.profiles.total)
	}
}

// TestUncachedViewsWaitForASlot: when every slot for building flame graphs is
// taken, a view that is not cached waits a bounded time and then answers 503
// with Retry-After; pages that build nothing still answer; once a slot frees up,
// the view is built.
func TestUncachedViewsWaitForASlot(t *testing.T) {
	ts := newTestServer(t, Config{})
	up := ts.mustUpload(t, nil, fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz"))
	ts.srv.views.wait = 50 * time.Millisecond
	for range cap(ts.srv.views.slots) {
		ts.srv.views.slots <- struct{}{}
	}
	resp, err := http.Get(ts.URL + up.ReportURL + "?view=flame")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("all slots taken: %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if code, _, _ := ts.get(t, up.ReportURL); code != http.StatusOK {
		t.Errorf("the top view answers %d while the flame slots are taken", code)
	}
	for range cap(ts.srv.views.slots) {
		<-ts.srv.views.slots
	}
	if code, _, _ := ts.get(t, up.ReportURL+"?view=flame"); code != http.StatusOK {
		t.Errorf("after the slots freed up: %d", code)
	}
}
