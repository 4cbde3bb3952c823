package jobs_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/leakui/leakui/internal/pgtest"
	"github.com/leakui/leakui/jobs"
	jobspostgres "github.com/leakui/leakui/jobs/postgres"
	jobssqlite "github.com/leakui/leakui/jobs/sqlite"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(helperMain())
	}
	goleak.VerifyTestMain(m)
}

// database is one backend's database for a test: where it is (a SQLite file
// or a postgres:// URL) and how to open it.
type database struct {
	name string // "sqlite" or "postgres"
	url  string // the file's path, or the DSN
}

func (d database) open(t testing.TB) *jobs.Backend {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var b *jobs.Backend
	var err error
	if d.name == "sqlite" {
		b, err = jobssqlite.Open(ctx, d.url)
	} else {
		b, err = jobspostgres.Open(ctx, d.url)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// eachDatabase runs test on a new SQLite file and a new PostgreSQL schema.
func eachDatabase(t *testing.T, test func(t *testing.T, db database)) {
	t.Run("sqlite", func(t *testing.T) {
		test(t, database{"sqlite", filepath.Join(t.TempDir(), "leakui.db")})
	})
	t.Run("postgres", func(t *testing.T) {
		test(t, database{"postgres", pgtest.DSN(t)})
	})
}

// quietLogger drops River's info messages (each job's retries are logged).
func quietLogger() *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// testConfig is a runner's configuration for tests: short polls and rescues.
func testConfig(queues map[string]int) jobs.Config {
	return jobs.Config{Queues: queues, PollInterval: 50 * time.Millisecond, RescueAfter: 3 * time.Second, Logger: quietLogger()}
}

// start starts r and stops it when the test ends.
func start(t testing.TB, r *jobs.Runner) {
	t.Helper()
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := r.Stop(ctx); err != nil {
			t.Errorf("stopping the runner: %v", err)
		}
	})
}

// waitFor waits until job id is in one of states, and returns it.
func waitFor(t testing.TB, r *jobs.Runner, id int64, timeout time.Duration, states ...jobs.State) jobs.JobInfo {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		info, err := r.Job(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range states {
			if info.State == s {
				return info
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d is %s after %s, want %v: %+v", id, info.State, timeout, states, info)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
