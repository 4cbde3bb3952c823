package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io/fs"
	"net/url"
	"strconv"
	"strings"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver

	"github.com/leakui/leakui/store"
)

// DefaultConns is how many connections one replica opens to PostgreSQL at most;
// override it with the DSN parameter leakui_max_conns.
const DefaultConns = 16

// migrationLockKey is the pg_advisory_lock key under which replicas apply
// migrations one at a time: the first 8 bytes of "leakui.m" as a number.
const migrationLockKey int64 = 0x6c65616b75692e6d

// IsDSN reports whether dsn names a PostgreSQL database (a postgres:// or
// postgresql:// URL) rather than a SQLite data directory.
func IsDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// Open opens the PostgreSQL store at dsn (a postgres:// URL that pgx understands,
// such as postgres://user:pass@host:5432/leakui?sslmode=require), checks the
// connection and applies the migrations under an advisory lock, so that replicas
// starting together apply each one once. Reads and writes share one pool of at
// most leakui_max_conns connections (default DefaultConns).
func Open(ctx context.Context, dsn string) (*store.DB, error) {
	u, err := url.Parse(dsn)
	if err != nil || !IsDSN(dsn) {
		return nil, fmt.Errorf("store: %q is not a postgres:// URL", redact(dsn))
	}
	conns := DefaultConns
	q := u.Query()
	if v := q.Get("leakui_max_conns"); v != "" {
		if conns, err = strconv.Atoi(v); err != nil || conns < 1 {
			return nil, fmt.Errorf("store: leakui_max_conns must be a positive number, not %q", v)
		}
		q.Del("leakui_max_conns")
		u.RawQuery = q.Encode()
	}
	pool, err := sql.Open("pgx", u.String())
	if err != nil {
		return nil, fmt.Errorf("store: postgres: %w", err)
	}
	pool.SetMaxOpenConns(conns)
	pool.SetMaxIdleConns(conns)
	if err := pool.PingContext(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: postgres at %s: %w", redact(dsn), err)
	}
	return store.New(ctx, pool, pool, dialect{}, redact(dsn))
}

// redact returns the URL dsn without its password (in the user information or
// the password parameter), for logs and errors.
func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://…"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	q := u.Query()
	if q.Has("password") {
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// dialect is the store.Dialect of PostgreSQL: numbered placeholders, the
// PostgreSQL schema and an advisory lock around migrations.
type dialect struct{}

// Name returns "postgres".
func (dialect) Name() string { return "postgres" }

// Rebind turns each ? outside quotes into $1, $2, ….
func (dialect) Rebind(query string) string {
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	var quote byte
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Migrations returns the PostgreSQL schema's migrations.
func (dialect) Migrations() fs.FS {
	return store.Migrations(store.SchemaWords{Int64: "BIGINT", Bytes: "BYTEA", Float64: "DOUBLE PRECISION", Strict: ""})
}

// LockMigrations takes the session-level advisory lock on conn: replicas that
// start together wait here for the first to finish.
func (dialect) LockMigrations(ctx context.Context, conn *sql.Conn) (unlock func(), err error) {
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock($1)`, migrationLockKey); err != nil {
		return nil, fmt.Errorf("store: migration lock: %w", err)
	}
	return func() {
		// A failed unlock is released when the connection closes; close it then.
		if _, err := conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, migrationLockKey); err != nil {
			conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}, nil
}
