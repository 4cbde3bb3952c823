package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/leakui/leakui/jobs"
)

// River's job cleaner deletes the rows of ended jobs once they are older
// than the runner's Retention: a done, a cancelled (failed for good) and a
// discarded job are gone after their periods, while a runner that keeps River's
// defaults keeps them.
func TestEndedJobsArePruned(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		backend := db.open(t)
		work := func(_ context.Context, a flakyArgs, _ jobs.Progress) error {
			switch a.Mode {
			case "fail":
				return jobs.Fail(errors.New("bad input"))
			case "always":
				return errors.New("always failing")
			}
			return nil
		}
		newRunner := func(ret jobs.Retention) *jobs.Runner {
			cfg := testConfig(map[string]int{jobs.DefaultQueue: 2})
			cfg.Retention = ret
			r := jobs.New(backend, cfg)
			jobs.Register(r, jobs.WorkFunc[flakyArgs](work), jobs.Kind{MaxAttempts: 1})
			return r
		}
		// The first runner keeps River's defaults: the jobs end and stay.
		first := newRunner(jobs.Retention{})
		if err := first.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		ids := map[string]int64{}
		for _, mode := range []string{"ok", "fail", "always"} {
			ins, err := first.Insert(t.Context(), flakyArgs{mode}, jobs.InsertOptions{})
			if err != nil {
				t.Fatal(err)
			}
			ids[mode] = ins.ID
		}
		for _, id := range ids {
			waitFor(t, first, id, 30*time.Second, jobs.Done, jobs.Failed, jobs.Cancelled)
		}
		stop := func(r *jobs.Runner) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := r.Stop(ctx); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(1500 * time.Millisecond)
		for mode, id := range ids {
			if _, err := first.Job(t.Context(), id); err != nil {
				t.Errorf("%s: with River's retention the ended job is gone: %v", mode, err)
			}
		}
		stop(first)
		// The next runner, leader at its start, prunes what is older than a
		// second; its cleaner runs as it becomes leader.
		second := newRunner(jobs.Retention{Done: time.Second, Cancelled: time.Second, Discarded: time.Second})
		start(t, second)
		deadline := time.Now().Add(40 * time.Second)
		for mode, id := range ids {
			for {
				_, err := second.Job(t.Context(), id)
				if errors.Is(err, jobs.ErrNotFound) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: the ended job's row is still there (%v)", mode, err)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	})
}

// An attempt that fails with RetryAfter is tried again no sooner than the
// wait it asked for, even when the kind's back-off is shorter; the attempt
// counts.
func TestRetryAfterIsHonoured(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		var mu sync.Mutex
		var times []time.Time
		work := func(_ context.Context, _ flakyArgs, _ jobs.Progress) error {
			mu.Lock()
			defer mu.Unlock()
			times = append(times, time.Now())
			if len(times) == 1 {
				return jobs.RetryAfter(fmt.Errorf("429 Too Many Requests"), 2*time.Second)
			}
			return nil
		}
		r := jobs.New(db.open(t), testConfig(map[string]int{jobs.DefaultQueue: 1}))
		jobs.Register(r, jobs.WorkFunc[flakyArgs](work), jobs.Kind{MaxAttempts: 3, Backoff: func(int) time.Duration { return 100 * time.Millisecond }})
		start(t, r)
		ins, err := r.Insert(t.Context(), flakyArgs{"throttled"}, jobs.InsertOptions{})
		if err != nil {
			t.Fatal(err)
		}
		info := waitFor(t, r, ins.ID, 30*time.Second, jobs.Done, jobs.Failed)
		mu.Lock()
		defer mu.Unlock()
		if info.State != jobs.Done || info.Attempt != 2 || len(times) != 2 {
			t.Fatalf("%s after attempt %d (%d run)", info.State, info.Attempt, len(times))
		}
		if gap := times[1].Sub(times[0]); gap < 2*time.Second {
			t.Errorf("the second attempt came %s after the first, within its Retry-After of 2s", gap)
		}
	})
}
