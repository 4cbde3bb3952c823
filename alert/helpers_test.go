package alert_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/leakui/leakui/alert"
	"github.com/leakui/leakui/internal/pgtest"
	"github.com/leakui/leakui/jobs"
	jobspostgres "github.com/leakui/leakui/jobs/postgres"
	jobssqlite "github.com/leakui/leakui/jobs/sqlite"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/store/postgres"
	"github.com/leakui/leakui/store/sqlite"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// eachDatabase runs test on a new SQLite store and a new PostgreSQL schema,
// as cmd/leakui opens them: the store and River's tables in one database.
func eachDatabase(t *testing.T, test func(t *testing.T, db database)) {
	t.Run("sqlite", func(t *testing.T) { test(t, database{"sqlite", t.TempDir()}) })
	t.Run("postgres", func(t *testing.T) { test(t, database{"postgres", pgtest.DSN(t)}) })
}

type database struct{ name, url string }

// harness is a store, a jobs runner on the same database and a Deliverer.
type harness struct {
	db      *store.DB
	d       *alert.Deliverer
	backend *jobs.Backend
}

// logger drops the runner's and the deliverer's lines unless -v.
func logger() *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// start opens the database, and starts a runner working the alerts queue
// with a Deliverer to receivers; all stop when the test ends.
func (db database) start(t *testing.T, receivers []alert.Receiver, cfg alert.Config) *harness {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var s *store.DB
	var b *jobs.Backend
	var err error
	if db.name == "sqlite" {
		if s, err = sqlite.Open(ctx, db.url); err == nil {
			b, err = jobssqlite.Open(ctx, filepath.Join(db.url, sqlite.File))
		}
	} else {
		if s, err = postgres.Open(ctx, db.url); err == nil {
			b, err = jobspostgres.Open(ctx, db.url)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	t.Cleanup(func() { b.Close() })
	r := jobs.New(b, jobs.Config{Queues: map[string]int{alert.Queue: 2}, PollInterval: 50 * time.Millisecond,
		RescueAfter: 5 * time.Second, Logger: logger()})
	if cfg.Logger == nil {
		cfg.Logger = logger()
	}
	d := alert.New(s, r, receivers, cfg)
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := r.Stop(ctx); err != nil {
			t.Errorf("stopping the runner: %v", err)
		}
	})
	return &harness{db: s, d: d, backend: b}
}

// receiver parses a declaration or ends the test.
func receiver(t *testing.T, decl string) alert.Receiver {
	t.Helper()
	r, err := alert.ParseReceiver(decl)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// waitEnded waits until the delivery of watch's change to verdict for
// receiver is delivered or failed, and returns it.
func (h *harness) waitEnded(t *testing.T, receiver, watch, verdict string, timeout time.Duration) *store.Delivery {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		d, err := h.db.LastDelivery(context.Background(), receiver, watch, verdict)
		if err == nil && (d.State == store.DeliveryDelivered || d.State == store.DeliveryFailed) {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delivery of %s → %s to %s has not ended after %s: %+v (%v)", watch, verdict, receiver, timeout, d, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// fixedBackoff waits d after every failed attempt.
func fixedBackoff(d time.Duration) func(int) time.Duration {
	return func(int) time.Duration { return d }
}
