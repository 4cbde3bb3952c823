package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"time"
)

// defaultChunkSize is how many bytes of an artifact one row holds.
const defaultChunkSize = 1 << 20

// defaultDerivedChunkSize is how many bytes of a derived blob one row holds:
// less than an artifact's, since a blob is read at random places (a page of
// the dominator tree reads a few dozen small records) and each read fetches
// whole chunks.
const defaultDerivedChunkSize = 32 << 10

// DB is a connection to the store. It is safe for concurrent use.
type DB struct {
	write, read *sql.DB
	dialect     Dialect
	chunkSize   int
	// derivedChunk is how many bytes of a derived blob one row holds.
	derivedChunk int
	// headliner works out the headlines of reports stored without one.
	headliner Headliner
	// Location names where the data lives (a file path, or a database URL without
	// its password), for logs.
	Location string
}

// Dialect is what differs between the SQL backends; the driver packages
// store/sqlite and store/postgres each provide one. Every query of the store is
// written with ? placeholders in SQL that both backends accept.
type Dialect interface {
	// Name names the backend, as DB.Backend reports it ("sqlite", "postgres").
	Name() string
	// Rebind turns the ? placeholders of a query into the backend's own.
	Rebind(query string) string
	// Migrations holds the backend's schema migrations: files named
	// NNNN_name.sql at its root, applied in the order of their numbers.
	Migrations() fs.FS
	// LockMigrations keeps other processes from migrating the same database until
	// unlock is called; conn is the connection the migrations run on.
	LockMigrations(ctx context.Context, conn *sql.Conn) (unlock func(), err error)
}

// New returns the store in the database that write and read connect to (one
// pool for both, or a pool for writes and another for reads), whose SQL is
// written in dialect d, after applying the migrations the database has not seen
// yet. location names where the data lives, for logs (see DB.Location). The DB
// owns the pools: Close closes them, and so does New when it fails.
func New(ctx context.Context, write, read *sql.DB, d Dialect, location string) (*DB, error) {
	db := &DB{write: write, read: read, dialect: d, chunkSize: defaultChunkSize, derivedChunk: defaultDerivedChunkSize, Location: location}
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Close closes the connections; it waits for nothing else.
func (db *DB) Close() error {
	if db.read == db.write {
		return db.write.Close()
	}
	return errors.Join(db.read.Close(), db.write.Close())
}

// Backend names the database in use ("sqlite" or "postgres").
func (db *DB) Backend() string { return db.dialect.Name() }

// inTx runs fn in one write transaction, committing when it returns nil. A
// write the disk had no room for is rolled back and wrapped with ErrFull.
func (db *DB) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return markFull(fmt.Errorf("store: begin: %w", err))
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return markFull(err)
	}
	if err := tx.Commit(); err != nil {
		return markFull(fmt.Errorf("store: commit: %w", err))
	}
	return nil
}

// q rebinds a query for the backend.
func (db *DB) q(query string) string { return db.dialect.Rebind(query) }

func millis(t time.Time) int64 { return t.UnixMilli() }

func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
