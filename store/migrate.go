package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
)

// migrate applies, in order and each in its own transaction, the dialect's
// migrations the database has not seen yet. It runs on one connection that holds
// the dialect's migration lock, so replicas starting together apply each
// migration once.
func (db *DB) migrate(ctx context.Context) error {
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer conn.Close()
	unlock, err := db.dialect.LockMigrations(ctx, conn)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("store: migrations table: %w", err)
	}
	migrations := db.dialect.Migrations()
	entries, err := fs.ReadDir(migrations, ".")
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		name := e.Name()
		version, err := strconv.Atoi(strings.SplitN(name, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("store: migration %s: name must start with a number", name)
		}
		body, err := fs.ReadFile(migrations, name)
		if err != nil {
			return err
		}
		if err := db.applyMigration(ctx, conn, version, name, string(body)); err != nil {
			return err
		}
	}
	return nil
}

// applyMigration runs one migration on conn in a transaction unless it is
// recorded as applied.
func (db *DB) applyMigration(ctx context.Context, conn *sql.Conn, version int, name, body string) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, db.q(`SELECT COUNT(*) FROM schema_migrations WHERE version = ?`), version).Scan(&n); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, body); err != nil {
		return fmt.Errorf("store: migration %s: %w", name, err)
	}
	if _, err := tx.ExecContext(ctx, db.q(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`),
		version, name, millis(time.Now())); err != nil {
		return fmt.Errorf("store: migration %s: %w", name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: migration %s: commit: %w", name, err)
	}
	return nil
}
