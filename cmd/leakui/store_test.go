package main

import (
	"context"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/pgtest"
	"github.com/leakui/leakui/jobs"
)

type storeJobArgs struct{}

func (storeJobArgs) Kind() string { return "test_store_job" }

// openJobs puts the job system in the store's database: the SQLite file of
// the data directory, or the same PostgreSQL database; a job inserted there
// runs.
func TestOpenJobsBesideTheStore(t *testing.T) {
	for _, c := range []struct {
		name string
		dsn  func(t testing.TB) string
	}{
		{"sqlite", func(t testing.TB) string { return t.TempDir() }},
		{"postgres", pgtest.DSN},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			dsn := c.dsn(t)
			db, err := openStore(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			b, err := openJobs(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if b.Name() != db.Backend() {
				t.Errorf("jobs on %s beside a store on %s", b.Name(), db.Backend())
			}
			r := jobs.New(b, jobs.Config{Queues: map[string]int{jobs.DefaultQueue: 1}, PollInterval: 50 * time.Millisecond})
			ran := make(chan struct{}, 1)
			jobs.Register(r, jobs.WorkFunc[storeJobArgs](func(context.Context, storeJobArgs, jobs.Progress) error {
				ran <- struct{}{}
				return nil
			}), jobs.Kind{})
			if err := r.Start(ctx); err != nil {
				t.Fatal(err)
			}
			defer r.Stop(context.Background())
			if _, err := r.Insert(ctx, storeJobArgs{}, jobs.InsertOptions{}); err != nil {
				t.Fatal(err)
			}
			select {
			case <-ran:
			case <-time.After(30 * time.Second):
				t.Fatal("the job did not run")
			}
		})
	}
}
