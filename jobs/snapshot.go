package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
)

// State is where a job stands.
type State string

// The states of a job.
const (
	Queued    State = "queued"    // waiting for its turn (or its scheduled time)
	Running   State = "running"   // an attempt runs
	Retrying  State = "retrying"  // an attempt failed; it waits for its back-off
	Done      State = "done"      // completed
	Failed    State = "failed"    // failed for good, or out of attempts
	Cancelled State = "cancelled" // cancelled before it was done
)

func stateOf(job *rivertype.JobRow) State {
	switch job.State {
	case rivertype.JobStateRunning:
		return Running
	case rivertype.JobStateRetryable:
		return Retrying
	case rivertype.JobStateCompleted:
		return Done
	case rivertype.JobStateDiscarded:
		return Failed
	case rivertype.JobStateCancelled:
		// A job whose work failed for good (Fail, a panic) is cancelled in
		// River's words, with the error recorded.
		if n := len(job.Errors); n > 0 && !strings.Contains(job.Errors[n-1].Error, "cancelled remotely") {
			return Failed
		}
		return Cancelled
	}
	if job.State == rivertype.JobStateAvailable && len(job.Errors) > 0 {
		return Retrying
	}
	return Queued
}

// JobInfo is a job as its pages show it.
type JobInfo struct {
	ID     int64  `json:"id"`
	Kind   string `json:"kind"`
	Queue  string `json:"queue"`
	Client string `json:"client,omitempty"`
	State  State  `json:"state"`
	// Attempt is the number of the attempt running or last run (0: none yet).
	Attempt     int `json:"attempt"`
	MaxAttempts int `json:"max_attempts"`
	// Position counts the jobs that run or wait before this one in its queue,
	// when it waits.
	Position int `json:"position,omitempty"`
	// Stage and Percent are a running job's progress; Started is when its
	// attempt began.
	Stage   string    `json:"stage,omitempty"`
	Percent float64   `json:"percent"`
	Started time.Time `json:"started,omitzero"`
	// Process is the replica that runs or last ran it; Here tells this one.
	Process string `json:"process,omitempty"`
	Here    bool   `json:"here,omitempty"`
	// Error is the last failed attempt's error.
	Error string `json:"error,omitempty"`
	// At is when a waiting job may run.
	At time.Time `json:"at,omitzero"`
	// Ended is when a job that ended did (filled by Failed).
	Ended time.Time `json:"ended,omitzero"`
	// Args are its arguments as stored.
	Args json.RawMessage `json:"args"`
}

// Job returns where job id stands, with its queue position when it waits.
func (r *Runner) Job(ctx context.Context, id int64) (JobInfo, error) {
	client, err := r.clientOrErr()
	if err != nil {
		return JobInfo{}, err
	}
	row, err := client.JobGet(ctx, id)
	if errors.Is(err, river.ErrNotFound) {
		return JobInfo{}, fmt.Errorf("jobs: job %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return JobInfo{}, fmt.Errorf("jobs: job %d: %w", id, err)
	}
	info := r.info(row)
	if info.State == Queued || info.State == Retrying {
		if info.Position, err = r.position(ctx, client, id); err != nil {
			return JobInfo{}, fmt.Errorf("jobs: job %d's position: %w", id, err)
		}
	}
	return info, nil
}

// info converts River's row, with this process's progress of a job it runs.
func (r *Runner) info(row *rivertype.JobRow) JobInfo {
	info := JobInfo{ID: row.ID, Kind: row.Kind, Queue: row.Queue, Client: fairClient(row), State: stateOf(row),
		Attempt: row.Attempt, MaxAttempts: row.MaxAttempts, Args: json.RawMessage(row.EncodedArgs)}
	if n := len(row.AttemptedBy); n > 0 {
		info.Process = row.AttemptedBy[n-1]
	}
	if n := len(row.Errors); n > 0 {
		info.Error = row.Errors[n-1].Error
	}
	if info.State == Queued || info.State == Retrying {
		info.At = row.ScheduledAt
	}
	if info.State != Running {
		return info
	}
	r.mu.Lock()
	ru := r.running[row.ID]
	r.mu.Unlock()
	if ru != nil && info.Process == r.id {
		info.Here = true
		info.Stage, info.Percent = ru.progress()
		info.Started = ru.started
		return info
	}
	var out progressOutput
	if raw := row.Output(); len(raw) > 0 && json.Unmarshal(raw, &out) == nil {
		info.Stage, info.Percent, info.Started = out.Stage, out.Percent, out.Started
	}
	return info
}

// Counts are numbers of jobs by state.
type Counts struct {
	Queued   int `json:"queued"`
	Running  int `json:"running"`
	Retrying int `json:"retrying"`
	// Done, Failed and Cancelled count the jobs that ended in the last hour;
	// Failed are those out of attempts and those their work failed for good.
	Done      int `json:"done"`
	Failed    int `json:"failed"`
	Cancelled int `json:"cancelled"`
}

func (c *Counts) add(state string, n int) {
	switch rivertype.JobState(state) {
	case rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateScheduled:
		c.Queued += n
	case rivertype.JobStateRunning:
		c.Running += n
	case rivertype.JobStateRetryable:
		c.Retrying += n
	case rivertype.JobStateCompleted:
		c.Done += n
	case rivertype.JobStateDiscarded:
		c.Failed += n
	case rivertype.JobStateCancelled:
		c.Cancelled += n
	}
}

// QueueState is one queue's jobs across the replicas.
type QueueState struct {
	Name string `json:"name"`
	// Workers is how many of its jobs run at once in this process.
	Workers int `json:"workers"`
	Counts
	// Kinds are the counts by kind of job.
	Kinds map[string]Counts `json:"kinds"`
	// OldestWait is how long its oldest available job has waited since it
	// was inserted.
	OldestWait time.Duration `json:"oldest_wait"`
}

// Snapshot is every queue's state, for /readyz and the operations page.
type Snapshot struct {
	Backend string       `json:"backend"`
	Process string       `json:"process"`
	At      time.Time    `json:"at"`
	Queues  []QueueState `json:"queues"`
	// Running are the jobs running in every replica (the first
	// MaxRunningShown, oldest first).
	Running []JobInfo `json:"running"`
}

// MaxRunningShown bounds Snapshot.Running.
const MaxRunningShown = 20

// maxCancelledRead bounds the cancelled jobs of a queue Snapshot reads to
// tell those that failed.
const maxCancelledRead = 1000

// Snapshot reads every queue's state: live jobs by state and kind, those
// ended in the last hour, how long the first waiting job of each queue has
// waited, and the running jobs with their progress.
func (r *Runner) Snapshot(ctx context.Context) (Snapshot, error) {
	client, err := r.clientOrErr()
	if err != nil {
		return Snapshot{}, err
	}
	now := time.Now()
	s := Snapshot{Backend: r.backend.Name(), Process: r.id, At: now}
	queues := map[string]*QueueState{}
	queue := func(name string) *QueueState {
		q := queues[name]
		if q == nil {
			q = &QueueState{Name: name, Workers: r.cfg.Queues[name], Kinds: map[string]Counts{}}
			queues[name] = q
		}
		return q
	}
	for name := range r.cfg.Queues {
		queue(name)
	}
	d := r.backend.dialect
	count := func(query string, args ...any) error {
		rows, err := d.Query(ctx, d.Rebind(query), args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name, kind, state string
			var n int
			if err := rows.Scan(&name, &kind, &state, &n); err != nil {
				return err
			}
			q := queue(name)
			q.Counts.add(state, n)
			c := q.Kinds[kind]
			c.add(state, n)
			q.Kinds[kind] = c
		}
		return rows.Err()
	}
	if err := count(`SELECT queue, kind, state, count(*) FROM river_job
		WHERE state IN (` + liveStates + `) GROUP BY queue, kind, state`); err != nil {
		return Snapshot{}, fmt.Errorf("jobs: counting the jobs: %w", err)
	}
	if err := count(`SELECT queue, kind, state, count(*) FROM river_job
		WHERE state IN ('completed', 'discarded', 'cancelled') AND finalized_at > ? GROUP BY queue, kind, state`,
		d.Time(now.Add(-time.Hour))); err != nil {
		return Snapshot{}, fmt.Errorf("jobs: counting the ended jobs: %w", err)
	}
	// A job whose work failed it for good (Fail, a panic) is cancelled in
	// River's words: it counts as failed, as Job and Failed show it. The
	// hour's cancelled jobs are read again for it, newest first, at most
	// maxCancelledRead a queue.
	since := now.Add(-time.Hour)
	for _, q := range queues {
		if q.Cancelled == 0 {
			continue
		}
		res, err := client.JobList(ctx, river.NewJobListParams().Queues(q.Name).States(rivertype.JobStateCancelled).
			OrderBy(river.JobListOrderByFinalizedAt, river.SortOrderDesc).First(min(q.Cancelled, maxCancelledRead)))
		if err != nil {
			return Snapshot{}, fmt.Errorf("jobs: the cancelled jobs of queue %s: %w", q.Name, err)
		}
		for _, row := range res.Jobs {
			if row.FinalizedAt == nil || row.FinalizedAt.Before(since) {
				break
			}
			if stateOf(row) == Failed {
				q.Cancelled, q.Failed = q.Cancelled-1, q.Failed+1
				c := q.Kinds[row.Kind]
				c.Cancelled, c.Failed = c.Cancelled-1, c.Failed+1
				q.Kinds[row.Kind] = c
			}
		}
	}
	for _, q := range queues {
		if q.Queued == 0 {
			continue
		}
		res, err := client.JobList(ctx, river.NewJobListParams().Queues(q.Name).States(rivertype.JobStateAvailable).
			OrderBy(river.JobListOrderByID, river.SortOrderAsc).First(1))
		if err != nil {
			return Snapshot{}, fmt.Errorf("jobs: the oldest job of queue %s: %w", q.Name, err)
		}
		if len(res.Jobs) > 0 {
			q.OldestWait = max(now.Sub(res.Jobs[0].CreatedAt), 0)
		}
	}
	res, err := client.JobList(ctx, river.NewJobListParams().States(rivertype.JobStateRunning).First(MaxRunningShown))
	if err != nil {
		return Snapshot{}, fmt.Errorf("jobs: the running jobs: %w", err)
	}
	for _, row := range res.Jobs {
		s.Running = append(s.Running, r.info(row))
	}
	for _, q := range queues {
		s.Queues = append(s.Queues, *q)
	}
	slices.SortFunc(s.Queues, func(a, b QueueState) int { return strings.Compare(a.Name, b.Name) })
	return s, nil
}

// String says the snapshot in one line, as /readyz shows it: each queue's
// queued, running and retrying jobs and its oldest wait.
func (s Snapshot) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "jobs on %s:", s.Backend)
	if len(s.Queues) == 0 {
		b.WriteString(" no queue")
	}
	for i, q := range s.Queues {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, " %s %d queued, %d running, %d retrying", q.Name, q.Queued, q.Running, q.Retrying)
		if q.OldestWait > 0 {
			fmt.Fprintf(&b, " (oldest waiting %s)", q.OldestWait.Round(time.Second))
		}
	}
	return b.String()
}
