package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web"
)

func init() {
	commands["serve"] = command{"serve the dashboard (the default when no command is given)", runServe}
}

// runServe implements `leakui serve`: parse flags, open, serve until the context
// ends (SIGINT/SIGTERM), then shut down gracefully.
func runServe(ctx context.Context, args []string, io stdio) error {
	m := NewMain(io)
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
	ShutdownTimeout time.Duration

	io     stdio
	log    *slog.Logger
	store  *store.DB
	ln     net.Listener
	server *http.Server
	served chan error
}

// NewMain returns a Main with the default flags.
func NewMain(io stdio) *Main {
	return &Main{
		Addr: "127.0.0.1:8080", DataDir: "./leakui-data", MaxUpload: web.DefaultMaxUpload,
		MaxDecompressed: analyze.DefaultMaxDecompressed, ShutdownTimeout: 30 * time.Second, io: io,
	}
}

// ParseFlags reads the serve flags; LEAKUI_DB supplies -db when it is not given.
func (m *Main) ParseFlags(args []string) error {
	fs := newFlagSet("serve", "", m.io.err)
	m.registerFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(m.io.err, "leakui serve: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	if m.DSN == "" {
		m.DSN = os.Getenv("LEAKUI_DB")
	}
	return nil
}

func (m *Main) registerFlags(fs *flag.FlagSet) {
	fs.StringVar(&m.Addr, "addr", m.Addr, "listen on this address (port 0 picks a free one)")
	fs.StringVar(&m.DataDir, "data", m.DataDir, "directory of the SQLite store, created on first start")
	fs.StringVar(&m.DSN, "db", "", "database: a postgres:// URL (default: SQLite in -data; env LEAKUI_DB)")
	fs.Int64Var(&m.MaxUpload, "max-upload", m.MaxUpload, "largest upload in bytes (413 beyond)")
	fs.Int64Var(&m.MaxDecompressed, "max-decompressed", m.MaxDecompressed, "largest input after gzip/zstd decompression, in bytes (413 beyond)")
	fs.DurationVar(&m.ShutdownTimeout, "shutdown-timeout", m.ShutdownTimeout, "how long requests in flight may finish on SIGINT/SIGTERM")
}

// Open opens the store and starts listening and serving; Addr then holds the bound
// address. Listening happens before serving, so a test can bind port 0.
func (m *Main) Open(ctx context.Context) error {
	m.log = slog.New(slog.NewTextHandler(m.io.err, &slog.HandlerOptions{Level: slog.LevelInfo}))
	dsn := m.DSN
	if dsn == "" {
		dsn = m.DataDir
	}
	db, err := store.Open(ctx, dsn)
	if err != nil {
		return err
	}
	m.store = db
	srv, err := web.NewServer(web.Config{
		Store: db, Logger: m.log, MaxUpload: m.MaxUpload, MaxDecompressed: m.MaxDecompressed,
	})
	if err != nil {
		db.Close()
		return err
	}
	ln, err := net.Listen("tcp", m.Addr)
	if err != nil {
		db.Close()
		return fmt.Errorf("listen: %w", err)
	}
	m.ln = ln
	m.Addr = ln.Addr().String()
	m.server = &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(m.log.Handler(), slog.LevelWarn),
	}
	m.served = make(chan error, 1)
	go func() { m.served <- m.server.Serve(ln) }()
	fmt.Fprintf(m.io.out, "leakui listening on http://%s\n", m.Addr)
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
	if m.store != nil {
		errs = append(errs, m.store.Close())
	}
	m.log.Info("stopped")
	return errors.Join(errs...)
}
