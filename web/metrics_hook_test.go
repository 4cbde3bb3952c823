package web

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/hostile"
	"github.com/leakui/leakui/metrics"
)

// scrape reads /metrics as Prometheus does and returns the value of the
// sample named exactly line (name with its labels), and whether it is there.
func scrape(t *testing.T, m *metrics.Metrics, line string) (float64, bool) {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if ok && name == line {
			v, err := strconv.ParseFloat(value, 64)
			if err != nil {
				t.Fatalf("%s: %v", sc.Text(), err)
			}
			return v, true
		}
	}
	return 0, false
}

// newMetricsServer is a test server whose metrics read its budget, as serve
// wires them.
func newMetricsServer(t *testing.T, cfg Config) (*testServer, *metrics.Metrics) {
	var budget metrics.LateBudget
	m := metrics.New(metrics.Sources{Budget: &budget})
	cfg.Metrics = m
	ts := newTestServer(t, cfg)
	budget.Set(ts.srv.Budget())
	return ts, m
}

// TestMetricsCountBudgetRefusalsAndShowItsUse: /metrics's budget gauges are
// the server's budget's used and limit bytes, and an upload refused with 503
// because other analyses hold the budget counts one refusal of an upload.
func TestMetricsCountBudgetRefusalsAndShowItsUse(t *testing.T) {
	const budget = 64 << 20
	ts, m := newMetricsServer(t, Config{MemoryBudget: budget})
	ts.mustUpload(t, nil, fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz"))
	used := ts.srv.budget.Used()
	if used <= 0 {
		t.Fatalf("the budget holds %d bytes with a profile cached", used)
	}
	if v, _ := scrape(t, m, "leakui_memory_budget_used_bytes"); v != float64(used) {
		t.Errorf("leakui_memory_budget_used_bytes %v, the budget holds %d", v, used)
	}
	if v, _ := scrape(t, m, "leakui_memory_budget_limit_bytes"); v != budget {
		t.Errorf("leakui_memory_budget_limit_bytes %v, want %d", v, budget)
	}
	if v, ok := scrape(t, m, `leakui_memory_budget_refused_total{what="uploads"}`); ok {
		t.Errorf("a refusal counted before any: %v", v)
	}

	ts.srv.profiles.Clear()
	others := ts.srv.budget.Child(0)
	if err := others.Charge(ts.srv.budget.Remaining() - 1024); err != nil {
		t.Fatal(err)
	}
	defer others.Release()
	body, ct := multipartBody(t, []file{{"small.txt", hostile.HostileNamesDump()}}, nil)
	resp, err := http.Post(ts.URL+"/api/artifacts", ct, body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("an upload while the budget is held: %d, want 503", resp.StatusCode)
	}
	if v, _ := scrape(t, m, `leakui_memory_budget_refused_total{what="uploads"}`); v != 1 {
		t.Errorf(`leakui_memory_budget_refused_total{what="uploads"} %v after one refused upload, want 1`, v)
	}
	if v, _ := scrape(t, m, "leakui_memory_budget_used_bytes"); v != float64(ts.srv.budget.Used()) {
		t.Errorf("leakui_memory_budget_used_bytes %v, the budget holds %d", v, ts.srv.budget.Used())
	}
}

// TestMetricsShowAThrottledUploadsWait: with one upload slot, an upload that
// arrives while another holds it waits until that one ends, and the
// throttle's histogram holds its wait: two uploads observed, one of them
// beyond the 0.25 s bucket, their sum at least the time the slot was held.
func TestMetricsShowAThrottledUploadsWait(t *testing.T) {
	ts, m := newMetricsServer(t, Config{MaxUploads: 1, MaxPerClient: 4})
	small := file{"small.txt", hostile.HostileNamesDump()}
	body, ct := multipartBody(t, []file{small}, nil)
	whole, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	first := make(chan int, 1)
	go func() {
		resp, err := http.Post(ts.URL+"/api/artifacts", ct, pr)
		if err != nil {
			first <- 0
			return
		}
		resp.Body.Close()
		first <- resp.StatusCode
	}()
	// The first upload sends its headers and half its body, and holds the
	// only slot while it reads the rest.
	half := len(whole) / 2
	if _, err := pw.Write(whole[:half]); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for busy, _ := ts.srv.throttles.uploads.load(); busy == 0; busy, _ = ts.srv.throttles.uploads.load() {
		if time.Now().After(deadline) {
			t.Fatal("the first upload never took the slot")
		}
		time.Sleep(5 * time.Millisecond)
	}
	second := make(chan int, 1)
	go func() {
		code, _, _ := ts.upload(t, small)
		second <- code
	}()
	for _, waiting := ts.srv.throttles.uploads.load(); waiting == 0; _, waiting = ts.srv.throttles.uploads.load() {
		if time.Now().After(deadline) {
			t.Fatal("the second upload never waited")
		}
		time.Sleep(5 * time.Millisecond)
	}
	const held = 400 * time.Millisecond
	time.Sleep(held)
	pw.Write(whole[half:])
	pw.Close()
	if code := <-first; code != http.StatusCreated {
		t.Errorf("the first upload: %d", code)
	}
	if code := <-second; code != http.StatusCreated {
		t.Errorf("the throttled upload: %d", code)
	}
	if v, _ := scrape(t, m, `leakui_throttle_wait_seconds_count{class="uploads"}`); v != 2 {
		t.Errorf("uploads' waits observed: %v, want 2", v)
	}
	if v, _ := scrape(t, m, `leakui_throttle_wait_seconds_bucket{class="uploads",le="0.25"}`); v != 1 {
		t.Errorf("uploads' waits within 0.25 s: %v, want 1 (the first; the second waited %v)", v, held)
	}
	if v, _ := scrape(t, m, `leakui_throttle_wait_seconds_sum{class="uploads"}`); v < held.Seconds() {
		t.Errorf("uploads' waits sum to %v s, less than the %v the slot was held", v, held)
	}
}
