package web

import (
	"testing"

	"github.com/leakui/leakui/jobs"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/web/internal/webtest"
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
	return webtest.Jobs(t, where, id)
}
