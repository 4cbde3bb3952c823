package sqlite

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/leakui/leakui/jobs"
	storesqlite "github.com/leakui/leakui/store/sqlite"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type noteArgs struct {
	N int `json:"n"`
}

func (noteArgs) Kind() string { return "test_note" }

// River's tables live in the store's file beside the store's, migrated at
// open; while another connection holds SQLite's write lock for seconds (as
// an upload's transaction does), River's writes wait for it and the jobs are
// done once it is released, and the store works on throughout.
func TestSharesTheStoresFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := storesqlite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	path := filepath.Join(dir, storesqlite.File)
	b, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// Opening again finds River's migrations applied.
	again, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("opening River's tables a second time: %v", err)
	}
	again.Close()

	r := jobs.New(b, jobs.Config{Queues: map[string]int{jobs.DefaultQueue: 2}, PollInterval: 50 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	done := make(chan int, 10)
	jobs.Register(r, jobs.WorkFunc[noteArgs](func(_ context.Context, a noteArgs, _ jobs.Progress) error {
		done <- a.N
		return nil
	}), jobs.Kind{})
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() {
		began := time.Now()
		if err := r.Stop(ctx); err != nil {
			t.Errorf("stopping: %v", err)
		}
		t.Logf("stopped in %s", time.Since(began))
	}()

	// Another writer holds the write lock for 3 s.
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	tx, err := raw.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`CREATE TABLE held (x INTEGER)`); err != nil {
		t.Fatal(err)
	}
	inserted := make(chan error, 1)
	go func() {
		var err error
		for i := range 3 {
			if _, err = r.Insert(ctx, noteArgs{i}, jobs.InsertOptions{}); err != nil {
				break
			}
		}
		inserted <- err
	}()
	// Reads go on while the lock is held.
	if _, _, _, err := db.Counts(ctx); err != nil {
		t.Errorf("the store's read while the write lock is held: %v", err)
	}
	time.Sleep(3 * time.Second)
	select {
	case n := <-done:
		t.Errorf("job %d ran while its insert could not be written", n)
	default:
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-inserted; err != nil {
		t.Fatalf("inserting while the write lock was held: %v", err)
	}
	for range 3 {
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("the jobs were not done after the write lock was released")
		}
	}
	if err := db.CreateSession(ctx, "0123456789abcdef0123456789abcdef", time.Now().Add(time.Hour)); err != nil {
		t.Errorf("the store's write beside River's: %v", err)
	}
	var tables int
	if err := raw.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('river_job', 'river_migration', 'reports')`).Scan(&tables); err != nil || tables != 3 {
		t.Errorf("tables of River and the store in the file: %d (%v), want 3", tables, err)
	}
}
