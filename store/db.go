package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// defaultChunkSize is how many bytes of an artifact one row holds.
const defaultChunkSize = 1 << 20

// DB is a connection to the store. It is safe for concurrent use.
type DB struct {
	write, read *sql.DB
	dialect     dialect
	chunkSize   int
	// Location names where the data lives (a file path, or a database URL without
	// its password), for logs.
	Location string
}

// dialect is what differs between the SQL backends.
type dialect interface {
	name() string
	// rebind turns ? placeholders into the backend's own.
	rebind(query string) string
	// lockMigrations keeps other processes from migrating the same database until
	// unlock is called; conn is the connection the migrations run on.
	lockMigrations(ctx context.Context, conn *sql.Conn) (unlock func(), err error)
}

// Open opens the store named by dsn: a postgres:// URL, or else a directory for
// the SQLite file.
func Open(ctx context.Context, dsn string) (*DB, error) {
	if IsPostgresDSN(dsn) {
		return OpenPostgres(ctx, dsn)
	}
	return OpenSQLite(ctx, dsn)
}

// Close closes the connections; it waits for nothing else.
func (db *DB) Close() error {
	if db.read == db.write {
		return db.write.Close()
	}
	return errors.Join(db.read.Close(), db.write.Close())
}

// Backend names the database in use ("sqlite" or "postgres").
func (db *DB) Backend() string { return db.dialect.name() }

// inTx runs fn in one write transaction, committing when it returns nil.
func (db *DB) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// q rebinds a query for the backend.
func (db *DB) q(query string) string { return db.dialect.rebind(query) }

func millis(t time.Time) int64 { return t.UnixMilli() }

func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
