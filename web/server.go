package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime"
	"sync"
	"time"

	webbundles "github.com/leakui/leakui/web/bundles"

	webjvm "github.com/leakui/leakui/web/jvm"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/jobs"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/static"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/background"
	webgoroutines "github.com/leakui/leakui/web/goroutines"
	"github.com/leakui/leakui/web/groups"
	"github.com/leakui/leakui/web/heapdumps"
	"github.com/leakui/leakui/web/kind"
	weblogs "github.com/leakui/leakui/web/logs"
	webprofiles "github.com/leakui/leakui/web/profiles"
	"github.com/leakui/leakui/web/runs"
	"github.com/leakui/leakui/web/serrors"
	"github.com/leakui/leakui/web/snapshot"
)

// Config configures a Server. Zero values mean the defaults.
type Config struct {
	Store  Store
	Logger *slog.Logger
	// MaxUpload caps the bytes of one upload request (default 256 MiB).
	MaxUpload int64
	// MaxDecompressed caps the decompressed size of one input (default 1 GiB,
	// or what one analysis may hold, half of MemoryBudget, when that is less).
	MaxDecompressed int64
	// MaxHeapDump caps the bytes of a JVM heap dump in an upload, which streams to
	// the spool directory (default 4 GiB), and its size once inflated.
	MaxHeapDump int64
	// MaxFiles caps the number of files in one upload (default 64).
	MaxFiles int
	// TempDir receives uploads while they are checked (default os.TempDir()).
	TempDir string
	// RequestTimeout bounds ordinary requests (default 60 s); uploads get
	// UploadTimeout (default 15 min).
	RequestTimeout, UploadTimeout time.Duration
	// Lab configures the reproductions; nil turns the lab off (-lab=false). Its
	// Recorder is the server's own.
	Lab *lab.Config
	// Token, when set, is needed for every upload, run, cancel, pin and delete
	// (Authorization: Bearer, or the session cookie of /login); Private makes it
	// needed for reads too.
	Token   string
	Private bool
	// UploadsPerMinute and RunsPerMinute limit each client address (with a burst
	// of UploadBurst and RunBurst); 0 means the defaults, negative no limit.
	UploadsPerMinute, RunsPerMinute float64
	UploadBurst, RunBurst           int
	// MaxAnalyses caps the page views served at once (default 4 per CPU);
	// MaxAPIReads the API reads (/api/, Markdown, JSON, CSV, chart images),
	// MaxUploads the uploads and MaxDownloads the downloads (/a/), each
	// default 4 per CPU and each a throttle of its own: more wait up to 30 s in
	// a backlog of 8 times as many, then get 429. Each client address has a
	// share of every class: MaxPerClient requests going or waiting, of which
	// at most the class's slots run (default: a quarter of the class's slots,
	// at least one, running, and as many again as the class has slots
	// waiting); beyond it, 429 with Retry-After. A slot that comes free goes
	// to the address that had one longest ago.
	MaxAnalyses, MaxAPIReads, MaxUploads, MaxDownloads, MaxPerClient int
	// Retain, when positive, expires unpinned reports older than it.
	Retain time.Duration
	// Targets are the live pprof endpoints an operator allows captures from, by
	// name (-target name=url); the browser only ever names one.
	Targets lab.Targets
	// IdleBodyTimeout cuts a client that sends no byte of its request body for
	// this long (-idle-body-timeout, default 30 s); IdleWriteTimeout one that
	// takes no byte of its response for this long (default 30 s). Both wait only
	// while the server reads or writes, and negative turns them off.
	IdleBodyTimeout, IdleWriteTimeout time.Duration
	// MaxQueuedPerClient caps the heap dumps one client address may have
	// queued or analyzing in the background (-max-queued-per-client, default
	// DefaultMaxQueuedPerClient); beyond it, 429.
	MaxQueuedPerClient int
	// Jobs is the process's job runner, not started yet (other packages may
	// have registered their kinds on it): the server registers the heap dump
	// analyses on it, starts it in NewServer and stops it in Close. Its
	// Config.Queues must work background.Queue. Without one, heap dump
	// uploads are refused with a 503.
	Jobs *jobs.Runner
	// DiskQuota and ClientDiskQuota, when positive, cap the bytes the store
	// holds (files and what is derived from them, such as heap dump indexes),
	// in all and of the reports uploaded from one client address
	// (-disk-quota, -client-disk-quota): an upload that would pass one is
	// refused with 507 naming it.
	DiskQuota, ClientDiskQuota int64
	// MinBodyRate is the bytes a second a request body must average over
	// every IdleBodyTimeout while the server reads it, or it is cut with 408
	// (-min-body-rate, default DefaultMinBodyRate; negative: off).
	MinBodyRate int64
	// MemoryBudget is the bytes the analyses in flight and the caches of parsed
	// profiles and views may hold together (-memory-budget); one analysis may
	// hold at most half of it (413 beyond), and an analysis that finds the rest
	// held by others gets 503 with Retry-After. 0 means DefaultMemoryBudget.
	MemoryBudget int64
	// AllowedHosts lists the Host headers the server answers to (-allowed-hosts);
	// others get 421, which defeats DNS rebinding. An entry "host:port" matches
	// exactly, "host" on any port, and "*" turns the check off. Empty allows
	// localhost, 127.0.0.1 and [::1] on any port.
	AllowedHosts []string
	// SessionLifetime is how long a sign-in at /login lasts (default
	// DefaultSessionLifetime); /logout ends it sooner.
	SessionLifetime time.Duration
	// BaseURL, when set (-base-url, such as https://leakui.example.com), is the
	// absolute URL browsers reach the server at: it starts the links the server
	// hands out (the upload API's report_url, Markdown summaries), else they
	// start with the request's scheme and host; when it is https, session
	// cookies are Secure.
	BaseURL string
	// TrustedProxies are the addresses of reverse proxies to trust
	// (-trusted-proxy): a request from one has the client address its
	// X-Forwarded-For (else Forwarded) names (client_address.go), and its
	// X-Forwarded-Proto https makes the session cookie Secure.
	TrustedProxies []netip.Prefix
	Watches        WatchSource // the declared watches' state for /watch (watch_mount.go); nil: none
	// Metrics, when set, is told of the memory budget's refusals and the
	// throttles' waits (metrics_hook.go); Budget gives its gauges the budget.
	Metrics Metrics
}

// Defaults for Config.
const (
	// DefaultMaxUpload is the largest upload in bytes.
	DefaultMaxUpload = 256 << 20
	// DefaultMaxHeapDump is the largest JVM heap dump an upload may carry.
	DefaultMaxHeapDump = 4 << 30
	// DefaultMaxFiles is the most files one upload may carry.
	DefaultMaxFiles = 64
	// DefaultRequestTimeout bounds a request other than an upload.
	DefaultRequestTimeout = 60 * time.Second
	// DefaultUploadTimeout bounds an upload, body included.
	DefaultUploadTimeout = 15 * time.Minute
	// DefaultIdleBodyTimeout is how long a request body may send nothing.
	DefaultIdleBodyTimeout = 30 * time.Second
	// DefaultMaxQueuedPerClient is the heap dumps one client address may
	// have queued or analyzing at once.
	DefaultMaxQueuedPerClient = 4
	// DefaultMinBodyRate is the slowest a request body may come, in bytes a
	// second averaged over IdleBodyTimeout.
	DefaultMinBodyRate = 1024
	// DefaultIdleWriteTimeout is how long a client may take no byte of its
	// response.
	DefaultIdleWriteTimeout = 30 * time.Second
	// DefaultUploadsPerMinute limits each client address's uploads, with a burst
	// of half as many.
	DefaultUploadsPerMinute = 60
	// DefaultRunsPerMinute limits each client address's lab runs, with a burst of
	// half as many.
	DefaultRunsPerMinute = 6
)

// Server is leakui's HTTP application.
type Server struct {
	cfg      Config
	store    Store
	log      *slog.Logger
	assets   *assets
	profiles *kind.Cache[*pprof.Profile]
	flames   *kind.Cache[*webprofiles.FlameTree] // profiles' flame trees, which flame graphs are cut from
	router   chi.Router
	// kinds are the kinds of evidence: the one dispatch on input and report kinds.
	kinds *kind.Registry
	// hosts are the Host headers the server answers to.
	hosts *hostAllowList

	lab *lab.Manager // nil when the lab is off
	// uploadLimit and runLimit are per-client rate limits (nil: none).
	uploadLimit, runLimit *clientLimiter
	// logins counts failed sign-ins per client and locks the client out.
	logins *loginLimiter
	// owner identifies this replica's runs in the store.
	owner string
	// closing is closed when the server begins to shut down, so that long-lived
	// responses (server-sent events) end and let it.
	closing chan struct{}
	// throttles hold the request classes' throttles, counted for /healthz and
	// /readyz.
	throttles *throttles
	closeOnce sync.Once
	// background runs the heap dump analyses, the retention and the sweep of
	// the lab's runs (web/background).
	background *background.Background

	// budget is the memory budget shared by the analyses and the caches, which
	// caches holds; deps is what the kinds of evidence are built over.
	budget *analyze.Budget
	caches *kind.Caches
	deps   kind.Deps
	// logs is the kind of evidence the log reports are.
	logs *weblogs.Kind
	// heapJobs analyzes uploaded heap dumps in the background; heapDumps is
	// the kind of evidence they are.
	heapJobs  *heapdumps.Jobs
	heapDumps *heapdumps.Kind
	// runs is the lab's runs and the report a run makes.
	runs *runs.Kind
	// goroutines and jvmParsed cache parsed inputs and their reports (see
	// web/groups, jvm.go),
	// charged to budget like profiles and flames.
	goroutines     *groups.Dumps
	jvm            *snapshot.Loader
	nmtKind        *webjvm.NMT
	threadsKind    *webjvm.Threads
	histogramsKind *webjvm.Histograms
	bundlesKind    *webbundles.Kind
	goroutineKind  *webgoroutines.Kind
	profileKind    *webprofiles.Kind
	jvmParsed      *kind.Cache[snapshot.Entry]
	// quotaMu makes an upload's disk quota check and its store one step
	// (quota.go).
	quotaMu sync.Mutex
}

// NewServer builds the router with every route and middleware.
func NewServer(cfg Config) (*Server, error) {
	if cfg.SessionLifetime <= 0 {
		cfg.SessionLifetime = DefaultSessionLifetime
	}
	if cfg.MaxUpload <= 0 {
		cfg.MaxUpload = DefaultMaxUpload
	}
	defaultMaxDecompressed := cfg.MaxDecompressed <= 0
	if defaultMaxDecompressed {
		cfg.MaxDecompressed = analyze.DefaultMaxDecompressed
	}
	if cfg.MaxHeapDump <= 0 {
		cfg.MaxHeapDump = DefaultMaxHeapDump
	}
	if cfg.MaxFiles <= 0 {
		cfg.MaxFiles = DefaultMaxFiles
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.UploadTimeout <= 0 {
		cfg.UploadTimeout = DefaultUploadTimeout
	}
	if cfg.IdleBodyTimeout == 0 {
		cfg.IdleBodyTimeout = DefaultIdleBodyTimeout
	}
	if cfg.MaxQueuedPerClient <= 0 {
		cfg.MaxQueuedPerClient = DefaultMaxQueuedPerClient
	}
	if cfg.MinBodyRate == 0 {
		cfg.MinBodyRate = DefaultMinBodyRate
	}
	if cfg.IdleWriteTimeout == 0 {
		cfg.IdleWriteTimeout = DefaultIdleWriteTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.UploadsPerMinute == 0 {
		cfg.UploadsPerMinute, cfg.UploadBurst = DefaultUploadsPerMinute, DefaultUploadsPerMinute/2
	}
	if cfg.RunsPerMinute == 0 {
		cfg.RunsPerMinute, cfg.RunBurst = DefaultRunsPerMinute, DefaultRunsPerMinute/2
	}
	for _, n := range []*int{&cfg.MaxAnalyses, &cfg.MaxAPIReads, &cfg.MaxUploads, &cfg.MaxDownloads} {
		if *n <= 0 {
			*n = 4 * runtime.NumCPU()
		}
	}
	if cfg.MemoryBudget <= 0 {
		cfg.MemoryBudget = DefaultMemoryBudget()
	}
	if cfg.BaseURL != "" {
		var err error
		if cfg.BaseURL, err = ParseBaseURL(cfg.BaseURL); err != nil {
			return nil, err
		}
	}
	if defaultMaxDecompressed {
		cfg.MaxDecompressed = min(cfg.MaxDecompressed, cfg.MemoryBudget/2) // what one analysis may hold
	}
	a, err := newAssets(static.FS)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, store: cfg.Store, log: cfg.Logger, assets: a,
		owner: store.NewID(), closing: make(chan struct{}), hosts: newHostAllowList(cfg.AllowedHosts), logins: newLoginLimiter()}
	s.budget = analyze.NewBudget(cfg.MemoryBudget)
	// An analysis the budget has no room for drops cached results first.
	s.caches = kind.NewCaches(s.budget)
	s.deps = kind.Deps{Store: cfg.Store, Log: s.log, Budget: s.budget,
		Limits: kind.Limits{MaxDecompressed: cfg.MaxDecompressed, MaxHeapDump: cfg.MaxHeapDump, MaxUpload: cfg.MaxUpload, TempDir: cfg.TempDir},
		Render: s.render, Handle: s.handle, Caches: s.caches, Owner: s.owner, Closing: s.closing}
	pc := webprofiles.NewCaches(s.caches)
	s.profiles, s.flames = pc.Profiles, pc.Flames
	s.goroutines = groups.NewDumps(&s.deps)
	s.goroutineKind = webgoroutines.New(&s.deps, s.goroutines)
	s.profileKind = webprofiles.New(&s.deps, pc, s.goroutines, runtime.NumCPU())
	s.jvm = snapshot.NewLoader(&s.deps)
	s.jvmParsed = s.jvm.Cache()
	s.nmtKind = webjvm.NewNMT(&s.deps, s.jvm)
	s.threadsKind = webjvm.NewThreads(&s.deps, s.jvm)
	s.histogramsKind = webjvm.NewHistograms(&s.deps, s.jvm)
	s.bundlesKind = webbundles.New(&s.deps, s.jvm)
	s.heapDumps = heapdumps.New(&s.deps, s.jvm, background.ParseFailedReason)
	s.logs = weblogs.New(s.deps)
	s.runs = runs.New(&s.deps, runs.Parts{Targets: cfg.Targets, RunLimit: func(h http.Handler) http.Handler { return s.runLimit.middleware(s)(h) },
		Profiles: s.profileKind, ProfileCache: s.profiles, Goroutines: s.goroutines, Logs: s.logs,
		JVMCache: s.jvm, Figures: runJVMFigures(s.bundlesKind), ReportMarkdown: s.markdown})
	// Every kind of evidence, in the order the upload page, /kinds and a 415
	// name them: pprof profiles first (the most common input), then Go
	// goroutine dumps, the JVM's outputs, heap dumps, capture bundles, logs
	// (the kind any other text is) and the lab's run reports, which no upload
	// makes.
	s.kinds = kind.NewRegistry(s.profileKind, s.goroutineKind, s.histogramsKind, s.threadsKind, s.nmtKind,
		s.heapDumps, s.bundlesKind, s.logs, s.runs)
	// The store asks the server for the headlines of the reports it stores,
	// and the reports stored before headlines were get theirs now.
	cfg.Store.SetHeadliner(s.headline)
	if n, err := cfg.Store.BackfillHeadlines(context.Background()); err != nil {
		return nil, fmt.Errorf("filling the headlines of the reports stored before them: %w", err)
	} else if n > 0 {
		s.log.Info("filled the dashboard headlines of reports stored before them", "reports", n)
	}
	if cfg.UploadsPerMinute > 0 {
		s.uploadLimit = newClientLimiter(cfg.UploadsPerMinute, max(cfg.UploadBurst, 1), "uploads")
	}
	if cfg.RunsPerMinute > 0 {
		s.runLimit = newClientLimiter(cfg.RunsPerMinute, max(cfg.RunBurst, 1), "runs")
	}
	if cfg.Lab != nil {
		lc := *cfg.Lab
		lc.Recorder = s.runs.Recorder()
		if lc.Logger == nil {
			lc.Logger = s.log
		}
		m, err := lab.NewManager(lc)
		if err != nil {
			return nil, err
		}
		s.lab, s.runs.Lab = m, m
	}
	s.background = s.newBackground()
	s.heapJobs = heapdumps.NewJobs(s.heapDumps, s.background.HeapDumps())
	s.router = s.routes()
	// Heap dumps whose analysis a stopped server left unfinished are analyzed
	// again: their jobs wait in the queue, and their dumps are stored.
	if err := startBackground(s.background); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// BeginShutdown ends the long-lived responses (server-sent events) so that an
// http.Server's Shutdown can finish; register it with RegisterOnShutdown.
func (s *Server) BeginShutdown() {
	s.closeOnce.Do(func() { close(s.closing) })
}

// Close stops the lab (its runs end as interrupted, their children killed) and
// the background work. Call it after the HTTP server has shut down and before
// the store closes.
func (s *Server) Close() error {
	s.BeginShutdown()
	err := stopBackground(s.background)
	if s.lab != nil {
		err = errors.Join(err, s.lab.Close())
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, ierr := s.store.InterruptOwnedRuns(ctx, s.owner); ierr != nil && err == nil {
			err = ierr
		}
	}
	return err
}

// ServeHTTP makes the server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

// routes mounts every resource on the root router.
func (s *Server) routes() chi.Router {
	r := chi.NewRouter()
	// HEAD is answered wherever GET is, by the GET handler without its body.
	r.Use(middleware.GetHead)
	r.Use(middleware.RequestID)
	r.Use(s.clientAddress)
	r.Use(middleware.RequestLogger(slogFormatter{s.log}))
	r.Use(middleware.Recoverer)
	r.Use(s.progressDeadlines)
	r.Use(securityHeaders)
	r.Use(s.checkHost)
	r.Use(s.crossOriginProtection)
	r.Use(s.access)
	r.Use(s.withBaseURL)
	r.NotFound(s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return serrors.Errorf(http.StatusNotFound, "no page at %s", r.URL.Path)
	}))
	r.MethodNotAllowed(s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return serrors.Errorf(http.StatusMethodNotAllowed, "%s is not allowed on %s", r.Method, r.URL.Path)
	}))
	r.Get("/healthz", s.handle(s.handleHealthz))
	r.Get("/readyz", s.handle(s.handleReadyz))
	r.Mount("/static", s.assets.Routes())
	r.Get("/favicon.ico", s.assets.handleFavicon)
	s.throttles = newThrottles(s.cfg)

	// Uploads may take long; everything else is bounded tightly.
	r.Group(func(r chi.Router) {
		r.Use(middleware.Timeout(s.cfg.UploadTimeout))
		r.Use(s.uploadLimit.middleware(s))
		r.Use(s.throttles.middleware(s, s.throttles.uploads))
		r.Post("/upload", s.handle(s.handleUploadForm))
		r.Post("/api/artifacts", s.handle(s.handleUploadAPI))
	})
	r.Group(func(r chi.Router) {
		r.Use(middleware.Timeout(s.cfg.RequestTimeout))
		r.Get("/login", s.handle(s.handleLoginPage))
		r.Post("/login", s.handle(s.handleLogin))
		r.Post("/logout", s.handle(s.handleLogout))
		r.Group(func(r chi.Router) {
			r.Use(s.throttles.middleware(s, nil))
			r.Get("/", s.handle(s.handleDashboard))
			r.Get(serrors.KindsURL, s.handle(s.handleKinds))
			r.Mount("/r", reportsResource{s}.Routes())
			r.Mount("/a", artifactsResource{s}.Routes())
			r.Get("/api/reports/{id}", s.handle(s.handleReportJSON))
			r.Mount("/runs", s.runs.Routes())
			r.Mount("/api/runs", s.runs.APIRoutes())
			incidentPages{s}.mountIncidents(r)
			s.mountWatches(r)
			r.Get(OpsURL, s.handle(s.handleOps))
			r.Get(OpsJSONURL, s.handle(s.handleOpsJSON))
		})
		r.With(s.runLimit.middleware(s)).Post("/api/captures", s.handle(s.runs.CaptureAPI))
		r.With(s.runLimit.middleware(s)).Post("/captures", s.handle(s.runs.CaptureForm))
		r.Delete("/api/artifacts/{sha256}", s.handle(s.handleDeleteArtifact))
		r.Post("/api/reports/{id}/pin", s.handle(handlePin(s.store, true)))
		r.Delete("/api/reports/{id}/pin", s.handle(handlePin(s.store, false)))
	})
	// Server-sent events live as long as a run; they end when it does or when the
	// server shuts down.
	r.Get("/runs/{id}/events", s.handle(s.runs.Events))
	r.Get("/r/{id}/events", s.handle(s.heapJobs.Events))
	return r
}

type Store = kind.Store
