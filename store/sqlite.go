package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the SQLite driver, pure Go
)

// SQLiteFile is the name of the database file inside the data directory.
const SQLiteFile = "leakui.db"

// OpenSQLite opens (creating on first use) the SQLite store in dir: WAL mode,
// foreign keys on, a busy timeout, migrations applied. Writes go through one
// connection, as SQLite has one writer; reads use a pool.
func OpenSQLite(ctx context.Context, dir string) (*DB, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("store: data directory: %w", err)
	}
	path := filepath.Join(dir, SQLiteFile)
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "foreign_keys(1)", "busy_timeout(10000)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	dsn := "file:" + path + "?" + q.Encode()
	write, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	write.SetMaxOpenConns(1)
	read, err := sql.Open("sqlite", dsn)
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("store: %w", err)
	}
	read.SetMaxOpenConns(4)
	db := &DB{write: write, read: read, dialect: sqliteDialect{}, chunkSize: defaultChunkSize, Location: path}
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// sqliteDialect writes queries for SQLite.
type sqliteDialect struct{}

func (sqliteDialect) name() string               { return "sqlite" }
func (sqliteDialect) rebind(query string) string { return query }

// lockMigrations needs no lock: the one write connection is the lock, and
// SQLite's file locking keeps other processes out of a transaction.
func (sqliteDialect) lockMigrations(context.Context, *sql.Conn) (func(), error) {
	return func() {}, nil
}
