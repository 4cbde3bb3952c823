package main

import (
	"context"

	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/store/postgres"
	"github.com/leakui/leakui/store/sqlite"
)

// openStore opens the store named by dsn with the driver that serves it: a
// postgres:// URL is PostgreSQL, anything else a directory for the SQLite file.
// It is the one place in leakui that chooses a database driver.
func openStore(ctx context.Context, dsn string) (*store.DB, error) {
	if postgres.IsDSN(dsn) {
		return postgres.Open(ctx, dsn)
	}
	return sqlite.Open(ctx, dsn)
}
