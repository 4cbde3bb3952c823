package web

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/static"
	"github.com/leakui/leakui/store"
)

// Store is what the handlers need from persistence.
type Store interface {
	CreateReport(ctx context.Context, r *store.Report, uploads []store.Upload) error
	Report(ctx context.Context, id string) (*store.Report, error)
	RecentReports(ctx context.Context, limit int) ([]store.Report, error)
	Artifact(ctx context.Context, sha string) (*store.Artifact, error)
	OpenArtifact(ctx context.Context, sha string) (io.ReadCloser, error)
	ReadArtifact(ctx context.Context, sha string) ([]byte, error)
}

// Config configures a Server. Zero values mean the defaults.
type Config struct {
	Store  Store
	Logger *slog.Logger
	// MaxUpload caps the bytes of one upload request (default 256 MiB).
	MaxUpload int64
	// MaxDecompressed caps the decompressed size of one input (default 1 GiB).
	MaxDecompressed int64
	// MaxFiles caps the number of files in one upload (default 64).
	MaxFiles int
	// TempDir receives uploads while they are checked (default os.TempDir()).
	TempDir string
	// RequestTimeout bounds ordinary requests (default 60 s); uploads get
	// UploadTimeout (default 15 min).
	RequestTimeout, UploadTimeout time.Duration
}

// Defaults for Config.
const (
	DefaultMaxUpload      = 256 << 20
	DefaultMaxFiles       = 64
	DefaultRequestTimeout = 60 * time.Second
	DefaultUploadTimeout  = 15 * time.Minute
)

// Server is leakui's HTTP application.
type Server struct {
	cfg      Config
	store    Store
	log      *slog.Logger
	assets   *assets
	profiles *lru[*analyze.Profile]
	router   chi.Router
}

// NewServer builds the router with every route and middleware.
func NewServer(cfg Config) (*Server, error) {
	if cfg.MaxUpload <= 0 {
		cfg.MaxUpload = DefaultMaxUpload
	}
	if cfg.MaxDecompressed <= 0 {
		cfg.MaxDecompressed = analyze.DefaultMaxDecompressed
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
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	a, err := newAssets(static.FS)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, store: cfg.Store, log: cfg.Logger, assets: a, profiles: newLRU[*analyze.Profile](16)}
	s.router = s.routes()
	return s, nil
}

// ServeHTTP makes the server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

// routes mounts every resource on the root router.
func (s *Server) routes() chi.Router {
	r := chi.NewRouter()
	r.Use(middleware.RequestID)
	r.Use(middleware.ClientIPFromRemoteAddr)
	r.Use(middleware.RequestLogger(slogFormatter{s.log}))
	r.Use(middleware.Recoverer)
	r.NotFound(s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return errorf(http.StatusNotFound, "no page at %s", r.URL.Path)
	}))
	r.MethodNotAllowed(s.handle(func(w http.ResponseWriter, r *http.Request) error {
		return errorf(http.StatusMethodNotAllowed, "%s is not allowed on %s", r.Method, r.URL.Path)
	}))
	r.Get("/healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok")
	})
	r.Mount("/static", s.assets.Routes())

	// Uploads may take long; everything else is bounded tightly.
	r.Group(func(r chi.Router) {
		r.Use(middleware.Timeout(s.cfg.UploadTimeout))
		r.Post("/upload", s.handle(s.handleUploadForm))
		r.Post("/api/artifacts", s.handle(s.handleUploadAPI))
	})
	r.Group(func(r chi.Router) {
		r.Use(middleware.Timeout(s.cfg.RequestTimeout))
		r.Get("/", s.handle(s.handleDashboard))
		r.Mount("/r", reportsResource{s}.Routes())
		r.Mount("/a", artifactsResource{s}.Routes())
		r.Get("/api/reports/{id}", s.handle(s.handleReportJSON))
	})
	return r
}
