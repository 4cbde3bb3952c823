package web

import (
	"html"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/analyze/pprof"
)

// TestDiffFlameIsCutFromCachedTrees: a diff's flame graph is cut from each
// profile's flame tree, built once per sample type and filter and cached,
// charged to the server's memory budget. Counted by the profiles' sample walks:
// the first view walks each profile once (its tree), and the page again, its
// JSON, its image and each profile's own flame graph walk neither; a filter
// walks each profile once more (the filter, then the tree of the filtered copy)
// and its notices come back with the cached trees; a dropped cache builds again.
func TestDiffFlameIsCutFromCachedTrees(t *testing.T) {
	ts := newTestServer(t, Config{})
	up := ts.mustUpload(t, nil, fixture(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz"), fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz"))
	var profs [2]*pprof.Profile
	for i, a := range up.Artifacts {
		p, ok := ts.srv.profiles.Get(a.SHA256)
		if !ok {
			t.Fatalf("the upload did not cache %s", a.Name)
		}
		profs[i] = p
	}
	reportPath := "/r/" + up.ReportID
	view := func(path string, walks int64, trees int) string {
		t.Helper()
		code, _, body := ts.get(t, path)
		if code != http.StatusOK {
			t.Fatalf("%s: %d %.300s", path, code, body)
		}
		for i, p := range profs {
			if got := p.SampleWalks(); got != walks {
				t.Errorf("after %s: %s's samples walked %d times, want %d", path, up.Artifacts[i].Name, got, walks)
			}
		}
		if got := ts.srv.flames.Len(); got != trees {
			t.Errorf("after %s: %d flame trees cached, want %d", path, got, trees)
		}
		return string(body)
	}
	view(reportPath+"?view=flame", 1, 2)
	for _, path := range []string{
		reportPath + "?view=flame",
		"/api/reports/" + up.ReportID + "?view=flame",
		reportPath + "/flame.svg",
		reportPath + "?mode=profile&file=0&view=flame",
		reportPath + "?mode=profile&file=1&view=flame",
		reportPath + "/flame.svg?mode=profile&file=1",
	} {
		view(path, 1, 2)
	}
	if ts.srv.budget.Used() <= ts.srv.profiles.Charged() {
		t.Errorf("the budget holds %d bytes, the profiles alone %d: the flame trees are not charged", ts.srv.budget.Used(), ts.srv.profiles.Charged())
	}
	const notice = "The hide filter \"no_such_function\" matched nothing in parca-self-heap-t0-1644509272.pb.gz."
	for range 2 {
		if pg := view(reportPath+"?view=flame&h=no_such_function", 2, 4); !strings.Contains(html.UnescapeString(pg), notice) {
			t.Errorf("the filtered diff flame view lacks the notice %q", notice)
		}
	}
	ts.srv.flames.Clear()
	view(reportPath+"?view=flame", 3, 1+1)
}

// TestUncachedViewsWaitForASlot: when every slot for building flame graphs is
// taken, a view that is not cached waits a bounded time and then answers 503
// with Retry-After; pages that build nothing still answer; once a slot frees up,
// the view is built.
func TestUncachedViewsWaitForASlot(t *testing.T) {
	ts := newTestServer(t, Config{})
	up := ts.mustUpload(t, nil, fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz"))
	release := ts.srv.profileKind.HoldViews(50 * time.Millisecond)
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
	release()
	if code, _, _ := ts.get(t, up.ReportURL+"?view=flame"); code != http.StatusOK {
		t.Errorf("after the slots freed up: %d", code)
	}
}
