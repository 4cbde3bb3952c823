package main

import (
	"context"
	"path/filepath"

	"github.com/leakui/leakui/jobs"
	jobspostgres "github.com/leakui/leakui/jobs/postgres"
	jobssqlite "github.com/leakui/leakui/jobs/sqlite"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/store/postgres"
	"github.com/leakui/leakui/store/sqlite"
)

// openStore opens the store named by dsn with the driver that serves it: a
// postgres:// URL is PostgreSQL, anything else a directory for the SQLite file.
// This file is the one place in leakui that chooses a database driver.
func openStore(ctx context.Context, dsn string) (*store.DB, error) {
	if postgres.IsDSN(dsn) {
		return postgres.Open(ctx, dsn)
	}
	return sqlite.Open(ctx, dsn)
}

// openJobs opens the job system's backend in the database named by dsn, as
// openStore opens the store: River's tables in the same PostgreSQL database,
// or in the store's SQLite file in the data directory dsn. Open the store
// first (it creates the directory and the file's WAL mode).
func openJobs(ctx context.Context, dsn string) (*jobs.Backend, error) {
	if postgres.IsDSN(dsn) {
		return jobspostgres.Open(ctx, dsn)
	}
	return jobssqlite.Open(ctx, filepath.Join(dsn, sqlite.File))
}
