// Package metrics owns leakui's Prometheus metrics: one registry
// (prometheus/client_golang) with the Go runtime's and the process's
// collectors, the watches' state read at each scrape (Sources.Watches:
// leakui_watch_verdict{watch,verdict} and the suspect's growth, the
// snapshots held, the last scrape's duration and failure, and whether a JVM
// watch's pushes stopped: leakui_watch_stale), and the server's
// own: requests by route and status (ObserveRequest, Middleware), the memory
// budget used and refused (Sources.Budget, BudgetRefused), the throttles'
// waits (ObserveThrottleWait), the job queues' depths (Sources.Queues) and
// the jobs' durations (ObserveJob). The web server's budget is made after the
// metrics: a LateBudget stands for it until it is set. Handler serves them in Prometheus's text
// format for /metrics; who may read it (the API's protection, or a scrape
// token: HasScrapeToken) is the web layer's to decide.
package metrics

import (
	"context"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/leakui/leakui/jobs"
	"github.com/leakui/leakui/watch"
)

// Budget is a memory budget as its gauges read it (*analyze.Budget).
type Budget interface {
	Used() int64
	Limit() int64
}

// Sources are what the metrics read at each scrape; each may be nil.
type Sources struct {
	// Watches lists the watches with their state (watcher.Watcher.Statuses).
	Watches func(ctx context.Context) ([]watch.Status, error)
	// Budget is the server's shared memory budget.
	Budget Budget
	// WatchBudget is the watches' share of the memory budget (their verdicts
	// and pushes), apart from the web's.
	WatchBudget Budget
	// Queues is where the job queues stand (jobs.Runner.Snapshot).
	Queues func(ctx context.Context) (jobs.Snapshot, error)
}

// SourceTimeout bounds the reads of Sources in one scrape.
const SourceTimeout = 5 * time.Second

// Metrics is the registry and the server's collectors.
type Metrics struct {
	reg           *prometheus.Registry
	requests      *prometheus.CounterVec
	requestTime   *prometheus.HistogramVec
	budgetRefused *prometheus.CounterVec
	throttleWait  *prometheus.HistogramVec
	jobTime       *prometheus.HistogramVec
}

// New returns the metrics, reading src at each scrape.
func New(src Sources) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "leakui_http_requests_total", Help: "HTTP requests answered, by route pattern and status code.",
		}, []string{"route", "code"}),
		requestTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "leakui_http_request_duration_seconds", Help: "Time to answer an HTTP request, by route pattern.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"route"}),
		budgetRefused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "leakui_memory_budget_refused_total", Help: "Work refused because the memory budget had no room for it, by what asked.",
		}, []string{"what"}),
		throttleWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "leakui_throttle_wait_seconds", Help: "Time a request waited for its class's throttle, by class.",
			Buckets: []float64{.001, .01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"class"}),
		jobTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "leakui_job_duration_seconds", Help: "Time one attempt of a job ran, by kind and outcome (done, retry, failed, stopped).",
			Buckets: []float64{.01, .05, .1, .5, 1, 5, 10, 30, 60, 300, 900, 3600},
		}, []string{"kind", "outcome"}),
	}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.requestTime, m.budgetRefused, m.throttleWait, m.jobTime)
	if src.Watches != nil {
		m.reg.MustRegister(&watchCollector{list: src.Watches})
	}
	if src.Budget != nil {
		m.reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "leakui_memory_budget_used_bytes", Help: "Bytes charged to the server's memory budget now."},
				func() float64 { return float64(src.Budget.Used()) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "leakui_memory_budget_limit_bytes", Help: "The server's memory budget."},
				func() float64 { return float64(src.Budget.Limit()) }))
	}
	if src.WatchBudget != nil {
		m.reg.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "leakui_watch_memory_budget_used_bytes",
				Help: "Bytes charged to the watches' share of the memory budget now (the verdicts being decided, the bundles being read)."},
				func() float64 { return float64(src.WatchBudget.Used()) }),
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "leakui_watch_memory_budget_limit_bytes", Help: "The watches' share of the memory budget."},
				func() float64 { return float64(src.WatchBudget.Limit()) }))
	}
	if src.Queues != nil {
		m.reg.MustRegister(&queueCollector{snapshot: src.Queues})
	}
	return m
}

// Registry is the registry, for collectors of other packages.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in Prometheus's text (or protobuf) format. A
// source that fails is reported by the handler's error log and leaves its
// metrics out; the others are served.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError, Timeout: 2 * SourceTimeout})
}

// HasScrapeToken reports whether r carries token as "Authorization: Bearer
// TOKEN" (compared in constant time); never for an empty token.
func HasScrapeToken(r *http.Request, token string) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && token != "" && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// ObserveRequest counts one answered request: route is its pattern (such as
// "/r/{id}", never the path, which would make a series per report), status
// its code, took how long it took.
func (m *Metrics) ObserveRequest(route string, status int, took time.Duration) {
	if route == "" {
		route = "other"
	}
	m.requests.WithLabelValues(route, statusText(status)).Inc()
	m.requestTime.WithLabelValues(route).Observe(took.Seconds())
}

func statusText(code int) string {
	if code < 100 || code > 999 {
		return "other"
	}
	return string([]byte{byte('0' + code/100), byte('0' + code/10%10), byte('0' + code%10)})
}

// Middleware observes every request through next. route names the request's
// route pattern once next has answered (with chi:
// chi.RouteContext(r.Context()).RoutePattern()); "" counts as "other".
func (m *Metrics) Middleware(route func(*http.Request) string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			begun := time.Now()
			sw := &statusWriter{ResponseWriter: w}
			next.ServeHTTP(sw, r)
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			m.ObserveRequest(route(r), status, time.Since(begun))
		})
	}
}

// statusWriter notes the status a handler writes; Unwrap gives
// http.ResponseController the writer beneath (flushes, deadlines).
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// Flush passes a flush on (server-sent events).
func (w *statusWriter) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// BudgetRefused counts work refused for want of memory budget; what names
// the kind of work (a report kind, "flame", "upload").
func (m *Metrics) BudgetRefused(what string) { m.budgetRefused.WithLabelValues(what).Inc() }

// ObserveThrottleWait records how long a request of class waited for its
// throttle.
func (m *Metrics) ObserveThrottleWait(class string, waited time.Duration) {
	m.throttleWait.WithLabelValues(class).Observe(waited.Seconds())
}

// ObserveJob records one attempt of a job of kind: how long it ran, and its
// outcome ("done", "retry", "failed" or "stopped"). Its signature is
// jobs.Config.Observe's.
func (m *Metrics) ObserveJob(kind, outcome string, took time.Duration) {
	m.jobTime.WithLabelValues(kind, outcome).Observe(took.Seconds())
}
