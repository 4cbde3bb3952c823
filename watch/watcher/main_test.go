package watcher_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/leakui/leakui/internal/pgtest"
	"github.com/leakui/leakui/internal/watchtarget"
	"github.com/leakui/leakui/jobs"
	jobspostgres "github.com/leakui/leakui/jobs/postgres"
	jobssqlite "github.com/leakui/leakui/jobs/sqlite"
	"github.com/leakui/leakui/store"
	storepostgres "github.com/leakui/leakui/store/postgres"
	storesqlite "github.com/leakui/leakui/store/sqlite"
	"github.com/leakui/leakui/watch"
)

func TestMain(m *testing.M) {
	if v := os.Getenv(watchtarget.Env); v != "" {
		os.Exit(watchtarget.Main(v))
	}
	goleak.VerifyTestMain(m)
}

// database is one backend's store and job system for a test.
type database struct {
	name string
	// open opens the store and the jobs' backend, closed when the test ends.
	open func(t *testing.T) (*store.DB, *jobs.Backend)
}

// eachDatabase runs test on a new SQLite file and a new PostgreSQL schema.
func eachDatabase(t *testing.T, test func(t *testing.T, db database)) {
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		test(t, database{"sqlite", func(t *testing.T) (*store.DB, *jobs.Backend) {
			ctx := context.Background()
			s, err := storesqlite.Open(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			b, err := jobssqlite.Open(ctx, filepath.Join(dir, storesqlite.File))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			return s, b
		}})
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		test(t, database{"postgres", func(t *testing.T) (*store.DB, *jobs.Backend) {
			ctx := context.Background()
			s, err := storepostgres.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			b, err := jobspostgres.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			return s, b
		}})
	})
}

// openStore opens only the store of db.
func (db database) openStore(t *testing.T) *store.DB {
	s, _ := db.open(t)
	return s
}

// quietLogger drops River's and the watcher's info messages.
func quietLogger() *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// recorder is a Notifier that keeps the changes it is told.
type recorder struct {
	mu      sync.Mutex
	changes []watch.Change
}

func (r *recorder) Notify(_ context.Context, c watch.Change) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.changes = append(r.changes, c)
	return nil
}

// of returns the changes of one watch.
func (r *recorder) of(name string) []watch.Change {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []watch.Change
	for _, c := range r.changes {
		if c.Watch == name {
			out = append(out, c)
		}
	}
	return out
}

func mustParse(t *testing.T, s string) watch.Declaration {
	t.Helper()
	d, err := watch.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// waitUntil polls cond every 100 ms until it holds or timeout passes.
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
