package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the SQLite driver, pure Go

	"github.com/leakui/leakui/store"
)

// File is the name of the database file inside the data directory.
const File = "leakui.db"

//go:embed migrations/*.sql
var migrations embed.FS

// Open opens (creating on first use) the SQLite store in dir: WAL mode, foreign
// keys on, a busy timeout, migrations applied. Writes go through one connection,
// as SQLite has one writer; reads use a pool.
func Open(ctx context.Context, dir string) (*store.DB, error) {
	write, read, path, err := openPools(dir)
	if err != nil {
		return nil, err
	}
	return store.New(ctx, write, read, dialect{}, path)
}

// openPools opens the pools of the SQLite file in dir, creating the directory:
// write of one connection, read of four. path is the file's.
func openPools(dir string) (write, read *sql.DB, path string, err error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, nil, "", fmt.Errorf("store: data directory: %w", err)
	}
	path = filepath.Join(dir, File)
	q := url.Values{}
	for _, p := range []string{"journal_mode(WAL)", "foreign_keys(1)", "busy_timeout(10000)", "synchronous(NORMAL)"} {
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
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic(err) // the directory is embedded above
	}
	return sub
}

// LockMigrations takes no lock: the one write connection is the lock, and
// SQLite's file locking keeps other processes out of a transaction.
func (dialect) LockMigrations(context.Context, *sql.Conn) (func(), error) {
	return func() {}, nil
}
