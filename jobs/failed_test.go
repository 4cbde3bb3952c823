package jobs_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/jobs"
)

// Failed lists the jobs that failed for good (one failed by its work, one
// that panicked), newest first with their errors, and not those cancelled
// (queued or running); the snapshot counts the two as failed and the two
// cancelled as cancelled.
func TestFailedJobs(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		g := newGate()
		work := func(ctx context.Context, a flakyArgs, _ jobs.Progress) error {
			if a.Mode == "panic" {
				panic("a bug")
			}
			return jobs.Fail(errors.New("the input is bad"))
		}
		r := jobs.New(db.open(t), testConfig(map[string]int{jobs.DefaultQueue: 1}))
		jobs.Register(r, jobs.WorkFunc[flakyArgs](work), jobs.Kind{MaxAttempts: 3})
		jobs.Register(r, jobs.WorkFunc[holdArgs](g.work), jobs.Kind{})
		start(t, r)
		var failed []int64
		for _, mode := range []string{"fail", "panic"} {
			ins, err := r.Insert(t.Context(), flakyArgs{mode}, jobs.InsertOptions{})
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, r, ins.ID, 30*time.Second, jobs.Failed)
			failed = append(failed, ins.ID)
		}
		running, err := r.Insert(t.Context(), holdArgs{"running"}, jobs.InsertOptions{})
		if err != nil {
			t.Fatal(err)
		}
		g.waitBegun(t, "running")
		queued, err := r.Insert(t.Context(), holdArgs{"queued"}, jobs.InsertOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []int64{queued.ID, running.ID} {
			if err := r.Cancel(t.Context(), id); err != nil {
				t.Fatal(err)
			}
			waitFor(t, r, id, 10*time.Second, jobs.Cancelled)
		}

		got, err := r.Failed(t.Context(), 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].ID != failed[1] || got[1].ID != failed[0] {
			t.Fatalf("failed jobs %+v, want %v newest first", got, failed)
		}
		if !strings.Contains(got[0].Error, "panicked: a bug") || !strings.Contains(got[1].Error, "the input is bad") || got[0].Ended.IsZero() {
			t.Errorf("failed jobs' errors %q, %q (ended %v)", got[0].Error, got[1].Error, got[0].Ended)
		}
		if one, err := r.Failed(t.Context(), 1); err != nil || len(one) != 1 || one[0].ID != failed[1] {
			t.Errorf("the newest failed job: %+v %v", one, err)
		}
		s, err := r.Snapshot(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range s.Queues {
			if q.Name == jobs.DefaultQueue && (q.Failed != 2 || q.Cancelled != 2) {
				t.Errorf("queue %s: %d failed, %d cancelled; want 2 and 2", q.Name, q.Failed, q.Cancelled)
			}
		}
	})
}
