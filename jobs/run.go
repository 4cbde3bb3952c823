package jobs

import (
	"context"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// run is one attempt running in this process: its progress, and the loop
// that heartbeats it and stores its progress.
type run struct {
	r       *Runner
	id      int64
	started time.Time

	mu    sync.Mutex
	stage string
	done  float64
	dirty bool // progress not stored yet

	stop     chan struct{}
	finished chan struct{}
}

// progressOutput is a running job's progress as stored in its row (River's
// output), for the pages of every replica.
type progressOutput struct {
	Stage   string    `json:"stage,omitempty"`
	Percent float64   `json:"percent"`
	Started time.Time `json:"started"`
}

// heartbeatEvery is how often a running job's heartbeat is written.
func (r *Runner) heartbeatEvery() time.Duration { return r.rescueAfter / 3 }

// begin registers an attempt starting in this process and starts its loop.
func (r *Runner) begin(job *rivertype.JobRow) *run {
	ru := &run{r: r, id: job.ID, started: time.Now(), stage: "starting", dirty: true,
		stop: make(chan struct{}), finished: make(chan struct{})}
	r.mu.Lock()
	r.running[job.ID] = ru
	r.loops.Add(1)
	r.notifyLocked()
	r.mu.Unlock()
	go ru.loop()
	return ru
}

// end stops an attempt's loop and forgets it.
func (r *Runner) end(job *rivertype.JobRow, ru *run) {
	close(ru.stop)
	<-ru.finished
	r.mu.Lock()
	delete(r.running, job.ID)
	r.notifyLocked()
	r.mu.Unlock()
}

// report is the attempt's Progress.
func (ru *run) report(stage string, done float64) {
	done = min(max(done, 0), 1)
	ru.mu.Lock()
	significant := stage != ru.stage || done-ru.done >= 0.01 || done == 1 && ru.done < 1
	if significant {
		ru.stage, ru.done, ru.dirty = stage, done, true
	}
	ru.mu.Unlock()
	if significant {
		ru.r.notify()
	}
}

// progress returns the attempt's stage and percentage.
func (ru *run) progress() (string, float64) {
	ru.mu.Lock()
	defer ru.mu.Unlock()
	return ru.stage, 100 * ru.done
}

// loop stores the progress at most once a second when it changed, and
// heartbeats the job every third of RescueAfter, until the attempt ends.
func (ru *run) loop() {
	defer ru.r.loops.Done()
	defer close(ru.finished)
	every := ru.r.heartbeatEvery()
	tick := time.NewTicker(min(time.Second, every))
	defer tick.Stop()
	last := time.Now()
	for {
		select {
		case <-ru.stop:
			return
		case <-tick.C:
		}
		ru.storeProgress()
		if time.Since(last) >= every {
			last = time.Now()
			ru.heartbeat()
		}
	}
}

// storeProgress writes the progress into the job's row when it changed.
func (ru *run) storeProgress() {
	ru.mu.Lock()
	if !ru.dirty {
		ru.mu.Unlock()
		return
	}
	out := progressOutput{Stage: ru.stage, Percent: 100 * ru.done, Started: ru.started.UTC()}
	ru.dirty = false
	ru.mu.Unlock()
	ru.r.mu.Lock()
	client := ru.r.client
	ru.r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), ru.r.heartbeatEvery())
	defer cancel()
	if _, err := client.JobUpdate(ctx, ru.id, &river.JobUpdateParams{Output: out}); err != nil {
		ru.r.log.Warn("storing a job's progress", "job", ru.id, "err", err)
	}
}

// heartbeat moves the job's attempted_at to now, so that the leader does not
// take it for the job of a dead process.
func (ru *run) heartbeat() {
	r := ru.r
	r.mu.Lock()
	client := r.client
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), r.heartbeatEvery())
	defer cancel()
	d := r.backend.dialect
	err := client.exec().Exec(ctx, d.Rebind(`UPDATE river_job SET attempted_at = ? WHERE id = ? AND state = 'running'`),
		d.Time(time.Now()), ru.id)
	if err != nil {
		r.log.Warn("heartbeating a running job", "job", ru.id, "err", err)
	}
}

// Attempt is the attempt a Worker's Work runs, from its context.
type Attempt struct {
	// ID is the job's.
	ID int64
	// Number counts the attempts, from 1.
	Number int
	// ScheduledAt is when the attempt was to run (its back-off's end for a
	// retry).
	ScheduledAt time.Time
	// Tick is a periodic job's tick (zero for other jobs).
	Tick time.Time
}

type attemptKey struct{}

// CurrentAttempt returns the attempt that ctx, the context of a Worker's Work,
// belongs to.
func CurrentAttempt(ctx context.Context) (Attempt, bool) {
	a, ok := ctx.Value(attemptKey{}).(Attempt)
	return a, ok
}
