// Package postgres runs leakui's jobs in the store's PostgreSQL database:
// River's tables beside the store's (in the search_path's schema), through
// River's riverpgxv5 driver.
//
// Open(ctx, dsn) uses a pgx pool of the store's database (leakui_max_conns,
// default 8), runs River's migrations through rivermigrate at open under
// pg_advisory_lock, and takes advisory transaction locks for fair inserts.
package postgres

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/leakui/leakui/jobs"
)

// DefaultConns is how many connections River opens to PostgreSQL at most in
// one replica (one of them held by its LISTEN); the DSN parameter
// leakui_max_conns, which the store reads too, overrides it.
const DefaultConns = 8

// migrationLockKey is the pg_advisory_lock key under which replicas apply
// River's migrations one at a time: "leakui.j" as a number.
const migrationLockKey int64 = 0x6c65616b75692e6a

// Open opens River's tables in the PostgreSQL database at dsn (the store's
// postgres:// URL), creating and migrating them with rivermigrate under an
// advisory lock, so that replicas starting together apply each migration
// once.
func Open(ctx context.Context, dsn string) (*jobs.Backend, error) {
	cfg, err := poolConfig(dsn)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("jobs: postgres: %w", err)
	}
	driver := riverpgxv5.New(pool)
	if err := migrate(ctx, pool, driver); err != nil {
		pool.Close()
		return nil, err
	}
	return jobs.NewBackend(driver, dialect{pool}, func() error { pool.Close(); return nil }), nil
}

// poolConfig parses dsn, taking leakui_max_conns out of it.
func poolConfig(dsn string) (*pgxpool.Config, error) {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return nil, fmt.Errorf("jobs: not a postgres:// URL")
	}
	conns := DefaultConns
	q := u.Query()
	if v := q.Get("leakui_max_conns"); v != "" {
		if conns, err = strconv.Atoi(v); err != nil || conns < 2 {
			return nil, fmt.Errorf("jobs: leakui_max_conns must be a number of at least 2, not %q", v)
		}
		q.Del("leakui_max_conns")
		u.RawQuery = q.Encode()
	}
	cfg, err := pgxpool.ParseConfig(u.String())
	if err != nil {
		return nil, fmt.Errorf("jobs: postgres: %s", redact(err.Error(), u))
	}
	cfg.MaxConns = int32(conns)
	return cfg, nil
}

// redact removes the password of u from msg.
func redact(msg string, u *url.URL) string {
	if p, ok := u.User.Password(); ok && p != "" {
		msg = strings.ReplaceAll(msg, p, "…")
	}
	return msg
}

// migrate applies River's migrations under a session advisory lock.
func migrate(ctx context.Context, pool *pgxpool.Pool, driver *riverpgxv5.Driver) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("jobs: postgres: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrationLockKey); err != nil {
		return fmt.Errorf("jobs: migration lock: %w", err)
	}
	defer func() {
		if _, err := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLockKey); err != nil {
			conn.Conn().Close(context.Background()) // closing the session releases it
		}
	}()
	m, err := rivermigrate.New(driver, nil)
	if err != nil {
		return fmt.Errorf("jobs: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("jobs: migrating River's tables: %w", err)
	}
	return nil
}

// dialect is PostgreSQL's: numbered placeholders, times as they are, and
// transaction-level advisory locks.
type dialect struct{ pool *pgxpool.Pool }

func (dialect) Name() string { return "postgres" }

// Rebind turns each ? into $1, $2, … (the queries hold no ? in quotes).
func (dialect) Rebind(query string) string {
	var b strings.Builder
	n := 0
	for _, c := range query {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (dialect) Time(t time.Time) any { return t }

// Lock takes pg_advisory_xact_lock(key) in tx.
func (dialect) Lock(ctx context.Context, tx riverdriver.ExecutorTx, key int64) error {
	return tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, key)
}

func (d dialect) Query(ctx context.Context, query string, args ...any) (jobs.Rows, error) {
	rows, err := d.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return rows, nil
}
