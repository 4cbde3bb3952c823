package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leakui/leakui/jobs"
)

type holdArgs struct {
	Name string `json:"name"`
}

func (holdArgs) Kind() string { return "test_hold" }

// gate lets a test hold jobs in their work until it opens it.
type gate struct {
	mu      sync.Mutex
	started []string // the names of the jobs begun, in order
	begun   chan string
	open    chan struct{}
}

func newGate() *gate { return &gate{begun: make(chan string, 64), open: make(chan struct{})} }

func (g *gate) work(ctx context.Context, a holdArgs, progress jobs.Progress) error {
	g.mu.Lock()
	g.started = append(g.started, a.Name)
	g.mu.Unlock()
	progress("holding", 0.5)
	g.begun <- a.Name
	select {
	case <-g.open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gate) order() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.started...)
}

func (g *gate) waitBegun(t *testing.T, name string) {
	t.Helper()
	select {
	case got := <-g.begun:
		if got != name {
			t.Fatalf("job %q began, want %q", got, name)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("job %q did not begin", name)
	}
}

// A job runs, tells its progress to this process and, through its row, to
// another replica, and is done once its work returns.
func TestRunsAJobWithProgress(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		b := db.open(t)
		g := newGate()
		r := jobs.New(b, testConfig(map[string]int{jobs.DefaultQueue: 1}))
		jobs.Register(r, jobs.WorkFunc[holdArgs](g.work), jobs.Kind{})
		start(t, r)
		// An insert-only replica on the same database.
		other := jobs.New(db.open(t), testConfig(nil))
		jobs.Register(other, jobs.WorkFunc[holdArgs](g.work), jobs.Kind{})
		start(t, other)

		ins, err := other.Insert(t.Context(), holdArgs{"a"}, jobs.InsertOptions{})
		if err != nil {
			t.Fatal(err)
		}
		g.waitBegun(t, "a")
		here := waitFor(t, r, ins.ID, 10*time.Second, jobs.Running)
		if !here.Here || here.Stage != "holding" || here.Percent != 50 || here.Process != r.ID() {
			t.Errorf("the running job as its runner sees it: %+v", here)
		}
		// The progress reaches the row within a second or two.
		deadline := time.Now().Add(10 * time.Second)
		for {
			there, err := other.Job(t.Context(), ins.ID)
			if err != nil {
				t.Fatal(err)
			}
			if there.Stage == "holding" && there.Percent == 50 && !there.Here && there.Process == r.ID() && !there.Started.IsZero() {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("another replica sees the running job as %+v", there)
			}
			time.Sleep(50 * time.Millisecond)
		}
		close(g.open)
		done := waitFor(t, other, ins.ID, 10*time.Second, jobs.Done, jobs.Failed, jobs.Cancelled)
		var args holdArgs
		json.Unmarshal(done.Args, &args)
		if done.State != jobs.Done || done.Attempt != 1 || args.Name != "a" {
			t.Errorf("the job once done: %+v (args %s)", done, done.Args)
		}
	})
}

type flakyArgs struct {
	Mode string `json:"mode"` // "transient", "fail", "panic", "always"
}

func (flakyArgs) Kind() string { return "test_flaky" }

// A failed attempt is tried again after its back-off until it succeeds; an
// error wrapped by Fail and a panic end the job at once; a job out of
// attempts fails.
func TestRetriesWithBackoff(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		const backoff = 300 * time.Millisecond
		var mu sync.Mutex
		attempts := map[string][]time.Time{}
		work := func(ctx context.Context, a flakyArgs, _ jobs.Progress) error {
			mu.Lock()
			attempts[a.Mode] = append(attempts[a.Mode], time.Now())
			n := len(attempts[a.Mode])
			mu.Unlock()
			switch a.Mode {
			case "transient":
				if n < 3 {
					return fmt.Errorf("transient failure %d", n)
				}
				return nil
			case "fail":
				return jobs.Fail(errors.New("the input is bad"))
			case "panic":
				panic("a bug")
			}
			return errors.New("always failing")
		}
		r := jobs.New(db.open(t), testConfig(map[string]int{jobs.DefaultQueue: 2}))
		jobs.Register(r, jobs.WorkFunc[flakyArgs](work), jobs.Kind{MaxAttempts: 3,
			Backoff: func(int) time.Duration { return backoff }})
		start(t, r)
		ids := map[string]int64{}
		for _, mode := range []string{"transient", "fail", "panic", "always"} {
			ins, err := r.Insert(t.Context(), flakyArgs{mode}, jobs.InsertOptions{})
			if err != nil {
				t.Fatal(err)
			}
			ids[mode] = ins.ID
		}
		for mode, want := range map[string]struct {
			state    jobs.State
			attempts int
			err      string
		}{
			"transient": {jobs.Done, 3, "transient failure 2"},
			"fail":      {jobs.Failed, 1, "the input is bad"},
			"panic":     {jobs.Failed, 1, "panicked: a bug"},
			"always":    {jobs.Failed, 3, "always failing"},
		} {
			info := waitFor(t, r, ids[mode], 30*time.Second, jobs.Done, jobs.Failed, jobs.Cancelled)
			mu.Lock()
			times := attempts[mode]
			mu.Unlock()
			if info.State != want.state || info.Attempt != want.attempts || len(times) != want.attempts || !strings.Contains(info.Error, want.err) {
				t.Errorf("%s: %s after attempt %d (%d run), error %q; want %s after %d, error %q",
					mode, info.State, info.Attempt, len(times), info.Error, want.state, want.attempts, want.err)
			}
			for i := 1; i < len(times); i++ {
				if gap := times[i].Sub(times[i-1]); gap < backoff {
					t.Errorf("%s: attempt %d began %s after the one before, within the back-off of %s", mode, i+1, gap, backoff)
				}
			}
		}
	})
}

// Stop cancels the running job's context and waits for it; the job goes back
// to its queue without using an attempt, and the next runner finishes it.
func TestStopCancelsRunningJobs(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		g := newGate()
		cancelled := make(chan error, 1)
		r := jobs.New(db.open(t), testConfig(map[string]int{jobs.DefaultQueue: 1}))
		jobs.Register(r, jobs.WorkFunc[holdArgs](func(ctx context.Context, a holdArgs, p jobs.Progress) error {
			err := g.work(ctx, a, p)
			cancelled <- err
			return err
		}), jobs.Kind{})
		if err := r.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		ins, err := r.Insert(t.Context(), holdArgs{"long"}, jobs.InsertOptions{})
		if err != nil {
			t.Fatal(err)
		}
		g.waitBegun(t, "long")
		began := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := r.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		t.Logf("Stop returned %s after it was called", time.Since(began))
		select {
		case err := <-cancelled:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("the work returned %v, want its context cancelled", err)
			}
		default:
			t.Fatal("Stop returned before the running job's work did")
		}

		next := jobs.New(db.open(t), testConfig(map[string]int{jobs.DefaultQueue: 1}))
		jobs.Register(next, jobs.WorkFunc[holdArgs](func(context.Context, holdArgs, jobs.Progress) error { return nil }), jobs.Kind{})
		start(t, next)
		info := waitFor(t, next, ins.ID, 30*time.Second, jobs.Done, jobs.Failed)
		if info.State != jobs.Done || info.Attempt != 1 || info.Process != next.ID() {
			t.Errorf("after the stop, the next runner ended the job as %+v; want done by %s at attempt 1 (the stopped one not counted)", info, next.ID())
		}
	})
}

// Cancel ends a queued job at once and a running one through its context.
func TestCancel(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		g := newGate()
		r := jobs.New(db.open(t), testConfig(map[string]int{jobs.DefaultQueue: 1}))
		jobs.Register(r, jobs.WorkFunc[holdArgs](g.work), jobs.Kind{})
		start(t, r)
		running, err := r.Insert(t.Context(), holdArgs{"running"}, jobs.InsertOptions{})
		if err != nil {
			t.Fatal(err)
		}
		g.waitBegun(t, "running")
		queued, err := r.Insert(t.Context(), holdArgs{"queued"}, jobs.InsertOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Cancel(t.Context(), queued.ID); err != nil {
			t.Fatal(err)
		}
		if info := waitFor(t, r, queued.ID, 10*time.Second, jobs.Cancelled, jobs.Done, jobs.Failed); info.State != jobs.Cancelled || info.Attempt != 0 {
			t.Errorf("the queued job once cancelled: %+v", info)
		}
		if err := r.Cancel(t.Context(), running.ID); err != nil {
			t.Fatal(err)
		}
		if info := waitFor(t, r, running.ID, 10*time.Second, jobs.Cancelled, jobs.Done, jobs.Failed); info.State != jobs.Cancelled {
			t.Errorf("the running job once cancelled: %+v", info)
		}
		if err := r.Cancel(t.Context(), 1<<40); !errors.Is(err, jobs.ErrNotFound) {
			t.Errorf("cancelling a job that does not exist: %v, want ErrNotFound", err)
		}
		if got := g.order(); len(got) != 1 {
			t.Errorf("jobs begun: %v, want only the running one", got)
		}
	})
}

// An insert unique by its arguments is skipped while the same job exists.
func TestUniqueInsert(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		r := jobs.New(db.open(t), testConfig(nil))
		jobs.Register(r, jobs.WorkFunc[holdArgs](newGate().work), jobs.Kind{})
		start(t, r)
		first, err := r.Insert(t.Context(), holdArgs{"x"}, jobs.InsertOptions{Unique: jobs.Unique{ByArgs: true}})
		if err != nil {
			t.Fatal(err)
		}
		again, err := r.Insert(t.Context(), holdArgs{"x"}, jobs.InsertOptions{Unique: jobs.Unique{ByArgs: true}})
		if err != nil {
			t.Fatal(err)
		}
		other, err := r.Insert(t.Context(), holdArgs{"y"}, jobs.InsertOptions{Unique: jobs.Unique{ByArgs: true}})
		if err != nil {
			t.Fatal(err)
		}
		if first.Duplicate || !again.Duplicate || again.ID != first.ID || other.Duplicate || other.ID == first.ID {
			t.Errorf("inserts: %+v, %+v, %+v; want the second a duplicate of the first", first, again, other)
		}
		// Unique by period: the same job again in the same hour is a duplicate.
		hour := jobs.InsertOptions{Unique: jobs.Unique{ByPeriod: time.Hour}}
		p1, err := r.Insert(t.Context(), holdArgs{"p"}, hour)
		if err != nil {
			t.Fatal(err)
		}
		p2, err := r.Insert(t.Context(), holdArgs{"p"}, hour)
		if err != nil {
			t.Fatal(err)
		}
		if p1.Duplicate || !p2.Duplicate || p2.ID != p1.ID {
			t.Errorf("inserts unique by the hour: %+v, %+v; want the second a duplicate", p1, p2)
		}
		if _, err := r.Insert(t.Context(), flakyArgs{}, jobs.InsertOptions{}); !errors.Is(err, jobs.ErrUnknownKind) {
			t.Errorf("inserting a kind not registered: %v, want ErrUnknownKind", err)
		}
	})
}

// The snapshot counts the jobs of each queue by state and kind, with the
// running ones and how long the first waiting one has waited.
func TestSnapshot(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		g := newGate()
		r := jobs.New(db.open(t), testConfig(map[string]int{jobs.DefaultQueue: 1}))
		jobs.Register(r, jobs.WorkFunc[holdArgs](g.work), jobs.Kind{})
		jobs.Register(r, jobs.WorkFunc[flakyArgs](func(context.Context, flakyArgs, jobs.Progress) error { return nil }), jobs.Kind{})
		start(t, r)
		done, err := r.Insert(t.Context(), flakyArgs{"ok"}, jobs.InsertOptions{})
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, r, done.ID, 10*time.Second, jobs.Done)
		if _, err := r.Insert(t.Context(), holdArgs{"1"}, jobs.InsertOptions{}); err != nil {
			t.Fatal(err)
		}
		g.waitBegun(t, "1")
		for _, name := range []string{"2", "3"} {
			if _, err := r.Insert(t.Context(), holdArgs{name}, jobs.InsertOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(100 * time.Millisecond)
		s, err := r.Snapshot(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Queues) != 1 {
			t.Fatalf("queues: %+v", s.Queues)
		}
		q := s.Queues[0]
		want := jobs.Counts{Queued: 2, Running: 1, Done: 1}
		if q.Name != jobs.DefaultQueue || q.Workers != 1 || q.Counts != want || q.Kinds["test_hold"] != (jobs.Counts{Queued: 2, Running: 1}) ||
			q.Kinds["test_flaky"] != (jobs.Counts{Done: 1}) || q.OldestWait < 100*time.Millisecond || s.Backend != db.name {
			t.Errorf("snapshot: %+v, want %+v in %s with the oldest waiting 100 ms or more", q, want, db.name)
		}
		if len(s.Running) != 1 || s.Running[0].Stage != "holding" || !s.Running[0].Here {
			t.Errorf("running: %+v", s.Running)
		}
		if line := s.String(); !strings.HasPrefix(line, "jobs on "+db.name+": default 2 queued, 1 running, 0 retrying (oldest waiting") {
			t.Errorf("the snapshot's line: %q", line)
		}
		close(g.open)
	})
}

// The context given to Start bounds the start only: cancelled once Start has
// returned, it cancels no job.
func TestStartContextBoundsOnlyTheStart(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		ran := make(chan error, 1)
		r := jobs.New(db.open(t), testConfig(map[string]int{jobs.DefaultQueue: 1}))
		jobs.Register(r, jobs.WorkFunc[holdArgs](func(ctx context.Context, _ holdArgs, _ jobs.Progress) error {
			ran <- ctx.Err()
			return nil
		}), jobs.Kind{})
		ctx, cancel := context.WithCancel(context.Background())
		if err := r.Start(ctx); err != nil {
			t.Fatal(err)
		}
		cancel()
		t.Cleanup(func() {
			stop, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			r.Stop(stop)
		})
		ins, err := r.Insert(t.Context(), holdArgs{"after"}, jobs.InsertOptions{})
		if err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-ran:
			if err != nil {
				t.Fatalf("the job's context was done when it began: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the job did not run")
		}
		waitFor(t, r, ins.ID, 30*time.Second, jobs.Done)
	})
}

type outcomeArgs struct {
	Fail string `json:"fail"` // "", "retry" or "for good"
}

func (outcomeArgs) Kind() string { return "test_outcome" }

// Config.Observe is told of every attempt with its kind, its outcome and how
// long it ran.
func TestObserveAttempts(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db database) {
		var mu sync.Mutex
		var seen []string
		cfg := testConfig(map[string]int{jobs.DefaultQueue: 1})
		cfg.Observe = func(kind, outcome string, took time.Duration) {
			mu.Lock()
			defer mu.Unlock()
			if took < 20*time.Millisecond {
				t.Errorf("%s %s ran %s, less than its work", kind, outcome, took)
			}
			seen = append(seen, kind+" "+outcome)
		}
		r := jobs.New(db.open(t), cfg)
		jobs.Register(r, jobs.WorkFunc[outcomeArgs](func(ctx context.Context, a outcomeArgs, _ jobs.Progress) error {
			time.Sleep(25 * time.Millisecond)
			switch a.Fail {
			case "retry":
				return errors.New("try again")
			case "for good":
				return jobs.Fail(errors.New("bad input"))
			}
			return nil
		}), jobs.Kind{MaxAttempts: 2, Backoff: func(int) time.Duration { return 10 * time.Millisecond }})
		start(t, r)
		for _, fail := range []string{"", "for good", "retry"} {
			ins, err := r.Insert(t.Context(), outcomeArgs{Fail: fail}, jobs.InsertOptions{})
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, r, ins.ID, 30*time.Second, jobs.Done, jobs.Failed)
		}
		time.Sleep(50 * time.Millisecond) // the last attempt's observation follows its end
		mu.Lock()
		defer mu.Unlock()
		if got := strings.Join(seen, ", "); got != "test_outcome done, test_outcome failed, test_outcome retry, test_outcome failed" {
			t.Errorf("observed %s", got)
		}
	})
}
