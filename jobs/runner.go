package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// Config says how a Runner runs its jobs in this process.
type Config struct {
	// ID names this process among the replicas (in each job's attempted_by);
	// by default the host name, process id and a random suffix.
	ID string
	// Queues says how many jobs of each queue run at once in this process. A
	// runner with none only inserts and reads jobs; it works none, elects no
	// leader and inserts no periodic job.
	Queues map[string]int
	// RescueAfter is how long a running job's heartbeat may be silent before
	// the leader takes it for dead and queues it again (DefaultRescueAfter
	// when 0). The runner heartbeats its jobs every third of it.
	RescueAfter time.Duration
	// PollInterval is how often an idle queue looks for jobs that no
	// notification announced (River's default, 1 s, when 0).
	PollInterval time.Duration
	// Logger receives River's and the runner's messages (slog.Default when nil).
	Logger *slog.Logger
	// Observe, when not nil, is told of every attempt this process ran, as
	// it ends: its kind, its outcome ("done", "retry", "failed" for good, or
	// "stopped" with the runner) and how long it ran. It must not block.
	Observe func(kind, outcome string, took time.Duration)
	// Retention says how long the rows of ended jobs are kept before River's
	// job cleaner (run by the leader) deletes them.
	Retention Retention
}

// Retention is how long ended jobs' rows are kept, by how they ended; 0 is
// River's default (24 hours done or cancelled, 7 days discarded). A job's
// row is its state while it runs and shortly after (Runner.Job); what a job
// produced lives in the store, so a busy server (a watch ticking every
// second inserts 86,400 jobs a day) keeps done jobs briefly.
type Retention struct {
	// Done are the jobs that completed.
	Done time.Duration
	// Cancelled are the jobs cancelled, or failed for good (Fail).
	Cancelled time.Duration
	// Discarded are the jobs that used all their attempts.
	Discarded time.Duration
}

// DefaultRescueAfter is Config.RescueAfter's default.
const DefaultRescueAfter = time.Minute

// A Runner inserts, runs and reports the jobs of one database. Its owner
// registers the kinds (Register) and periodic jobs (AddPeriodic), starts it
// (Start) and stops it (Stop) before closing the Backend.
type Runner struct {
	backend     *Backend
	cfg         Config
	id          string
	rescueAfter time.Duration
	log         *slog.Logger
	workers     *river.Workers

	mu       sync.Mutex
	kinds    map[string]Kind
	periodic []*river.PeriodicJob
	client   riverClient
	started  bool
	stopped  bool
	running  map[int64]*run // the jobs this process runs
	// retryAfter holds the wait a failed attempt asked for (RetryAfter), by
	// job, from its Work's return to River's NextRetry.
	retryAfter map[int64]time.Duration
	changed    chan struct{} // closed (and replaced) at each change here
	stopping   atomic.Bool
	loops      sync.WaitGroup // the jobs' heartbeat loops
}

// Errors of the Runner.
var (
	// ErrClientLimit is an insert refused because its client has
	// Kind.MaxPerClient jobs of the kind queued or running.
	ErrClientLimit = errors.New("the client has the most jobs of this kind it may have queued")
	// ErrNotFound is a job that does not exist (or no longer: River deletes
	// ended jobs after its retention).
	ErrNotFound = errors.New("no such job")
	// ErrStopped is a call on a runner that is not running.
	ErrStopped = errors.New("the job runner is not running")
	// ErrUnknownKind is an insert of a kind no one registered.
	ErrUnknownKind = errors.New("no worker for this kind of job")
)

// New returns a Runner over backend; register kinds, then Start it.
func New(backend *Backend, cfg Config) *Runner {
	if cfg.ID == "" {
		host, _ := os.Hostname()
		var b [3]byte
		rand.Read(b[:])
		cfg.ID = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	r := &Runner{backend: backend, cfg: cfg, id: cfg.ID, log: cfg.Logger,
		rescueAfter: cfg.RescueAfter, workers: river.NewWorkers(),
		kinds: map[string]Kind{}, running: map[int64]*run{}, retryAfter: map[int64]time.Duration{}, changed: make(chan struct{})}
	if r.rescueAfter <= 0 {
		r.rescueAfter = DefaultRescueAfter
	}
	return r
}

// ID is this process's name among the replicas.
func (r *Runner) ID() string { return r.id }

// Backend is the name of the runner's database: "sqlite" or "postgres".
func (r *Runner) Backend() string { return r.backend.Name() }

// Start creates River's client with the registered kinds and periodic jobs
// and, when this process works queues, starts it: it fetches jobs, and takes
// part in the leader election that runs the periodic jobs, the rescue of the
// jobs of dead processes and the clean-up of ended jobs. The work goes on
// until Stop; ctx bounds only the start.
func (r *Runner) Start(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		return errors.New("jobs: Start called twice")
	}
	queues := map[string]river.QueueConfig{}
	for q, n := range r.cfg.Queues {
		if n > 0 {
			queues[q] = river.QueueConfig{MaxWorkers: n}
		}
	}
	cfg := &river.Config{
		ID:                   r.id,
		Logger:               r.log,
		Workers:              r.workers,
		JobTimeout:           -1, // each kind says its own (worker.Timeout)
		RescueStuckJobsAfter: r.rescueAfter,
		MaxAttempts:          DefaultAttempts,
		FetchPollInterval:    r.cfg.PollInterval,
		// River's job cleaner deletes the rows of ended jobs after these.
		CompletedJobRetentionPeriod: r.cfg.Retention.Done,
		CancelledJobRetentionPeriod: r.cfg.Retention.Cancelled,
		DiscardedJobRetentionPeriod: r.cfg.Retention.Discarded,
	}
	if r.cfg.PollInterval > 0 {
		cfg.FetchCooldown = min(100*time.Millisecond, r.cfg.PollInterval)
	}
	if len(queues) > 0 {
		cfg.Queues = queues
		cfg.PeriodicJobs = r.periodic
	}
	client, err := r.backend.newClient(cfg)
	if err != nil {
		return fmt.Errorf("jobs: %w", err)
	}
	if len(queues) > 0 {
		// River derives its jobs' contexts from Start's: without its
		// cancellation, so that a ctx bounding only the start does not
		// cancel every job once the start is over.
		if err := client.Start(context.WithoutCancel(ctx)); err != nil {
			return fmt.Errorf("jobs: starting: %w", err)
		}
	}
	r.client, r.started = client, true
	return nil
}

// Stop cancels the jobs running in this process and waits for them to return
// (they go back to their queue without using an attempt, for this or another
// process to run), then stops River's client. ctx bounds the wait. Close the
// Backend after.
func (r *Runner) Stop(ctx context.Context) error {
	r.mu.Lock()
	if !r.started || r.stopped {
		r.stopped = true
		r.mu.Unlock()
		return nil
	}
	r.stopped = true
	client := r.client
	queues := len(r.cfg.Queues) > 0
	r.mu.Unlock()
	r.stopping.Store(true)
	var err error
	if queues {
		err = client.StopAndCancel(ctx)
	}
	r.loops.Wait()
	r.mu.Lock()
	r.notifyLocked()
	r.mu.Unlock()
	return err
}

// clientOrErr returns River's client while the runner runs.
func (r *Runner) clientOrErr() (riverClient, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.started || r.stopped {
		return nil, ErrStopped
	}
	return r.client, nil
}

// InsertOptions are the options of one insert.
type InsertOptions struct {
	// Client is who the job is for (a client address): its jobs are served
	// round robin with other clients', and bounded by Kind.MaxPerClient.
	Client string
	// Unique skips the insert when a job of the same kind matching it exists
	// (queued, running, or ended but for cancelled and discarded ones).
	Unique Unique
	// At schedules the job for later (now when zero).
	At time.Time
}

// Unique says which existing job makes an insert a duplicate.
type Unique struct {
	// ByArgs: a job with the same arguments.
	ByArgs bool
	// ByPeriod: a job inserted in the same period (the clock truncated to it).
	ByPeriod time.Duration
}

func (u Unique) opts() river.UniqueOpts {
	return river.UniqueOpts{ByArgs: u.ByArgs, ByPeriod: u.ByPeriod}
}

// Inserted is an insert's outcome.
type Inserted struct {
	// ID is the job's (the existing one's for a duplicate).
	ID int64
	// Duplicate tells an insert skipped because of Unique.
	Duplicate bool
}

// jobMetadata is what the runner keeps in a job's metadata.
type jobMetadata struct {
	Client string    `json:"client,omitempty"`
	Tick   time.Time `json:"tick,omitzero"`
}

func unmarshalMetadata(raw []byte, v any) error {
	if len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// Insert adds a job. A fair job (opts.Client set) is inserted in a
// transaction that counts its client's jobs: ErrClientLimit when it has the
// kind's MaxPerClient, else it gets its rank as priority (fair.go).
func (r *Runner) Insert(ctx context.Context, args Args, opts InsertOptions) (Inserted, error) {
	r.mu.Lock()
	k, ok := r.kinds[args.Kind()]
	r.mu.Unlock()
	if !ok {
		return Inserted{}, fmt.Errorf("jobs: %q: %w", args.Kind(), ErrUnknownKind)
	}
	client, err := r.clientOrErr()
	if err != nil {
		return Inserted{}, err
	}
	ro := &river.InsertOpts{Queue: k.Queue, MaxAttempts: k.MaxAttempts, ScheduledAt: opts.At, UniqueOpts: opts.Unique.opts()}
	var res *rivertype.JobInsertResult
	if opts.Client == "" {
		res, err = client.Insert(ctx, args, ro)
	} else {
		res, err = r.insertFair(ctx, client, args, k, opts, ro)
	}
	if err != nil {
		if errors.Is(err, ErrClientLimit) {
			return Inserted{}, err
		}
		return Inserted{}, fmt.Errorf("jobs: inserting a %s job: %w", args.Kind(), err)
	}
	r.notify()
	return Inserted{ID: res.Job.ID, Duplicate: res.UniqueSkippedAsDuplicate}, nil
}

// Cancel cancels job id: a queued job ends at once, a running one's context is
// cancelled in the process that runs it (it ends when its work returns).
func (r *Runner) Cancel(ctx context.Context, id int64) error {
	client, err := r.clientOrErr()
	if err != nil {
		return err
	}
	row, err := client.JobCancel(ctx, id)
	if errors.Is(err, river.ErrNotFound) {
		return fmt.Errorf("jobs: job %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("jobs: cancelling job %d: %w", id, err)
	}
	if c := fairClient(row); c != "" && row.State == rivertype.JobStateCancelled {
		if err := r.stepUp(ctx, client, row.Kind, c, row.Priority, false); err != nil {
			r.log.Warn("the cancelled job's client's other jobs keep their ranks", "job", id, "err", err)
		}
	}
	r.notify()
	return nil
}

// Changed returns a channel closed at the next change seen in this process:
// a job inserted, begun, reporting progress or ended here.
func (r *Runner) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}

func (r *Runner) notify() {
	r.mu.Lock()
	r.notifyLocked()
	r.mu.Unlock()
}

func (r *Runner) notifyLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// Periodic is a job inserted on every tick of a clock aligned to Every (a
// tick every minute on the minute, every 10 s on the tens of seconds).
type Periodic struct {
	// Every is the period.
	Every time.Duration
	// Args returns the arguments of a tick's job (CurrentAttempt tells the
	// work its tick).
	Args func() Args
}

// AddPeriodic adds a periodic job; call it before Start. Only the leader
// inserts them, scheduled at the tick and unique by their arguments and
// period, so that a new leader never inserts a tick's job again.
func (r *Runner) AddPeriodic(p Periodic) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		panic("jobs: AddPeriodic after Start")
	}
	s := &alignedSchedule{every: p.Every}
	r.periodic = append(r.periodic, river.NewPeriodicJob(s, func() (river.JobArgs, *river.InsertOpts) {
		args := p.Args()
		r.mu.Lock()
		k := r.kinds[args.Kind()]
		r.mu.Unlock()
		meta, _ := json.Marshal(jobMetadata{Tick: s.tick()})
		return args, &river.InsertOpts{Queue: k.Queue, MaxAttempts: k.MaxAttempts, Metadata: meta,
			UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: p.Every}}
	}, nil))
}

// alignedSchedule ticks on the multiples of every since the Unix epoch. River
// asks it for a job's next run when it inserts the one before (and when a
// leader starts), and schedules the job at that time: the last time it
// answered is the tick of the job being inserted.
type alignedSchedule struct {
	every time.Duration
	mu    sync.Mutex
	last  time.Time
}

func (s *alignedSchedule) Next(t time.Time) time.Time {
	next := t.Truncate(s.every).Add(s.every)
	s.mu.Lock()
	s.last = next
	s.mu.Unlock()
	return next
}

func (s *alignedSchedule) tick() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}
