package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/leakui/leakui/alert"
	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/jobs"
	"github.com/leakui/leakui/metrics"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/watch/watcher"
	"github.com/leakui/leakui/web"
)

// This file wires the background work of serve: the watches (-watch,
// -watch-file) and their alerts (-alert) on the job system, and the Prometheus
// metrics served at /metrics in front of the web handler.

// background are the parts of serve that run beside the web handler: the
// job system's backend and runner (which the web server starts and stops,
// with its heap dump analyses), the watcher and the alerts' deliverer (when a
// watch or a receiver is declared) and the metrics.
type background struct {
	backend *jobs.Backend
	runner  *jobs.Runner
	watcher *watcher.Watcher
	alerts  *alert.Deliverer
	metrics *metrics.Metrics
	// webBudget is the web server's memory budget for the metrics' gauges,
	// set once the server is built.
	webBudget metrics.LateBudget
}

// registerWatchFlags registers the flags of the watches, their alerts and the
// metrics.
func (m *Main) registerWatchFlags(fs *flag.FlagSet) {
	fs.Var(&m.Watches, "watch", "watch a Go program's /debug/pprof/: name=URL[,every=1m][,keep=24][,bearer=env:VAR|file:PATH][,basic=env:VAR|file:PATH], "+
		"or a JVM that pushes its bundles (leakui capture jvm PID -every 1m -push URL -watch NAME): name=jvm,token=env:VAR|file:PATH[,every=1m][,keep=24] (repeatable); a leak verdict forms or clears at its ticks")
	fs.StringVar(&m.WatchFile, "watch-file", "", "read watches from this file, one declaration as -watch takes it a line ('#' starts a comment)")
	fs.Var(&m.Receivers, "alert", "deliver the watches' verdict changes: KIND=URL[,name=NAME][,timeout=10s], KIND alertmanager, slack or webhook, URL also env:VAR or file:PATH (repeatable)")
	fs.DurationVar(&m.JobRescueAfter, "job-rescue-after", jobs.DefaultRescueAfter, "a running job (a heap dump analysis, a tick, an alert) whose replica stopped heartbeating it for this long (it died) is queued again for a live replica, within River's rescuer interval of 30 s more")
	fs.IntVar(&m.WatchStaleAfter, "watch-stale-after", watch.DefaultStaleAfter, "a JVM watch with no push for this many of its periods (every) is stale: its pages, JSON and leakui_watch_stale say since when")
	fs.StringVar(&m.MetricsToken, "metrics-token", "", "a token that reads /metrics (as Authorization: Bearer TOKEN) besides -token; never logged (env LEAKUI_METRICS_TOKEN)")
}

// parseWatchFlags completes the watch flags once parsed: the watch file's
// declarations join the -watch ones.
func (m *Main) parseWatchFlags() error {
	if m.MetricsToken == "" {
		m.MetricsToken = os.Getenv("LEAKUI_METRICS_TOKEN")
	}
	if m.JobRescueAfter < time.Second {
		fmt.Fprintf(m.io.err, "leakui serve: -job-rescue-after %s: at least 1s\n", m.JobRescueAfter)
		return errUsage
	}
	if m.WatchStaleAfter < 1 {
		fmt.Fprintf(m.io.err, "leakui serve: -watch-stale-after %d: a watch is stale after at least 1 period\n", m.WatchStaleAfter)
		return errUsage
	}
	if m.WatchFile != "" {
		ds, err := watch.ReadFile(m.WatchFile)
		if err == nil {
			err = m.Watches.Merge(ds)
		}
		if err != nil {
			fmt.Fprintf(m.io.err, "leakui serve: -watch-file: %s\n", visible(err.Error()))
			return errUsage
		}
	}
	// A watch whose credentials or push token cannot be read now would fail
	// every tick or refuse every push: the server does not start.
	for _, d := range m.Watches {
		if err := d.CheckSecrets(); err != nil {
			fmt.Fprintf(m.io.err, "leakui serve: -watch: %s\n", visible(err.Error()))
			return errUsage
		}
	}
	return nil
}

// watchReportURL is the link a watch's alerts carry: its page under
// -base-url, or none without one (a server knows no address of its own that
// the alerts' readers could open).
func (m *Main) watchReportURL(name string) string {
	if m.BaseURL == "" {
		return ""
	}
	return m.BaseURL + "/watch/" + url.PathEscape(name)
}

// watchBudgetShare is the part of -memory-budget the watches' verdicts get
// when watches are declared; the web handler gets the rest, so that the two
// together hold no more than -memory-budget.
const watchBudgetShare = 4

// jobRetentionDone is how long the job system keeps a done job's row.
const jobRetentionDone = time.Hour

// openBackground opens the job system, with the watcher and the deliverer
// registered when a watch or a receiver is declared, and the metrics; budget
// is the watches' share of the memory budget. The web server registers its
// heap dump analyses on the runner, and starts and stops it
// (web.Config.Jobs).
func (m *Main) openBackground(ctx context.Context, dsn string, budget *analyze.Budget) (*background, error) {
	bg := &background{}
	backend, err := openJobs(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	bg.backend = backend
	src := metrics.Sources{Queues: func(ctx context.Context) (jobs.Snapshot, error) { return bg.runner.Snapshot(ctx) }}
	if len(m.Watches) > 0 {
		src.Watches = func(ctx context.Context) ([]watch.Status, error) { return bg.watcher.Statuses(ctx) }
	}
	if budget != nil {
		src.WatchBudget = budget
	}
	src.Budget = &bg.webBudget
	bg.metrics = metrics.New(src)
	bg.runner = jobs.New(backend, jobs.Config{
		Queues: map[string]int{watcher.Queue: 2, alert.Queue: 2, web.HeapDumpQueue: 1},
		Logger: m.log, Observe: bg.metrics.ObserveJob, RescueAfter: m.JobRescueAfter,
		// A watch ticking every second inserts 86,400 jobs a day: a done
		// job's row goes after an hour (its work is in the store); a failed
		// one stays a week for the operator.
		Retention: jobs.Retention{Done: jobRetentionDone, Cancelled: 7 * 24 * time.Hour, Discarded: 7 * 24 * time.Hour},
	})
	notifier := alertNotifier{incidents: alert.NewIncidents(m.store, m.log), log: m.log}
	if len(m.Receivers) > 0 {
		bg.alerts = alert.New(m.store, bg.runner, m.Receivers, alert.Config{Logger: m.log})
		notifier.d = bg.alerts
		if m.BaseURL == "" {
			m.log.Warn("alerts carry no link to their watch without -base-url")
		}
	}
	if len(m.Watches) == 0 {
		// Receivers alone: the deliverer's refresh of firing alerts runs; the
		// store's watches stay as the last server that declared some left them.
		return bg, nil
	}
	bg.watcher = watcher.New(watcher.Config{Store: m.store, Notifier: notifier, ReportURL: m.watchReportURL,
		Logger: m.log, Budget: budget, BudgetRefused: bg.metrics.BudgetRefused, StaleAfter: m.WatchStaleAfter}, m.Watches)
	if err := bg.watcher.Declare(ctx); err != nil {
		backend.Close()
		return nil, fmt.Errorf("watches: %w", err)
	}
	bg.watcher.Register(bg.runner)
	m.log.Info("watching", "watches", len(m.Watches), "receivers", len(m.Receivers), "jobs", backend.Name())
	return bg, nil
}

// webWatches is what the watch pages read (web.WatchSource): the watcher's
// state of each watch, and the snapshots and alert deliveries the store keeps.
type webWatches struct {
	w  *watcher.Watcher
	db *store.DB
}

func (s webWatches) Statuses(ctx context.Context) ([]watch.Status, error) { return s.w.Statuses(ctx) }

func (s webWatches) WatchSnapshots(ctx context.Context, name string) ([]store.WatchSnapshot, error) {
	return s.db.WatchSnapshots(ctx, name)
}

func (s webWatches) Deliveries(ctx context.Context, name string, limit int) ([]store.Delivery, error) {
	return s.db.Deliveries(ctx, name, limit)
}

// webSource is the watch pages' source: nil when serve runs no watches, so
// that the pages list none and the top bar shows no link to them.
func (bg *background) webSource(db *store.DB) web.WatchSource {
	if bg.watcher == nil {
		return nil
	}
	return webWatches{bg.watcher, db}
}

// close stops the runner, if the web server has not (its running jobs return
// to their queue), closes the scrapes' idle connections and the backend; the
// store closes after.
func (bg *background) close(timeout time.Duration) error {
	var errs []error
	if bg.runner != nil {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		errs = append(errs, bg.runner.Stop(ctx))
		cancel()
	}
	if bg.watcher != nil {
		bg.watcher.CloseIdleConnections()
	}
	if bg.backend != nil {
		errs = append(errs, bg.backend.Close())
	}
	return errors.Join(errs...)
}

// alertNotifier tells the watches' verdict changes to the incidents (a leak
// opens or joins its watch's incident, a resolved leak annotates it) and
// delivers them through the alerts' deliverer, when receivers are declared.
// The packages name the verdicts alike ("no leak", "inconclusive", "leak"); a
// watch's first verdict (from none) is told only when it is a leak, as from
// "no leak": a watch that starts is no news until it suspects a leak.
type alertNotifier struct {
	incidents *alert.Incidents
	d         *alert.Deliverer // nil without receivers
	log       *slog.Logger
}

func (n alertNotifier) Notify(ctx context.Context, c watch.Change) error {
	from := string(c.From)
	if c.From == watch.None {
		if c.To != watch.Leak {
			return nil
		}
		from = alert.NoLeak
	}
	e := alert.Event{Watch: c.Watch, From: from, To: string(c.To), Suspect: c.Suspect,
		GrowthPerHour: c.GrowthPerHour, WindowSeconds: c.Window.Seconds(), ReportURL: c.ReportURL, At: c.At}
	// An incident that could not be written does not hold the alert back.
	if slug, err := n.incidents.Record(ctx, e); err != nil {
		n.log.Error("a watch's incident was not recorded", "watch", c.Watch, "err", err)
	} else if slug != "" {
		n.log.Info("a watch's alert went to its incident", "watch", c.Watch, "incident", slug, "to", c.To)
	}
	if n.d == nil {
		return nil
	}
	return n.d.Notify(ctx, e)
}

// metricsPath is where the metrics are served.
const metricsPath = "/metrics"

// withMetrics serves /metrics in front of next (the web handler) and counts
// every request by its chi route pattern and status.
//
// The route pattern is read from chi's routing context after next answered:
// a context created here, which the web's router takes as its parent's and
// fills as it routes. Its Routes is an empty router, which only the GetHead
// middleware consults (for a HEAD route of its own: the web declares none,
// so HEAD is served by GET as it is without this context). A request no route
// matched counts as "other".
//
// /metrics needs "Authorization: Bearer" with -token or -metrics-token when
// either is set; else it is open. It answers only to the allowed hosts, as the
// web does.
func (m *Main) withMetrics(next http.Handler, mt *metrics.Metrics, hosts []string) http.Handler {
	allowed := newHostList(hosts)
	scrape := mt.Handler()
	front := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != metricsPath {
			next.ServeHTTP(w, r)
			return
		}
		chi.RouteContext(r.Context()).RoutePatterns = []string{metricsPath}
		switch {
		case r.Context().Value(http.LocalAddrContextKey) != nil && !allowed.allows(r.Host):
			http.Error(w, "this server does not answer to this host name", http.StatusMisdirectedRequest)
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, r.Method+" is not allowed on /metrics", http.StatusMethodNotAllowed)
		case (m.Token != "" || m.MetricsToken != "") &&
			!metrics.HasScrapeToken(r, m.Token) && !metrics.HasScrapeToken(r, m.MetricsToken):
			w.Header().Set("WWW-Authenticate", `Bearer realm="leakui metrics"`)
			http.Error(w, "/metrics needs Authorization: Bearer with the server's token or the metrics token", http.StatusUnauthorized)
		default:
			scrape.ServeHTTP(w, r)
		}
	})
	observed := mt.Middleware(func(r *http.Request) string { return chi.RouteContext(r.Context()).RoutePattern() })(front)
	noRoutes := chi.NewRouter()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rctx := chi.NewRouteContext()
		rctx.Routes = noRoutes
		observed.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), chi.RouteCtxKey, rctx)))
	})
}

// hostList is the -allowed-hosts rule the web applies, for /metrics, which
// is served before the web's handler: "host:port" exactly, "host" on any
// port, "*" any host, and none the loopback names on any port.
type hostList struct {
	any, loopback bool
	exact, names  map[string]bool
}

func newHostList(entries []string) *hostList {
	l := &hostList{exact: map[string]bool{}, names: map[string]bool{}}
	for _, e := range entries {
		e = normalizeHost(e)
		if e == "*" {
			l.any = true
		} else if _, _, err := net.SplitHostPort(e); err == nil {
			l.exact[e] = true
		} else if e != "" {
			l.names[strings.Trim(e, "[]")] = true
		}
	}
	l.loopback = len(l.exact) == 0 && len(l.names) == 0 && !l.any
	return l
}

// normalizeHost lowers a host (or host:port) and drops a trailing dot.
func normalizeHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if host, port, err := net.SplitHostPort(h); err == nil {
		return net.JoinHostPort(strings.TrimSuffix(host, "."), port)
	}
	return strings.TrimSuffix(h, ".")
}

func (l *hostList) allows(hostHeader string) bool {
	h := normalizeHost(hostHeader)
	if l.any || l.exact[h] {
		return l.any || h != ""
	}
	name := h
	if host, _, err := net.SplitHostPort(h); err == nil {
		name = host
	}
	name = strings.Trim(name, "[]")
	return name != "" && (l.names[name] || l.loopback && (name == "localhost" || name == "127.0.0.1" || name == "::1"))
}
