package store_test

import (
	"context"
	"testing"
	"time"
)

// testSessions checks the session lifecycle on a backend: a new id is valid,
// an unknown one is not, a deleted one no longer is, one past its expiry is
// not and is swept by DeleteExpiredSessions, and a second store on the same
// database (another replica) sees the same sessions. The store keeps only the
// ids' hashes.
func testSessions(t *testing.T, dsn string) {
	ctx := context.Background()
	a, b := openStore(t, dsn), openStore(t, dsn)
	now := time.Now()
	const live, ended, old = "live-session-id-0123456789", "ended-session-id-0123456789", "old-session-id-0123456789"
	for id, expires := range map[string]time.Time{live: now.Add(time.Hour), ended: now.Add(time.Hour), old: now.Add(-time.Minute)} {
		if err := a.CreateSession(ctx, id, expires); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.CreateSession(ctx, "short", now.Add(time.Hour)); err == nil {
		t.Error("a short session id was accepted")
	}
	if err := b.DeleteSession(ctx, ended); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{live: true, ended: false, old: false, "unknown-session-id-0123456789": false} {
		for name, db := range map[string]interface {
			SessionValid(context.Context, string, time.Time) (bool, error)
		}{"a": a, "b": b} {
			if ok, err := db.SessionValid(ctx, id, now); err != nil || ok != want {
				t.Errorf("store %s: SessionValid(%s) = %v, %v; want %v", name, id, ok, err, want)
			}
		}
	}
	if n, err := a.DeleteExpiredSessions(ctx, now); err != nil || n != 1 {
		t.Errorf("DeleteExpiredSessions = %d, %v; want the 1 expired", n, err)
	}
	if ok, _ := a.SessionValid(ctx, live, now.Add(2*time.Hour)); ok {
		t.Error("a session is valid after it expired")
	}
}
