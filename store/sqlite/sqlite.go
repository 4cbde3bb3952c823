package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	msqlite "modernc.org/sqlite" // the SQLite driver, pure Go
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/leakui/leakui/store"
)

// File is the name of the database file inside the data directory.
const File = "leakui.db"

// Open opens (creating on first use) the SQLite store in dir: WAL mode, foreign
// keys on, a busy timeout, migrations applied. Writes go through one connection,
// as SQLite has one writer; reads use a pool.
//
// Stores opening the same file together (replicas sharing a data directory, or
// one starting while another migrates) can be answered SQLITE_BUSY without the
// busy timeout being waited, while one of them switches the new file to WAL; Open
// then tries again, for up to openRetryFor.
func Open(ctx context.Context, dir string) (*store.DB, error) {
	deadline := time.Now().Add(openRetryFor)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 500*time.Millisecond) {
		write, read, path, err := openPools(dir)
		if err != nil {
			return nil, err
		}
		db, err := store.New(ctx, write, read, dialect{}, path)
		if err == nil || !busy(err) || time.Now().Add(wait).After(deadline) {
			return db, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

// openRetryFor bounds how long Open retries a file another store holds locked.
const openRetryFor = 10 * time.Second

// busy reports whether err is SQLite's "database is locked" (SQLITE_BUSY, with
// any extended code).
func busy(err error) bool {
	var se *msqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// openPools opens the pools of the SQLite file in dir, creating the directory:
// write of one connection, read of four. path is the file's.
func openPools(dir string) (write, read *sql.DB, path string, err error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, nil, "", fmt.Errorf("store: data directory: %w", err)
	}
	path = filepath.Join(dir, File)
	q := url.Values{}
	for _, p := range []string{"busy_timeout(10000)", "journal_mode(WAL)", "foreign_keys(1)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	dsn := "file:" + path + "?" + q.Encode()
	write, err = sql.Open("sqlite", dsn)
	if err != nil {
		return nil, nil, "", fmt.Errorf("store: %w", err)
	}
	write.SetMaxOpenConns(1)
	read, err = sql.Open("sqlite", dsn)
	if err != nil {
		write.Close()
		return nil, nil, "", fmt.Errorf("store: %w", err)
	}
	read.SetMaxOpenConns(4)
	return write, read, path, nil
}

// dialect is the store.Dialect of SQLite: the store's queries as they are, and
// the SQLite schema.
type dialect struct{}

// Name returns "sqlite".
func (dialect) Name() string { return "sqlite" }

// Rebind returns query unchanged: SQLite takes ? placeholders.
func (dialect) Rebind(query string) string { return query }

// Migrations returns the SQLite schema's migrations.
func (dialect) Migrations() fs.FS {
	return store.Migrations(store.SchemaWords{Int64: "INTEGER", Bytes: "BLOB", Float64: "REAL", Strict: " STRICT"})
}

// LockMigrations takes no lock: the one write connection is the lock, and
// SQLite's file locking keeps other processes out of a transaction.
func (dialect) LockMigrations(context.Context, *sql.Conn) (func(), error) {
	return func() {}, nil
}
