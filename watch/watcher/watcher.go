// Package watcher runs the watches an operator declared: on every tick of a
// watch, a River periodic job (package jobs, once per tick across replicas)
// scrapes the target's heap, goroutine and, where served, goroutineleak
// profiles from /debug/pprof/ (one client without proxies or cookies, no
// redirect off the target, a timeout and a size limit per profile; a body
// that is not a profile is refused), stores them as one snapshot keeping
// the newest Keep, runs the series analysis over the window, records the
// watch's state, and hands a change of its verdict to the Notifier. A
// target that fails is recorded with its error and backed off, doubling
// the ticks it skips up to MaxBackoff; a target that requires credentials
// gets its declaration's bearer token or basic credentials, read at each
// scrape. A JVM watch has no tick: its host pushes a capture bundle per
// period (Authorize checks the watch's push token, Push stores the bundle as
// one snapshot and decides the native memory verdict over the JVM's current
// process's bundles, as capture.Analyze does for uploaded ones). It reaches
// the store through its own Store interface.
package watcher

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/jobs"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/watch"
)

// Store is what the watcher needs of the store (*store.DB).
type Store interface {
	DeclareWatches(ctx context.Context, declared []store.Watch) error
	Watch(ctx context.Context, name string) (*store.Watch, error)
	Watches(ctx context.Context) ([]store.Watch, error)
	AddWatchSnapshot(ctx context.Context, s store.WatchSnapshot) (bool, error)
	WatchSnapshots(ctx context.Context, name string) ([]store.WatchSnapshot, error)
	SetWatchState(ctx context.Context, name, from string, st store.WatchState) (bool, error)
}

// Config says how the watches run.
type Config struct {
	// Store keeps the watches, their snapshots and state.
	Store Store
	// Notifier is told of every change of a watch's verdict (none when nil).
	Notifier watch.Notifier
	// ReportURL returns the link a change carries to the watch's page (none
	// when nil).
	ReportURL func(watch string) string
	// Timeout bounds one scrape, all its profiles (DefaultTimeout when 0).
	Timeout time.Duration
	// MaxBytes bounds each profile as served (DefaultMaxBytes when 0); the
	// decompressed profile is bounded by 8 times as much.
	MaxBytes int64
	// MaxBackoff bounds the wait before a failing target is scraped again
	// (DefaultMaxBackoff when 0; never less than the watch's period).
	MaxBackoff time.Duration
	// Client scrapes the targets (redirects within the target only, no proxy,
	// when nil).
	Client *http.Client
	// Logger receives the watcher's messages (slog.Default when nil).
	Logger *slog.Logger
	// Budget, when not nil, is charged with the profiles a verdict holds in
	// memory while it is decided (the window's profiles of one kind at a
	// time, or a JVM watch's parsed bundles); a tick it has no room for
	// records the budget's error, a push it has no room for is refused.
	Budget *analyze.Budget
	// MaxBundleBytes bounds a bundle a JVM pushes, as sent
	// (DefaultMaxBundleBytes when 0).
	MaxBundleBytes int64
	// BudgetRefused, when not nil, is told of each tick ("watch_tick") or
	// push ("watch_push") the budget had no room for (the metrics count
	// them).
	BudgetRefused func(what string)
	// StaleAfter is how many of its periods a pushed watch may go without a
	// push before its state says it is stale (watch.Status.StaleSince;
	// watch.DefaultStaleAfter when 0).
	StaleAfter int
	// Now is the clock stale watches are told by (time.Now when nil).
	Now func() time.Time
}

// The defaults of Config.
const (
	DefaultTimeout    = 10 * time.Second
	DefaultMaxBytes   = 16 << 20
	DefaultMaxBackoff = 10 * time.Minute
)

// Queue is the jobs queue the ticks run in; the runner's Config.Queues
// says how many run at once in a process.
const Queue = "watches"

// A Watcher runs the declared watches' ticks.
type Watcher struct {
	cfg      Config
	declared map[string]watch.Declaration
	order    []watch.Declaration
	client   *http.Client
	log      *slog.Logger
}

// New returns a Watcher of the declared watches.
func New(cfg Config, declared []watch.Declaration) *Watcher {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	if cfg.MaxBundleBytes <= 0 {
		cfg.MaxBundleBytes = DefaultMaxBundleBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.StaleAfter <= 0 {
		cfg.StaleAfter = watch.DefaultStaleAfter
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	w := &Watcher{cfg: cfg, declared: map[string]watch.Declaration{}, client: cfg.Client, log: cfg.Logger}
	if w.client == nil {
		w.client = newClient()
	}
	for _, d := range declared {
		w.declared[d.Name] = d
		w.order = append(w.order, d)
	}
	return w
}

// tickArgs are a tick's job: the watch it scrapes.
type tickArgs struct {
	Watch string `json:"watch"`
}

func (tickArgs) Kind() string { return "watch_tick" }

// Declare makes the store's watches the declared ones (see
// store.DB.DeclareWatches: a watch no longer declared is deleted with its
// snapshots). Call it once at start, before the ticks run.
func (w *Watcher) Declare(ctx context.Context) error {
	ws := make([]store.Watch, len(w.order))
	for i, d := range w.order {
		ws[i] = store.Watch{Name: d.Name, URL: d.URL, Every: d.Every, Keep: d.Keep}
	}
	return w.cfg.Store.DeclareWatches(ctx, ws)
}

// Register adds the tick's kind and one periodic job per watch to r; call it
// before r.Start, and give r's Config.Queues the Queue.
func (w *Watcher) Register(r *jobs.Runner) {
	jobs.Register(r, jobs.WorkFunc[tickArgs](w.work), jobs.Kind{Queue: Queue, MaxAttempts: 1, Timeout: w.cfg.Timeout + time.Minute})
	for _, d := range w.order {
		if d.Pushed() {
			continue // its JVM pushes: no tick
		}
		r.AddPeriodic(jobs.Periodic{Every: d.Every, Args: func() jobs.Args { return tickArgs{Watch: d.Name} }})
	}
}

// work runs a tick's job.
func (w *Watcher) work(ctx context.Context, a tickArgs, _ jobs.Progress) error {
	tick := time.Now()
	if at, ok := jobs.CurrentAttempt(ctx); ok && !at.Tick.IsZero() {
		tick = at.Tick
	}
	err := w.Tick(ctx, a.Watch, tick)
	if err != nil && ctx.Err() == nil {
		w.log.Error("a watch's tick failed", "watch", a.Watch, "err", err)
	}
	// A tick is not tried again: the next one comes.
	return jobs.Fail(err)
}

// Tick runs one tick of a watch: it scrapes the target unless the target is
// backed off, stores the snapshot, decides the verdict over the window,
// records the state and tells a change to the Notifier. A failed scrape is
// recorded in the watch's state, not returned; the error is the store's or
// the analysis's. A watch no longer declared is skipped.
func (w *Watcher) Tick(ctx context.Context, name string, tick time.Time) error {
	d, ok := w.declared[name]
	if !ok || d.Pushed() {
		return nil
	}
	cur, err := w.cfg.Store.Watch(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if cur.URL != d.URL || (!cur.NextScrape.IsZero() && tick.Before(cur.NextScrape)) {
		return nil
	}
	st := cur.WatchState
	begun := time.Now()
	snap, scrapeErr := w.scrape(ctx, d, tick)
	st.LastScrape, st.LastDuration = begun, time.Since(begun)
	w.refused("watch_tick", scrapeErr)
	if scrapeErr != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		st.LastError = scrapeErr.Error()
		st.Failures++
		st.NextScrape = tick.Add(w.backoff(d.Every, st.Failures))
		w.log.Warn("a watch's scrape failed", "watch", name, "failures", st.Failures, "next", st.NextScrape, "err", scrapeErr)
		_, err := w.cfg.Store.SetWatchState(ctx, name, cur.Verdict, st)
		return err
	}
	st.LastError, st.Failures, st.NextScrape = "", 0, time.Time{}
	if _, err := w.cfg.Store.AddWatchSnapshot(ctx, snap); err != nil {
		return err
	}
	snaps, err := w.cfg.Store.WatchSnapshots(ctx, name)
	if err != nil {
		return err
	}
	from := watch.Verdict(cur.Verdict)
	dec, err := decide(snaps, d.Every, 8*w.cfg.MaxBytes, w.cfg.Budget)
	w.refused("watch_tick", err)
	if err != nil {
		// The snapshot is kept; the verdict stays until a tick decides.
		st.LastError = "deciding the verdict: " + err.Error()
		w.log.Error("a watch's verdict was not decided", "watch", name, "err", err)
		_, err := w.cfg.Store.SetWatchState(ctx, name, cur.Verdict, st)
		return err
	}
	st.Verdict, st.Suspect, st.GrowthPerHour, st.Unit, st.Reason = string(dec.verdict), dec.suspect, dec.growthPerHour, dec.unit, dec.reason
	if dec.verdict != from {
		st.Changed = tick
	}
	applied, err := w.cfg.Store.SetWatchState(ctx, name, cur.Verdict, st)
	if err != nil || !applied || dec.verdict == from {
		return err
	}
	w.notify(ctx, watch.Change{Watch: name, From: from, To: dec.verdict, Suspect: dec.suspect, GrowthPerHour: dec.growthPerHour, Unit: dec.unit, Window: dec.window, At: tick})
	return nil
}

// refused tells BudgetRefused of err when the memory budget refused it.
func (w *Watcher) refused(what string, err error) {
	if err != nil && w.cfg.BudgetRefused != nil && (errors.Is(err, analyze.ErrBusy) || errors.Is(err, analyze.ErrTooLarge) && strings.Contains(err.Error(), "memory budget")) {
		w.cfg.BudgetRefused(what)
	}
}

// backoff is the wait after the failures-th failed scrape in a row: the
// period, doubled after each failure, up to MaxBackoff (never less than the
// period).
func (w *Watcher) backoff(every time.Duration, failures int) time.Duration {
	limit := max(every, w.cfg.MaxBackoff)
	d := every
	for i := 1; i < failures && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// scrape takes one snapshot of the target: a heap profile after a GC (what
// is live), a goroutine profile, and the goroutineleak profile when the
// target serves it (a 404 means it does not). Each must parse as a profile.
func (w *Watcher) scrape(ctx context.Context, d watch.Declaration, tick time.Time) (store.WatchSnapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	defer cancel()
	s := store.WatchSnapshot{Watch: d.Name, Tick: tick}
	auth, err := authorization(d)
	if err != nil {
		return s, err
	}
	for _, p := range []struct {
		path     string
		into     *[]byte
		optional bool
	}{
		{"/debug/pprof/heap?gc=1", &s.Heap, false},
		{"/debug/pprof/goroutine", &s.Goroutine, false},
		{"/debug/pprof/goroutineleak", &s.GoroutineLeak, true},
	} {
		b, err := fetch(ctx, w.client, d.URL+p.path, tick, w.cfg.MaxBytes, auth)
		if p.optional && errors.Is(err, errNotServed) {
			continue
		}
		if err != nil {
			if ctx.Err() != nil && context.Cause(ctx) == context.DeadlineExceeded {
				return s, fmt.Errorf("%s: no answer within %s", d.URL+p.path, w.cfg.Timeout)
			}
			return s, err
		}
		prof, err := pprof.Open(pprof.Reader(bytes.NewReader(b)), pprof.Options{Limit: 8 * w.cfg.MaxBytes, Budget: w.cfg.Budget})
		if errors.Is(err, analyze.ErrTooLarge) || errors.Is(err, analyze.ErrBusy) {
			return s, fmt.Errorf("GET %s: %w", d.URL+p.path, err)
		}
		if err != nil {
			return s, fmt.Errorf("GET %s: not a profile: %w", d.URL+p.path, err)
		}
		prof.Close()
		*p.into = b
	}
	s.TakenAt = time.Now()
	return s, nil
}

// CloseIdleConnections closes the scrapes' idle connections to the targets
// (kept between ticks), so that a server that stopped its job runner leaves
// no connection and no goroutine behind.
func (w *Watcher) CloseIdleConnections() { w.client.CloseIdleConnections() }

// Statuses lists the watches with their state, by name.
func (w *Watcher) Statuses(ctx context.Context) ([]watch.Status, error) {
	ws, err := w.cfg.Store.Watches(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]watch.Status, len(ws))
	now := w.cfg.Now()
	for i, s := range ws {
		out[i] = w.statusOf(s, now)
	}
	return out, nil
}

// statusOf is a stored watch as pages and metrics show it at now: a pushed
// watch whose pushes stopped StaleAfter of its periods ago is stale.
func (w *Watcher) statusOf(s store.Watch, now time.Time) watch.Status {
	st := watch.Status{
		Declaration: watch.Declaration{Name: s.Name, URL: s.URL, Every: s.Every, Keep: s.Keep},
		Verdict:     watch.Verdict(s.Verdict), Suspect: s.Suspect, GrowthPerHour: s.GrowthPerHour, Unit: s.Unit, Reason: s.Reason,
		Snapshots: s.Snapshots, LastScrape: s.LastScrape, LastDuration: s.LastDuration, LastError: s.LastError,
		Failures: s.Failures, NextScrape: s.NextScrape, Changed: s.Changed, Incident: s.Incident,
	}
	if at := st.StaleAt(w.cfg.StaleAfter); !at.IsZero() && !now.Before(at) {
		st.StaleSince = at
	}
	return st
}
