package background

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/leakui/leakui/jobs"
	"github.com/leakui/leakui/store"
)

// Store is what the background work needs from persistence.
type Store interface {
	Report(ctx context.Context, id string) (*store.Report, error)
	SetReportState(ctx context.Context, id, status, reason string, summary json.RawMessage) error
	AnalyzingReports(ctx context.Context) ([]string, error)
	ExpireReports(ctx context.Context, cutoff time.Time) (int, int, error)
	InterruptExpiredRuns(ctx context.Context, now time.Time) (int, error)
}

// Config says what background work a server runs.
type Config struct {
	Store Store
	Log   *slog.Logger
	// Jobs is the process's job runner, not started: New registers the heap
	// dump analyses on it, Start starts it and Stop stops it. Its Config.Queues
	// must work Queue. Without one, heap dumps are refused (ErrNoJobs).
	Jobs *jobs.Runner
	// Analyze analyzes report id's dump, telling its progress, and returns
	// the report's summary. Its context ends when the server stops.
	Analyze func(ctx context.Context, id string, progress jobs.Progress) (json.RawMessage, error)
	// Failed is the summary stored with a report whose analysis failed for
	// reason (FailedReason's form).
	Failed func(reason string) json.RawMessage
	// Retries say how analyses failing for the server's reasons are tried
	// again (DefaultRetries when Attempts is 0).
	Retries Retries
	// MaxQueuedPerClient bounds the heap dumps one uploader may have queued
	// or being analyzed.
	MaxQueuedPerClient int

	// Retain, when positive, expires unpinned reports older than it, once at
	// Start and every hour; Expired is then called with what went.
	Retain  time.Duration
	Expired func(reports, artifacts int)

	// RunLease, when positive, sweeps the lab's runs every half of it:
	// Heartbeat renews this replica's runs, then the runs whose lease ended
	// are interrupted.
	RunLease  time.Duration
	Heartbeat func(ctx context.Context) error
}

// Background is a server's background work; Start it, then Stop it.
type Background struct {
	cfg       Config
	heapDumps *HeapDumps

	mu      sync.Mutex
	started bool
	stopped bool
	stop    chan struct{}
	loops   sync.WaitGroup
}

// New registers the heap dump analyses on cfg.Jobs; call it before Start,
// and before anything else starts the runner.
func New(cfg Config) *Background {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	b := &Background{cfg: cfg, stop: make(chan struct{})}
	if b.cfg.Retries.Attempts <= 0 {
		b.cfg.Retries = DefaultRetries
	}
	b.heapDumps = newHeapDumps(&b.cfg)
	return b
}

// HeapDumps are the heap dump analyses.
func (b *Background) HeapDumps() *HeapDumps { return b.heapDumps }

// Start starts the job runner, makes sure every report analyzing has its job
// (those a server older than the job system left, or whose job was lost),
// and starts the retention and the runs' sweep. ctx bounds the start.
func (b *Background) Start(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started {
		return errors.New("background: Start called twice")
	}
	b.started = true
	if b.cfg.Jobs != nil {
		if err := b.cfg.Jobs.Start(ctx); err != nil {
			return err
		}
		if err := b.heapDumps.resume(ctx); err != nil {
			b.cfg.Log.Error("queuing the heap dump analyses left unfinished", "err", err)
		}
	}
	if b.cfg.Retain > 0 {
		b.every(time.Hour, b.expire)
	}
	if b.cfg.RunLease > 0 {
		b.every(max(b.cfg.RunLease/2, 100*time.Millisecond), b.sweepRuns)
	}
	return nil
}

// Stop stops the loops and the job runner: the analyses running here are
// cancelled and go back to their queue, for the next start or another
// replica. ctx bounds the wait for them.
func (b *Background) Stop(ctx context.Context) error {
	b.mu.Lock()
	if b.stopped {
		b.mu.Unlock()
		return nil
	}
	b.stopped = true
	close(b.stop)
	b.mu.Unlock()
	var err error
	if b.cfg.Jobs != nil {
		err = b.cfg.Jobs.Stop(ctx)
	}
	b.loops.Wait()
	return err
}

// every runs f at once, then every period until Stop.
func (b *Background) every(period time.Duration, f func()) {
	b.loops.Add(1)
	go func() {
		defer b.loops.Done()
		f()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-t.C:
				f()
			}
		}
	}()
}

// expire deletes the unpinned reports older than Retain, with the files
// nothing refers to any more.
func (b *Background) expire() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	reports, artifacts, err := b.cfg.Store.ExpireReports(ctx, time.Now().Add(-b.cfg.Retain))
	if err != nil {
		b.cfg.Log.Warn("retention", "err", err)
		return
	}
	if reports+artifacts > 0 {
		if b.cfg.Expired != nil {
			b.cfg.Expired(reports, artifacts)
		}
		b.cfg.Log.Info("retention expired old reports", "reports", reports, "artifacts", artifacts, "older_than", b.cfg.Retain)
	}
}

// sweepRuns renews this replica's runs (the lab's heartbeat), then marks as
// interrupted the runs whose replica stopped renewing them (this one's
// included, after a crash and a restart). Leases are judged as of the
// heartbeat's start: it renewed this replica's runs to at least then + lease,
// however long its writes took on a loaded machine, so none of them reads as
// expired while its child lives.
func (b *Background) sweepRuns() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	asOf := time.Now()
	if b.cfg.Heartbeat != nil {
		if err := b.cfg.Heartbeat(ctx); err != nil && !errors.Is(err, store.ErrNotFound) {
			b.cfg.Log.Warn("renewing the leases of this server's runs", "err", err)
		}
	}
	if n, err := b.cfg.Store.InterruptExpiredRuns(ctx, asOf); err != nil {
		b.cfg.Log.Warn("interrupting stale runs", "err", err)
	} else if n > 0 {
		b.cfg.Log.Info("runs interrupted: their server stopped renewing them", "runs", n)
	}
}

// QueueState is one job queue's jobs across the replicas, as /readyz shows
// them: waiting (available, or scheduled for later), running, and waiting to
// be tried again after a failed attempt; and failed for good in the last hour.
type QueueState struct {
	Name string `json:"name"`
	// Workers is how many of its jobs run at once in this process.
	Workers   int `json:"workers"`
	Available int `json:"available"`
	Running   int `json:"running"`
	Retryable int `json:"retryable"`
	Failed    int `json:"failed"`
	// OldestWaitSeconds is how long its oldest available job has waited.
	OldestWaitSeconds float64 `json:"oldest_wait_seconds"`
}

// Queues reads the job queues' state (none without a job runner).
func (b *Background) Queues(ctx context.Context) ([]QueueState, error) {
	if b.cfg.Jobs == nil {
		return nil, nil
	}
	snap, err := b.cfg.Jobs.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	qs := make([]QueueState, 0, len(snap.Queues))
	for _, q := range snap.Queues {
		qs = append(qs, QueueState{Name: q.Name, Workers: q.Workers, Available: q.Queued, Running: q.Running,
			Retryable: q.Retrying, Failed: q.Failed, OldestWaitSeconds: q.OldestWait.Seconds()})
	}
	return qs, nil
}

// FailedJobs lists the jobs that failed for good, most recently ended first,
// at most limit, with their errors (none without a job runner).
func (b *Background) FailedJobs(ctx context.Context, limit int) ([]jobs.JobInfo, error) {
	if b.cfg.Jobs == nil {
		return nil, nil
	}
	return b.cfg.Jobs.Failed(ctx, limit)
}
