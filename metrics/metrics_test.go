package metrics_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/goleak"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/jobs"
	jobssqlite "github.com/leakui/leakui/jobs/sqlite"
	"github.com/leakui/leakui/metrics"
	"github.com/leakui/leakui/store"
	storesqlite "github.com/leakui/leakui/store/sqlite"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/watch/watcher"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// scrape GETs h's /metrics and parses the text format.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("/metrics: %s, %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// value returns the value of the metric of family name whose labels are
// labels (name=value pairs), and whether there is one.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		for i := 0; i < len(labels); i += 2 {
			if got[labels[i]] != labels[i+1] {
				continue next
			}
		}
		switch {
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
	}
	return 0, false
}

// The watches' metrics come from their state in the store, as the watcher
// lists it: one verdict series per verdict, 1 for the one held.
func TestWatchMetrics(t *testing.T) {
	ctx := context.Background()
	db, err := storesqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var decls []watch.Declaration
	for _, s := range []string{"api=http://10.0.0.7:6060,every=10s", "worker=http://10.0.0.8:6060", "batch=http://10.0.0.9:6060"} {
		d, err := watch.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		decls = append(decls, d)
	}
	w := watcher.New(watcher.Config{Store: db}, decls)
	if err := w.Declare(ctx); err != nil {
		t.Fatal(err)
	}
	last := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for name, st := range map[string]store.WatchState{
		"api": {Verdict: "leak", Suspect: "main.cache", GrowthPerHour: 1.2e9, Unit: "bytes", LastScrape: last, LastDuration: 250 * time.Millisecond},
		"worker": {Verdict: "no leak", LastScrape: last, LastDuration: 40 * time.Millisecond, LastError: "GET http://10.0.0.8:6060/debug/pprof/heap?gc=1: connection refused",
			Failures: 3},
	} {
		if _, err := db.SetWatchState(ctx, name, "", st); err != nil {
			t.Fatal(err)
		}
	}
	m := metrics.New(metrics.Sources{Watches: w.Statuses})
	fams := scrape(t, m.Handler())
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"leakui_watch_verdict", []string{"watch", "api", "verdict", "leak"}, 1},
		{"leakui_watch_verdict", []string{"watch", "api", "verdict", "no leak"}, 0},
		{"leakui_watch_verdict", []string{"watch", "api", "verdict", "inconclusive"}, 0},
		{"leakui_watch_verdict", []string{"watch", "worker", "verdict", "no leak"}, 1},
		{"leakui_watch_verdict", []string{"watch", "batch", "verdict", "leak"}, 0},
		{"leakui_watch_verdict", []string{"watch", "batch", "verdict", "no leak"}, 0},
		{"leakui_watch_growth_per_hour", []string{"watch", "api", "unit", "bytes"}, 1.2e9},
		{"leakui_watch_last_scrape_duration_seconds", []string{"watch", "api"}, 0.25},
		{"leakui_watch_last_scrape_timestamp_seconds", []string{"watch", "worker"}, float64(last.Unix())},
		{"leakui_watch_last_scrape_timestamp_seconds", []string{"watch", "batch"}, 0},
		{"leakui_watch_last_scrape_error", []string{"watch", "worker"}, 1},
		{"leakui_watch_last_scrape_error", []string{"watch", "api"}, 0},
		{"leakui_watch_scrape_failures", []string{"watch", "worker"}, 3},
		{"leakui_watch_snapshots", []string{"watch", "api"}, 0},
	} {
		if got, ok := value(fams, c.name, c.labels...); !ok || got != c.want {
			t.Errorf("%s%v = %v (%v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	if n := len(fams["leakui_watch_verdict"].GetMetric()); n != 9 {
		t.Errorf("%d verdict series, want 3 watches × 3 verdicts", n)
	}
	if _, ok := fams["go_goroutines"]; !ok {
		t.Error("no Go runtime metrics")
	}
	// The text as Prometheus reads it, checked with the library's own
	// comparison.
	err = testutil.GatherAndCompare(m.Registry(), strings.NewReader(`
# HELP leakui_watch_scrape_failures Scrapes of the watch that failed in a row.
# TYPE leakui_watch_scrape_failures gauge
leakui_watch_scrape_failures{watch="api"} 0
leakui_watch_scrape_failures{watch="batch"} 0
leakui_watch_scrape_failures{watch="worker"} 3
`), "leakui_watch_scrape_failures")
	if err != nil {
		t.Error(err)
	}
}

// A source that fails leaves its metrics out; the others are served.
func TestFailingSourceLeavesTheRest(t *testing.T) {
	m := metrics.New(metrics.Sources{Watches: func(context.Context) ([]watch.Status, error) { return nil, errors.New("database is locked") }})
	m.ObserveRequest("/", 200, time.Millisecond)
	fams := scrape(t, m.Handler())
	if _, ok := fams["leakui_watch_verdict"]; ok {
		t.Error("the failing source's metrics are served")
	}
	if got, ok := value(fams, "leakui_http_requests_total", "route", "/", "code", "200"); !ok || got != 1 {
		t.Errorf("requests: %v %v", got, ok)
	}
}

// The server's own metrics: requests by route and status through the
// middleware (a flush passes through it), the memory budget, throttle waits,
// job queues and job durations from a real runner.
func TestServerMetrics(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := storesqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	backend, err := jobssqlite.Open(ctx, filepath.Join(dir, storesqlite.File))
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Close()
	budget := analyze.NewBudget(1 << 20)
	if err := budget.Charge(300 << 10); err != nil {
		t.Fatal(err)
	}
	var m *metrics.Metrics
	runner := jobs.New(backend, jobs.Config{Queues: map[string]int{"work": 1}, PollInterval: 50 * time.Millisecond,
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Observe: func(kind, outcome string, took time.Duration) { m.ObserveJob(kind, outcome, took) }})
	done := make(chan struct{}, 4)
	jobs.Register(runner, jobs.WorkFunc[quickArgs](func(context.Context, quickArgs, jobs.Progress) error { done <- struct{}{}; return nil }), jobs.Kind{Queue: "work"})
	jobs.Register(runner, jobs.WorkFunc[idleArgs](func(context.Context, idleArgs, jobs.Progress) error { return nil }), jobs.Kind{Queue: "nobody-works"})
	watchBudget := analyze.NewBudget(4 << 20)
	if err := watchBudget.Charge(1 << 20); err != nil {
		t.Fatal(err)
	}
	m = metrics.New(metrics.Sources{Budget: budget, WatchBudget: watchBudget, Queues: runner.Snapshot})
	if err := runner.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer runner.Stop(ctx)
	for range 2 {
		if _, err := runner.Insert(ctx, idleArgs{}, jobs.InsertOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := runner.Insert(ctx, quickArgs{}, jobs.InsertOptions{}); err != nil {
		t.Fatal(err)
	}
	<-done

	mux := http.NewServeMux()
	mux.HandleFunc("GET /r/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") == "missing" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("report"))
	})
	mux.HandleFunc("GET /events", func(w http.ResponseWriter, r *http.Request) {
		if err := http.NewResponseController(w).Flush(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	srv := httptest.NewServer(m.Middleware(func(r *http.Request) string { return r.Pattern })(mux))
	defer srv.Close()
	for _, path := range []string{"/r/a", "/r/b", "/r/missing", "/events", "/nowhere"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	m.BudgetRefused("flame")
	m.ObserveThrottleWait("upload", 1500*time.Millisecond)
	time.Sleep(100 * time.Millisecond) // the quick job's observation follows its work
	fams := scrape(t, m.Handler())
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"leakui_http_requests_total", []string{"route", "GET /r/{id}", "code", "200"}, 2},
		{"leakui_http_requests_total", []string{"route", "GET /r/{id}", "code", "404"}, 1},
		{"leakui_http_requests_total", []string{"route", "GET /events", "code", "200"}, 1},
		{"leakui_http_requests_total", []string{"route", "other", "code", "404"}, 1},
		{"leakui_http_request_duration_seconds", []string{"route", "GET /r/{id}"}, 3},
		{"leakui_memory_budget_used_bytes", nil, 300 << 10},
		{"leakui_memory_budget_limit_bytes", nil, 1 << 20},
		{"leakui_watch_memory_budget_used_bytes", nil, 1 << 20},
		{"leakui_watch_memory_budget_limit_bytes", nil, 4 << 20},
		{"leakui_memory_budget_refused_total", []string{"what", "flame"}, 1},
		{"leakui_throttle_wait_seconds", []string{"class", "upload"}, 1},
		{"leakui_jobs", []string{"queue", "nobody-works", "state", "queued"}, 2},
		{"leakui_job_duration_seconds", []string{"kind", "test_quick", "outcome", "done"}, 1},
	} {
		if got, ok := value(fams, c.name, c.labels...); !ok || got != c.want {
			t.Errorf("%s%v = %v (%v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	if got, _ := value(fams, "leakui_jobs_oldest_wait_seconds", "queue", "nobody-works"); got <= 0 {
		t.Errorf("the idle queue's oldest job waited %v s", got)
	}
}

type quickArgs struct{}

func (quickArgs) Kind() string { return "test_quick" }

type idleArgs struct{}

func (idleArgs) Kind() string { return "test_idle" }

func TestHasScrapeToken(t *testing.T) {
	for _, c := range []struct {
		header, token string
		want          bool
	}{
		{"Bearer s3cret", "s3cret", true},
		{"Bearer s3cre", "s3cret", false},
		{"Basic s3cret", "s3cret", false},
		{"", "", false},
		{"Bearer ", "", false},
	} {
		r := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if c.header != "" {
			r.Header.Set("Authorization", c.header)
		}
		if got := metrics.HasScrapeToken(r, c.token); got != c.want {
			t.Errorf("%q with token %q: %v", c.header, c.token, got)
		}
	}
}
