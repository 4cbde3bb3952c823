package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"time"
)

// Sessions are the sign-ins of browsers (package web's /login): a random id in
// the browser's cookie, and in the store only its SHA-256 with the time it
// expires, so that a copy of the database signs nobody in. Every replica on
// the same database sees the same sessions; /logout deletes one. Copy and
// Verify leave them out: after a migration, browsers sign in again.

// sessionKey is what the store keeps of a session id.
func sessionKey(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:])
}

// CreateSession records a new session id that is valid until expires.
func (db *DB) CreateSession(ctx context.Context, id string, expires time.Time) error {
	if len(id) < 16 {
		return fmt.Errorf("%w: a session id needs at least 16 characters", ErrInvalid)
	}
	now := time.Now()
	return db.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, db.q(`INSERT INTO sessions (id_sha256, created_at, expires_at) VALUES (?, ?, ?)`),
			sessionKey(id), millis(now), millis(expires)); err != nil {
			return fmt.Errorf("store: session: %w", err)
		}
		return nil
	})
}

// SessionValid reports whether id is a session that has not expired at now
// nor been deleted.
func (db *DB) SessionValid(ctx context.Context, id string, now time.Time) (bool, error) {
	var n int
	err := db.read.QueryRowContext(ctx, db.q(`SELECT COUNT(*) FROM sessions WHERE id_sha256 = ? AND expires_at > ?`),
		sessionKey(id), millis(now)).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("store: session: %w", err)
	}
	return n > 0, nil
}

// DeleteSession ends a session (a sign-out); an unknown id is no error.
func (db *DB) DeleteSession(ctx context.Context, id string) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, db.q(`DELETE FROM sessions WHERE id_sha256 = ?`), sessionKey(id)); err != nil {
			return fmt.Errorf("store: session: %w", err)
		}
		return nil
	})
}

// DeleteExpiredSessions removes the sessions that expired before now and
// returns how many.
func (db *DB) DeleteExpiredSessions(ctx context.Context, now time.Time) (int, error) {
	var n int64
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, db.q(`DELETE FROM sessions WHERE expires_at <= ?`), millis(now))
		if err != nil {
			return fmt.Errorf("store: sessions: %w", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return int(n), err
}
