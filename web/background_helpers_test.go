package web

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/leakui/leakui/jobs"
	jobspostgres "github.com/leakui/leakui/jobs/postgres"
	jobssqlite "github.com/leakui/leakui/jobs/sqlite"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/store/postgres"
	"github.com/leakui/leakui/web/background"
)

// testJobs returns a job runner, not started, over the database of db (a
// SQLite store) for a server under test, as cmd/leakui makes one: River's
// tables beside the store's. The server starts and stops it; its backend
// closes when the test ends.
func testJobs(t testing.TB, db *store.DB) *jobs.Runner {
	t.Helper()
	return testJobsAt(t, db.Location, "")
}

// testJobsAt returns a job runner, not started, over the SQLite file at path
// or the PostgreSQL database at a postgres:// URL; id names the replica
// (default: a random name).
func testJobsAt(t testing.TB, where, id string) *jobs.Runner {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var b *jobs.Backend
	var err error
	if postgres.IsDSN(where) {
		b, err = jobspostgres.Open(ctx, where)
	} else {
		b, err = jobssqlite.Open(ctx, where)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return jobs.New(b, jobs.Config{ID: id, Queues: map[string]int{background.Queue: 1},
		PollInterval: 50 * time.Millisecond, RescueAfter: 3 * time.Second, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}
