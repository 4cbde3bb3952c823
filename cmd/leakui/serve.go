package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/leakui/leakui/alert"
	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/lab/child"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/web"
)

// runServe implements `leakui serve`: parse flags, open, serve until the context
// ends (SIGINT/SIGTERM), then shut down gracefully.
func runServe(ctx context.Context, args []string, std stdio) error {
	m := NewMain(std)
	if err := m.ParseFlags(args); err != nil {
		return err
	}
	return m.Run(ctx)
}

// Main is the serve command: the store and the HTTP server, opened together and
// stopped together.
type Main struct {
	// Flags.
	Addr            string
	DataDir         string
	DSN             string
	MaxUpload       int64
	MaxDecompressed int64
	MaxHeapDump     int64
	ShutdownTimeout time.Duration
	// MemoryBudget is what analyses and caches may hold together
	// (-memory-budget); 0: half of the Go memory limit, which serve sets to
	// three quarters of the machine's (or cgroup's) memory when GOMEMLIMIT is
	// not given. maxDecompressedSet tells whether -max-decompressed was given;
	// if not, it is lowered to what one analysis's budget can hold.
	MemoryBudget       int64
	maxDecompressedSet bool
	// Lab flags.
	Lab         bool
	MaxRuns     int
	RunDeadline time.Duration
	RunLease    time.Duration
	MaxCycles   int
	Brokers     string
	Snapshots   int
	// RunChild bounds each run's child (-run-memory, -run-disk, -run-cpu).
	RunChild lab.ChildLimits
	// Access and limits.
	Token       string
	Private     bool
	Retain      retention
	UploadRate  float64
	RunRate     float64
	MaxAnalyses int
	// MaxAPIReads, MaxUploads and MaxDownloads are the other request classes'
	// throttles; MaxPerClient is one address's share of each class.
	MaxAPIReads, MaxUploads, MaxDownloads, MaxPerClient int
	// AllowedHosts are the Host headers served (-allowed-hosts); empty means
	// the listen address and the loopback names with its port.
	AllowedHosts []string
	// BaseURL (-base-url) starts the absolute links the server hands out; with
	// TrustedProxies and SessionLifetime (see registerAccessFlags) it decides
	// whether session cookies are Secure.
	BaseURL         string
	TrustedProxies  []netip.Prefix
	SessionLifetime time.Duration
	// IdleBodyTimeout and IdleWriteTimeout cut clients that stop sending their
	// request body or stop reading their response.
	IdleBodyTimeout, IdleWriteTimeout time.Duration
	// Limits bound one client: its body rate, queued heap dumps and disk.
	Limits serveLimits
	// DebugPprof, when set, serves net/http/pprof and expvar on this loopback
	// address (a listener of its own, never the dashboard's).
	DebugPprof string
	Targets    lab.Targets
	// Watches (-watch, -watch-file) are the programs watched for leaks,
	// Receivers (-alert) where their verdict changes go, MetricsToken
	// (-metrics-token) a token that reads /metrics besides -token,
	// WatchStaleAfter (-watch-stale-after) the periods a JVM watch may go
	// without a push before it is stale.
	Watches         watch.Flags
	WatchFile       string
	Receivers       alert.Receivers
	MetricsToken    string
	WatchStaleAfter int
	// JobRescueAfter (-job-rescue-after) is how long a running job's
	// heartbeat may be silent before the job system's leader queues it
	// again for a live replica.
	JobRescueAfter time.Duration

	io     stdio
	log    *slog.Logger
	store  *store.DB
	web    *web.Server
	ln     net.Listener
	server *http.Server
	served chan error
	debug  *child.DebugServer
	spool  *uploadSpool
	bg     *background
}

// NewMain returns a Main with the default flags.
func NewMain(std stdio) *Main {
	return &Main{
		Addr: "127.0.0.1:8080", DataDir: "./leakui-data", MaxUpload: web.DefaultMaxUpload,
		MaxDecompressed: analyze.DefaultMaxDecompressed, MaxHeapDump: web.DefaultMaxHeapDump, ShutdownTimeout: 30 * time.Second, io: std,
		Lab: true, MaxRuns: lab.DefaultMaxRuns, RunDeadline: lab.DefaultDeadline, RunLease: lab.DefaultLease,
		MaxCycles: lab.DefaultMaxCycles, Snapshots: lab.DefaultSnapshots,
		RunChild: lab.ChildLimits{Memory: lab.DefaultChildMemory, Disk: lab.DefaultChildDisk, CPU: lab.DefaultChildCPU},
	}
}

// ParseFlags reads the serve flags; LEAKUI_DB supplies -db when it is not given.
func (m *Main) ParseFlags(args []string) error {
	fs := newFlagSet("serve", "", m.io.err)
	m.registerFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	fs.Visit(func(f *flag.Flag) { m.maxDecompressedSet = m.maxDecompressedSet || f.Name == "max-decompressed" })
	if fs.NArg() > 0 {
		fmt.Fprintf(m.io.err, "leakui serve: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	if m.DSN == "" {
		m.DSN = os.Getenv("LEAKUI_DB")
	}
	if m.Token == "" {
		m.Token = os.Getenv("LEAKUI_TOKEN")
	}
	if m.DebugPprof != "" {
		if err := checkLoopback(m.DebugPprof); err != nil {
			fmt.Fprintf(m.io.err, "leakui serve: %s\n", visible(err.Error()))
			return errUsage
		}
	}
	if err := m.parseWatchFlags(); err != nil {
		return err
	}
	if m.Private && m.Token == "" {
		fmt.Fprintln(m.io.err, "leakui serve: -private needs a -token (or LEAKUI_TOKEN)")
		return errUsage
	}
	return nil
}

func (m *Main) registerFlags(fs *flag.FlagSet) {
	fs.StringVar(&m.Addr, "addr", m.Addr, "listen on this address (port 0 picks a free one)")
	m.registerAccessFlags(fs)
	fs.StringVar(&m.DataDir, "data", m.DataDir, "directory of the SQLite store and of uploads in progress, created on first start")
	fs.StringVar(&m.DSN, "db", "", "database: a postgres:// URL (default: SQLite in -data; env LEAKUI_DB)")
	fs.Int64Var(&m.MaxUpload, "max-upload", m.MaxUpload, "largest upload in bytes (413 beyond)")
	fs.Int64Var(&m.MaxDecompressed, "max-decompressed", m.MaxDecompressed, "largest input after gzip/zstd decompression, in bytes (413 beyond)")
	fs.Int64Var(&m.MemoryBudget, "memory-budget", 0, "bytes the analyses in flight and the caches may hold together; one analysis gets half, 413 beyond, 503 while others hold the rest (default: half of GOMEMLIMIT, which serve sets to 3/4 of the machine's or cgroup's memory when not given)")
	fs.Int64Var(&m.MaxHeapDump, "max-heapdump", m.MaxHeapDump, "largest JVM heap dump in an upload, in bytes, streamed to disk (413 beyond)")
	fs.DurationVar(&m.ShutdownTimeout, "shutdown-timeout", m.ShutdownTimeout, "how long requests in flight may finish on SIGINT/SIGTERM")
	fs.BoolVar(&m.Lab, "lab", m.Lab, "run reproductions from the dashboard (false: analyze uploads only)")
	fs.IntVar(&m.MaxRuns, "max-runs", m.MaxRuns, "reproductions that may run at once (429 beyond)")
	fs.DurationVar(&m.RunDeadline, "run-deadline", m.RunDeadline, "longest a reproduction may run before it is stopped")
	fs.DurationVar(&m.RunLease, "run-lease", m.RunLease, "a run whose server stops renewing it for this long is marked interrupted")
	fs.IntVar(&m.MaxCycles, "max-cycles", m.MaxCycles, "most cycles one checkpoint run may ask for")
	fs.Int64Var(&m.RunChild.Memory, "run-memory", m.RunChild.Memory, "address space of a run's child in bytes (RLIMIT_AS; a Go child needs about 1 GiB to start); larger recovery batches are refused")
	fs.Int64Var(&m.RunChild.Disk, "run-disk", m.RunChild.Disk, "quota of a run's directory in bytes; a recovery run that would write more is refused, a child that writes more is stopped")
	fs.DurationVar(&m.RunChild.CPU, "run-cpu", m.RunChild.CPU, "CPU time of a run's child (RLIMIT_CPU); the kernel kills it beyond")
	fs.IntVar(&m.Snapshots, "snapshots", m.Snapshots, "about how many heap and goroutine snapshots a run captures")
	fs.StringVar(&m.Brokers, "brokers", "", "Kafka brokers host:port,... for the checkpoint workload (default: an embedded broker per run)")
	fs.StringVar(&m.Token, "token", "", "require this token for uploads, runs and deletes (env LEAKUI_TOKEN); never logged")
	fs.BoolVar(&m.Private, "private", false, "with -token, require it for reading reports too")
	fs.Var(&m.Retain, "retain", "expire unpinned reports older than this, such as 30d or 12h (default: keep all)")
	fs.Float64Var(&m.UploadRate, "upload-rate", web.DefaultUploadsPerMinute, "uploads per minute per client address (a burst of half as many; negative: no limit)")
	fs.Float64Var(&m.RunRate, "run-rate", web.DefaultRunsPerMinute, "runs per minute per client address (a burst of half as many; negative: no limit)")
	fs.IntVar(&m.MaxAnalyses, "max-analyses", 0, "page views served at once; more wait up to 30 s, then 429 (default 4 per CPU)")
	fs.IntVar(&m.MaxAPIReads, "max-api-reads", 0, "API reads (/api/, .md, .json, .csv, chart images) served at once (default 4 per CPU)")
	fs.IntVar(&m.MaxUploads, "max-uploads", 0, "uploads received at once (default 4 per CPU)")
	fs.IntVar(&m.MaxDownloads, "max-downloads", 0, "artifact downloads (/a/) sent at once (default 4 per CPU)")
	fs.IntVar(&m.MaxPerClient, "max-per-client", 0, "requests of each class (uploads, downloads, page views, API reads) one client address may have going or waiting, at most the class's slots going; beyond, 429 with Retry-After (default: a quarter of the class's slots going, at least 1, and as many again as it has slots waiting)")
	fs.Func("allowed-hosts", "answer only to these Host headers, comma-separated: host:port, host (any port) or * (no check); others get 421 (default: the -addr host, localhost, 127.0.0.1 and [::1] with its port)", func(v string) error {
		m.AllowedHosts = nil
		for _, h := range strings.Split(v, ",") {
			if h = strings.TrimSpace(h); h != "" {
				m.AllowedHosts = append(m.AllowedHosts, h)
			}
		}
		return nil
	})
	fs.DurationVar(&m.IdleBodyTimeout, "idle-body-timeout", web.DefaultIdleBodyTimeout, "cut a client that sends no byte of its request body (an upload) for this long")
	fs.DurationVar(&m.IdleWriteTimeout, "idle-write-timeout", web.DefaultIdleWriteTimeout, "cut a client that reads no byte of its response (a download) for this long")
	fs.Func("base-url", "the URL users reach the server at, such as https://leakui.example.com: the upload API's report_url and Markdown links start with it (default: the request's scheme and host), and https makes the session cookie Secure", func(v string) (err error) {
		m.BaseURL, err = web.ParseBaseURL(v)
		return err
	})
	m.Limits.register(fs)
	m.registerWatchFlags(fs)
	fs.StringVar(&m.DebugPprof, "debug-pprof", "", "serve leakui's own /debug/pprof/ and /debug/vars on this loopback address, such as 127.0.0.1:6060 (default: off)")
	fs.Func("target", "allow captures from a live pprof endpoint: name=http://host:port (repeatable; the browser only names it)", func(v string) error {
		name, base, err := lab.ParseTarget(v)
		if err != nil {
			return err
		}
		if m.Targets == nil {
			m.Targets = lab.Targets{}
		}
		m.Targets[name] = base
		return nil
	})
}

// Open opens the store and starts listening and serving; Addr then holds the bound
// address. Listening happens before serving, so a test can bind port 0.
func (m *Main) Open(ctx context.Context) error {
	m.log = slog.New(slog.NewTextHandler(m.io.err, &slog.HandlerOptions{Level: slog.LevelInfo}))
	dsn := m.DSN
	if dsn == "" {
		dsn = m.DataDir
	}
	db, err := openStore(ctx, dsn)
	if err != nil {
		return err
	}
	m.store = db
	// Uploads are spooled in a directory of this server's own inside the data
	// directory; those of servers killed in the middle of an upload go now.
	spool, removed, err := openUploadSpool(m.DataDir)
	if err != nil {
		db.Close()
		return err
	}
	m.spool = spool
	if removed > 0 {
		m.log.Warn("removed the partial uploads of a server that was killed", "dirs", removed)
	}
	ln, err := net.Listen("tcp", m.Addr)
	if err != nil {
		spool.Close()
		db.Close()
		return fmt.Errorf("listen: %w", err)
	}
	m.ln = ln
	m.Addr = ln.Addr().String()
	hosts := m.AllowedHosts
	if len(hosts) == 0 {
		hosts = defaultAllowedHosts(m.Addr)
	}
	memLimit := serveMemoryLimit()
	if m.MemoryBudget <= 0 {
		m.MemoryBudget = web.DefaultMemoryBudget()
	}
	// The watches' verdicts get a share of the memory budget of their own;
	// the web's analyses and caches the rest.
	webBudget, watchBudget := m.MemoryBudget, (*analyze.Budget)(nil)
	if len(m.Watches) > 0 {
		watchBudget = analyze.NewBudget(m.MemoryBudget / watchBudgetShare)
		webBudget -= watchBudget.Limit()
	}
	if !m.maxDecompressedSet {
		m.MaxDecompressed = min(m.MaxDecompressed, webBudget/2)
	}
	m.log.Info("memory", "gomemlimit", memLimit, "memory_budget", m.MemoryBudget, "max_decompressed", m.MaxDecompressed,
		"watches_budget", m.MemoryBudget-webBudget)
	bg, err := m.openBackground(ctx, dsn, watchBudget)
	if err != nil {
		ln.Close()
		spool.Close()
		db.Close()
		return err
	}
	m.bg = bg
	cfg := web.Config{Store: db, AllowedHosts: hosts, Logger: m.log, MaxUpload: m.MaxUpload, MaxDecompressed: m.MaxDecompressed, MaxHeapDump: m.MaxHeapDump, TempDir: spool.dir, MemoryBudget: webBudget,
		Token: m.Token, Private: m.Private, Retain: time.Duration(m.Retain), MaxAnalyses: m.MaxAnalyses,
		MaxAPIReads: m.MaxAPIReads, MaxUploads: m.MaxUploads, MaxDownloads: m.MaxDownloads, MaxPerClient: m.MaxPerClient,
		UploadsPerMinute: m.UploadRate, UploadBurst: max(int(m.UploadRate/2), 1),
		RunsPerMinute: m.RunRate, RunBurst: max(int(m.RunRate/2), 1), Targets: m.Targets,
		IdleBodyTimeout: m.IdleBodyTimeout, IdleWriteTimeout: m.IdleWriteTimeout,
		BaseURL: m.BaseURL, TrustedProxies: m.TrustedProxies, SessionLifetime: m.SessionLifetime, Jobs: bg.runner}
	m.Limits.apply(&cfg)
	cfg.Watches = bg.webSource(db)
	cfg.Metrics = bg.metrics
	if m.Lab {
		cfg.Lab = &lab.Config{MaxRuns: m.MaxRuns, Deadline: m.RunDeadline, Lease: m.RunLease, Brokers: m.Brokers,
			Snapshots: m.Snapshots, Limits: lab.Limits{MaxCycles: m.MaxCycles}, TempDir: spool.runsDir(), Child: m.RunChild}
	}
	srv, err := web.NewServer(cfg)
	if err != nil {
		ln.Close()
		bg.close(m.ShutdownTimeout)
		spool.Close()
		db.Close()
		return err
	}
	m.web = srv
	bg.webBudget.Set(srv.Budget())
	if m.DebugPprof != "" {
		if err := m.openDebug(); err != nil {
			ln.Close()
			srv.Close()
			bg.close(m.ShutdownTimeout)
			spool.Close()
			db.Close()
			return err
		}
	}
	m.server = &http.Server{
		Handler:           m.withMetrics(m.withPushes(srv, bg, hosts), bg.metrics, hosts),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(m.log.Handler(), slog.LevelWarn),
	}
	m.server.RegisterOnShutdown(srv.BeginShutdown)
	m.served = make(chan error, 1)
	go func() { m.served <- m.server.Serve(ln) }()
	fmt.Fprintf(m.io.out, "leakui listening on http://%s\n", m.Addr)
	if m.debug != nil {
		fmt.Fprintf(m.io.out, "leakui debug endpoint on http://%s/debug/pprof/\n", m.debug.Addr())
	}
	m.log.Info("serving", "addr", m.Addr, "store", db.Backend(), "location", db.Location)
	return nil
}

// Run opens, serves until ctx ends or the server fails, then closes.
func (m *Main) Run(ctx context.Context) error {
	if err := m.Open(ctx); err != nil {
		return err
	}
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-m.served:
		m.served = nil
	}
	return errors.Join(serveErr, m.Close())
}

// Close stops accepting connections, lets requests in flight finish (up to
// ShutdownTimeout), then closes the store.
func (m *Main) Close() error {
	var errs []error
	if m.server != nil {
		ctx, cancel := context.WithTimeout(context.Background(), m.ShutdownTimeout)
		if err := m.server.Shutdown(ctx); err != nil {
			errs = append(errs, err, m.server.Close())
		}
		cancel()
		if m.served != nil {
			if err := <-m.served; !errors.Is(err, http.ErrServerClosed) {
				errs = append(errs, err)
			}
		}
	}
	if m.debug != nil {
		errs = append(errs, m.debug.Close())
	}
	// The jobs stop (and their backend closes) before the store they write to.
	if m.bg != nil {
		errs = append(errs, m.bg.close(m.ShutdownTimeout))
	}
	if m.web != nil {
		errs = append(errs, m.web.Close())
	}
	if m.store != nil {
		errs = append(errs, m.store.Close())
	}
	if m.spool != nil {
		errs = append(errs, m.spool.Close())
	}
	if m.log != nil && m.server != nil {
		m.log.Info("stopped")
	}
	// A second Close has nothing left to do (it used to wait forever for the
	// server's end, which the first one had taken).
	m.server, m.served, m.debug, m.web, m.store, m.spool, m.bg = nil, nil, nil, nil, nil, nil, nil
	return errors.Join(errs...)
}

// defaultAllowedHosts are the Host headers a server listening on addr answers to
// without -allowed-hosts: its own address and the loopback names, with its port.
// On an unspecified address (0.0.0.0, [::]) they are the machine's interface
// addresses and its host name instead of the listen host.
func defaultAllowedHosts(addr string) []string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil
	}
	hosts := []string{net.JoinHostPort("localhost", port), net.JoinHostPort("127.0.0.1", port), net.JoinHostPort("::1", port)}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsUnspecified() {
		return append(hosts, net.JoinHostPort(host, port))
	}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				hosts = append(hosts, net.JoinHostPort(n.IP.String(), port))
			}
		}
	}
	if name, err := os.Hostname(); err == nil && name != "" {
		hosts = append(hosts, net.JoinHostPort(name, port))
	}
	return hosts
}

// openDebug starts the -debug-pprof listener.
func (m *Main) openDebug() error {
	d, err := listenDebug(m.DebugPprof)
	if err != nil {
		return err
	}
	m.debug = d
	m.log.Info("serving leakui's own profiles and variables; keep this address private", "debug_addr", d.Addr())
	return nil
}
