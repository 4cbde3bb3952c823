// Package sqlite runs leakui's jobs in the store's SQLite file: River's tables
// beside the store's, through River's riversqlite driver over
// modernc.org/sqlite (no cgo).
//
// Open(ctx, path) uses a pool of one connection (WAL, IMMEDIATE transactions,
// a busy timeout of 60 s beside the store's writer) and runs River's migrations
// through rivermigrate at open.
package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"time"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go

	"github.com/leakui/leakui/jobs"
)

// Open opens River's tables in the SQLite file at path (the store's file,
// filepath.Join(dir, store/sqlite.File)), creating and migrating them with
// rivermigrate. River gets a pool of its own of one connection, as River
// advises for SQLite: the store's writer and River's take turns at SQLite's
// one write lock (WAL, IMMEDIATE transactions, a busy timeout of
// BusyTimeout), and readers never wait for them.
func Open(ctx context.Context, path string) (*jobs.Backend, error) {
	db, err := openPool(path)
	if err != nil {
		return nil, err
	}
	driver := riversqlite.New(db)
	if err := migrate(ctx, driver); err != nil {
		db.Close()
		return nil, err
	}
	return jobs.NewBackend(driver, dialect{db}, db.Close), nil
}

// BusyTimeout is how long a write of River's waits for the store's (an
// upload's transaction can hold the write lock for seconds) before it fails.
const BusyTimeout = 60 * time.Second

// openPool opens the one-connection pool of the file at path.
func openPool(path string) (*sql.DB, error) {
	q := url.Values{}
	for _, p := range []string{fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()), "journal_mode(WAL)", "foreign_keys(1)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// migrate applies River's migrations. Processes opening the file together
// may both see a migration missing; the one that loses fails on the tables
// the other created, and tries again.
func migrate(ctx context.Context, driver *riversqlite.Driver) error {
	m, err := rivermigrate.New(driver, nil)
	if err != nil {
		return fmt.Errorf("jobs: %w", err)
	}
	var last error
	for wait := 10 * time.Millisecond; wait < 5*time.Second; wait *= 2 {
		if _, last = m.Migrate(ctx, rivermigrate.DirectionUp, nil); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	return fmt.Errorf("jobs: migrating River's tables: %w", last)
}

// dialect is SQLite's: ? placeholders, times as River's driver writes them
// (text in UTC to the millisecond), no lock beyond the IMMEDIATE transaction.
type dialect struct{ db *sql.DB }

func (dialect) Name() string               { return "sqlite" }
func (dialect) Rebind(query string) string { return query }

// Time is t as riversqlite stores times.
func (dialect) Time(t time.Time) any {
	return t.UTC().Round(time.Millisecond).Format("2006-01-02 15:04:05.000")
}

// Lock takes no lock: the transaction is IMMEDIATE, the only writer.
func (dialect) Lock(context.Context, riverdriver.ExecutorTx, int64) error { return nil }

func (d dialect) Query(ctx context.Context, query string, args ...any) (jobs.Rows, error) {
	rows, err := d.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { r.Rows.Close() }
