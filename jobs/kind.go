package jobs

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Args are a job's arguments, stored as JSON in the job's row; Kind names the
// kind of job they belong to (a short word such as "heap_dump_analysis",
// registered once with Register).
type Args interface {
	Kind() string
}

// Progress reports how far a job has gone: the stage it is in and the
// fraction of it done (0 to 1). It is cheap to call often.
type Progress func(stage string, done float64)

// A Worker does the work of one kind of job. Work returns nil when the job is
// done, an error to try it again later (with back-off, up to the kind's
// attempts), or an error wrapped by Fail to end it at once. ctx is cancelled
// when the runner stops or the job is cancelled; Work then returns promptly.
type Worker[A Args] interface {
	Work(ctx context.Context, args A, progress Progress) error
}

// WorkFunc is a function as a Worker.
type WorkFunc[A Args] func(ctx context.Context, args A, progress Progress) error

// Work calls f.
func (f WorkFunc[A]) Work(ctx context.Context, args A, progress Progress) error {
	return f(ctx, args, progress)
}

// Kind says how the jobs of one kind run.
type Kind struct {
	// Queue is the queue its jobs wait in (DefaultQueue when empty); the
	// runner's Config.Queues says how many of a queue's jobs run at once in
	// this process.
	Queue string
	// MaxAttempts bounds the attempts of one job (DefaultAttempts when 0).
	MaxAttempts int
	// Timeout bounds one attempt (none when 0).
	Timeout time.Duration
	// Backoff is the wait after the attempt-th failed attempt (from 1);
	// DefaultBackoff when nil.
	Backoff func(attempt int) time.Duration
	// MaxPerClient bounds the jobs one client (InsertOptions.Client) may have
	// queued or running (no bound when 0); Insert answers ErrClientLimit
	// beyond.
	MaxPerClient int
}

// DefaultQueue is the queue of the kinds that name none.
const DefaultQueue = "default"

// DefaultAttempts is how many times a job is tried by default.
const DefaultAttempts = 6

// DefaultBackoff waits 5 s after the first failed attempt, doubling after each
// next one up to 2 minutes.
func DefaultBackoff(attempt int) time.Duration {
	d := 5 * time.Second
	for i := 1; i < attempt && d < 2*time.Minute; i++ {
		d *= 2
	}
	return min(d, 2*time.Minute)
}

// ErrFailed marks a job that failed for good (the input's fault, a bug): it
// is not tried again. Wrap an error with Fail to say so.
var ErrFailed = errors.New("failed for good")

// Fail wraps err so that the job fails at once, without another attempt.
func Fail(err error) error {
	if err == nil {
		return nil
	}
	return &failed{err}
}

type failed struct{ err error }

func (f *failed) Error() string        { return f.err.Error() }
func (f *failed) Unwrap() []error      { return []error{f.err, ErrFailed} }
func (f *failed) Is(target error) bool { return target == ErrFailed }

// ErrPanicked is a job whose work panicked (a bug): it fails without another
// attempt, with the panic's value and stack in the log.
var ErrPanicked = errors.New("the job's work panicked")

// Register adds a kind of job, worked by w, to the runner. Register every kind
// before Start; a job of a kind no runner registers waits, then is discarded.
func Register[A Args](r *Runner, w Worker[A], k Kind) {
	var zero A
	kind := zero.Kind()
	if k.Queue == "" {
		k.Queue = DefaultQueue
	}
	if k.MaxAttempts <= 0 {
		k.MaxAttempts = DefaultAttempts
	}
	if k.Backoff == nil {
		k.Backoff = DefaultBackoff
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		panic("jobs: Register after Start")
	}
	if _, ok := r.kinds[kind]; ok {
		panic("jobs: kind " + kind + " registered twice")
	}
	r.kinds[kind] = k
	river.AddWorker(r.workers, &worker[A]{r: r, w: w, kind: k})
}

// worker runs a Worker under River, with the runner's heartbeat, progress,
// fairness and failure rules.
type worker[A Args] struct {
	river.WorkerDefaults[A]
	r    *Runner
	w    Worker[A]
	kind Kind
}

// Timeout is the kind's bound for the attempts this process runs (none when
// the kind has none). River's rescuer asks it too, on the leader, about jobs
// that look stuck: for a job another process attempted, it answers
// RescueAfter, so that a job whose heartbeat stopped that long ago (its process
// died) is rescued, whatever the kind's own bound.
func (w *worker[A]) Timeout(job *river.Job[A]) time.Duration {
	if n := len(job.AttemptedBy); n > 0 && job.AttemptedBy[n-1] != w.r.id {
		return w.r.rescueAfter
	}
	if w.kind.Timeout > 0 {
		return w.kind.Timeout
	}
	return -1
}

// NextRetry is when a failed attempt is tried again: after the kind's
// back-off, or the wait the attempt asked for (RetryAfter) when longer.
func (w *worker[A]) NextRetry(job *river.Job[A]) time.Time {
	wait := w.kind.Backoff(max(job.Attempt, 1))
	w.r.mu.Lock()
	if asked, ok := w.r.retryAfter[job.ID]; ok {
		delete(w.r.retryAfter, job.ID)
		wait = max(wait, asked)
	}
	w.r.mu.Unlock()
	return time.Now().Add(wait)
}

// RetryAfter wraps err, an attempt's failure, so that the next attempt waits
// at least d (a receiver's Retry-After), or the kind's back-off when longer;
// capped at MaxRetryAfter. The attempt counts as one of the kind's.
func RetryAfter(err error, d time.Duration) error {
	if err == nil {
		return nil
	}
	return &retryAfter{err: err, wait: min(max(d, 0), MaxRetryAfter)}
}

// MaxRetryAfter bounds the wait an attempt may ask for.
const MaxRetryAfter = time.Hour

type retryAfter struct {
	err  error
	wait time.Duration
}

func (e *retryAfter) Error() string { return e.err.Error() }
func (e *retryAfter) Unwrap() error { return e.err }

// Work runs one attempt.
func (w *worker[A]) Work(ctx context.Context, job *river.Job[A]) (err error) {
	var meta jobMetadata
	unmarshalMetadata(job.Metadata, &meta)
	client := meta.Client
	run := w.r.begin(job.JobRow)
	defer func() {
		w.r.end(job.JobRow, run)
		if client != "" && !w.r.stopping.Load() {
			w.r.turnEnded(job.JobRow, client)
		}
	}()
	defer func() {
		if p := recover(); p != nil {
			w.r.log.Error("a job's work panicked", "job", job.ID, "kind", job.Kind, "panic", p, "stack", string(debug.Stack()))
			err = river.JobCancel(fmt.Errorf("%w: %v", ErrPanicked, p))
		}
	}()
	outcome := "failed" // a panic
	if observe := w.r.cfg.Observe; observe != nil {
		begun := time.Now()
		defer func() { observe(job.Kind, outcome, time.Since(begun)) }()
	}
	actx := context.WithValue(ctx, attemptKey{}, Attempt{ID: job.ID, Number: job.Attempt, ScheduledAt: job.ScheduledAt, Tick: meta.Tick})
	err = w.w.Work(actx, job.Args, run.report)
	switch {
	case err == nil:
		outcome = "done"
		return nil
	case ctx.Err() != nil && w.r.stopping.Load():
		// Stopped: River puts the job back without using an attempt when its
		// error is the context's.
		outcome = "stopped"
		return fmt.Errorf("%w (%v)", context.Canceled, err)
	case errors.Is(err, ErrFailed):
		return river.JobCancel(err)
	}
	outcome = "retry"
	if job.Attempt >= job.MaxAttempts {
		outcome = "failed"
	}
	var ra *retryAfter
	if errors.As(err, &ra) && job.Attempt < job.MaxAttempts {
		w.r.mu.Lock()
		w.r.retryAfter[job.ID] = ra.wait
		w.r.mu.Unlock()
	}
	return err
}

// fairClient returns the client a fair job belongs to ("" for none).
func fairClient(job *rivertype.JobRow) string {
	var m jobMetadata
	if err := unmarshalMetadata(job.Metadata, &m); err != nil {
		return ""
	}
	return m.Client
}
