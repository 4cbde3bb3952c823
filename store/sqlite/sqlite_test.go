package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The SQLite store is a WAL file with foreign keys on, in the data directory.
func TestSettings(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := os.Stat(filepath.Join(dir, File)); err != nil {
		t.Error(err)
	}
	if db.Backend() != "sqlite" {
		t.Errorf("backend %q", db.Backend())
	}
	write, read, _, err := openPools(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer write.Close()
	defer read.Close()
	var mode string
	if err := read.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q (%v), want wal", mode, err)
	}
	var fk int
	if err := write.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d (%v), want 1", fk, err)
	}
}
