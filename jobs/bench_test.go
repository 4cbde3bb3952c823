package jobs_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/leakui/leakui/internal/pgtest"
	"github.com/leakui/leakui/jobs"
)

// benchArgs is a job that does nothing; Inserted is when it was inserted.
type benchArgs struct {
	Inserted int64  `json:"inserted"`
	Pad      string `json:"pad,omitempty"`
}

func (benchArgs) Kind() string { return "bench_noop" }

// BenchmarkJobs inserts b.N jobs one after the other into a runner with
// workers-N workers and waits until all are done: jobs/s is the throughput end
// to end, insert-µs an insert's time, start-ms-p50/p99 the time from an insert
// to its work's start, B/job the river_job table's size per job once they are
// done (rows kept for River's retention). fair inserts them for 8 clients;
// idle inserts each job once the one before has started (a lone job's
// latency).
func BenchmarkJobs(b *testing.B) {
	for _, backend := range []string{"sqlite", "postgres"} {
		for _, mode := range []struct {
			name           string
			workers        int
			fair, oneByOne bool
		}{
			{"plain/workers-2", 2, false, false},
			{"fair/workers-2", 2, true, false},
			{"plain/workers-50", 50, false, false},
			{"idle/workers-2", 2, false, true},
		} {
			b.Run(backend+"/"+mode.name, func(b *testing.B) {
				db := database{backend, ""}
				if backend == "sqlite" {
					db.url = filepath.Join(b.TempDir(), "leakui.db")
				} else {
					db.url = pgtest.DSN(b)
				}
				benchJobs(b, db, mode.workers, mode.fair, mode.oneByOne)
			})
		}
	}
}

func benchJobs(b *testing.B, db database, workers int, fair, oneByOne bool) {
	backend := db.open(b)
	r := jobs.New(backend, jobs.Config{Queues: map[string]int{jobs.DefaultQueue: workers}, Logger: quietLogger()})
	started := make(chan struct{}, 1)
	var mu sync.Mutex
	var waits []time.Duration
	all := make(chan struct{})
	jobs.Register(r, jobs.WorkFunc[benchArgs](func(_ context.Context, a benchArgs, _ jobs.Progress) error {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, time.Since(time.Unix(0, a.Inserted)))
		select {
		case started <- struct{}{}:
		default:
		}
		if len(waits) == b.N {
			close(all)
		}
		return nil
	}), jobs.Kind{})
	if err := r.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer r.Stop(context.Background())
	b.ResetTimer()
	began := time.Now()
	var inserting time.Duration
	for i := range b.N {
		opts := jobs.InsertOptions{}
		if fair {
			opts.Client = fmt.Sprintf("127.0.0.%d", i%8)
		}
		t0 := time.Now()
		if _, err := r.Insert(context.Background(), benchArgs{Inserted: t0.UnixNano()}, opts); err != nil {
			b.Fatal(err)
		}
		inserting += time.Since(t0)
		if oneByOne {
			<-started
		}
	}
	select {
	case <-all:
	case <-time.After(10 * time.Minute):
		b.Fatal("the jobs were not all done")
	}
	elapsed := time.Since(began)
	b.StopTimer()
	// Wait for the completions to be written, then measure the table.
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := r.Snapshot(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if s.Queues[0].Done == b.N || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	slices.Sort(waits)
	p50, p99 := waits[len(waits)/2], waits[len(waits)*99/100]
	mu.Unlock()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "jobs/s")
	b.ReportMetric(float64(inserting.Microseconds())/float64(b.N), "insert-µs")
	b.ReportMetric(float64(p50.Microseconds())/1000, "start-ms-p50")
	b.ReportMetric(float64(p99.Microseconds())/1000, "start-ms-p99")
	if size := tableBytes(b, db); size > 0 {
		b.ReportMetric(float64(size)/float64(b.N), "B/job")
	}
}

// tableBytes is the size of river_job and its indexes.
func tableBytes(b *testing.B, db database) int64 {
	var conn *sql.DB
	var err error
	var query string
	if db.name == "sqlite" {
		conn, err = sql.Open("sqlite", "file:"+db.url+"?mode=ro")
		query = `SELECT sum(pgsize) FROM dbstat WHERE name = 'river_job' OR name IN (SELECT name FROM sqlite_master WHERE tbl_name = 'river_job')`
	} else {
		conn, err = sql.Open("pgx", db.url)
		query = `SELECT pg_total_relation_size('river_job')`
	}
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	var n int64
	if err := conn.QueryRow(query).Scan(&n); err != nil {
		b.Logf("the table's size: %v", err)
		return 0
	}
	return n
}
