package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// Fairness by client, on River's own order.
//
// River runs a queue's available jobs by priority (1 first, 4 last), then by
// scheduled time, then by id. A fair job's priority is its rank among its
// client's jobs of the kind: a client's first job queued or running gets 1,
// its second 2, and so on (4 at most). So every client's next job runs before
// any client's second, every second before any third: round robin by rounds.
// Within a rank, the scheduled time orders the clients by their last turn, as
// a round robin does: when one of a client's jobs ends an attempt (its turn),
// the client's other waiting jobs step up one rank and their scheduled time
// becomes now, so they go behind the jobs of the clients that waited
// meanwhile; the first job of a client with none waiting or running is
// scheduled when its last job ended (River keeps ended jobs a day), or at the
// start of time for a client never served, so it goes before the clients
// served since. A client with more than 4 jobs has its 4th and later ones in
// arrival order among the 4th ranks.
//
// The count that bounds a client (Kind.MaxPerClient) and gives the rank is
// read in the insert's transaction, which is IMMEDIATE on SQLite (one writer)
// and holds an advisory lock on the kind and client on PostgreSQL, so that
// replicas inserting together never pass the bound.

// liveStates are a job's states before it ends, as SQL.
const liveStates = `'available', 'pending', 'retryable', 'running', 'scheduled'`

// waitingStates are a job's states while it waits to run, as SQL.
const waitingStates = `'available', 'pending', 'retryable', 'scheduled'`

// maxPriority is River's lowest priority.
const maxPriority = 4

// insertFair inserts a job of client who in a transaction that counts the
// client's live jobs of the kind first.
func (r *Runner) insertFair(ctx context.Context, client riverClient, args Args, k Kind, opts InsertOptions, ro *river.InsertOpts) (*rivertype.JobInsertResult, error) {
	who := opts.Client
	meta, err := json.Marshal(jobMetadata{Client: who})
	if err != nil {
		return nil, err
	}
	ro.Metadata = meta
	d := r.backend.dialect
	var res *rivertype.JobInsertResult
	err = client.inTx(ctx, func(tx riverdriver.ExecutorTx, insert insertFunc) error {
		if err := d.Lock(ctx, tx, lockKey(args.Kind(), who)); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, d.Rebind(`SELECT count(*) FROM river_job
			WHERE kind = ? AND state IN (`+liveStates+`) AND metadata ->> 'client' = ?`), args.Kind(), who).Scan(&n); err != nil {
			return fmt.Errorf("counting the client's jobs: %w", err)
		}
		if k.MaxPerClient > 0 && n >= k.MaxPerClient {
			return ErrClientLimit
		}
		ro.Priority = min(n+1, maxPriority)
		var err error
		if res, err = insert(args, ro); err != nil || n > 0 || res.UniqueSkippedAsDuplicate || !opts.At.IsZero() {
			return err
		}
		// A client with no job waiting or running waits as long as it has
		// since its last job ended, or from the start of time.
		return tx.Exec(ctx, d.Rebind(`UPDATE river_job SET scheduled_at = coalesce((SELECT max(finalized_at) FROM river_job
				WHERE kind = ? AND state IN ('completed', 'cancelled', 'discarded') AND metadata ->> 'client' = ?), ?)
			WHERE id = ? AND state = 'available'`), args.Kind(), who, d.Time(time.Unix(0, 0)), res.Job.ID)
	})
	return res, err
}

// lockKey is the advisory lock key of a client's jobs of one kind.
func lockKey(kind, client string) int64 {
	h := fnv.New64a()
	h.Write([]byte(kind))
	h.Write([]byte{0})
	h.Write([]byte(client))
	return int64(h.Sum64())
}

// turnEnded steps up the client's other waiting jobs of the kind after one
// of its jobs ended an attempt.
func (r *Runner) turnEnded(job *rivertype.JobRow, who string) {
	r.mu.Lock()
	client := r.client
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.stepUp(ctx, client, job.Kind, who, 0, true); err != nil {
		r.log.Warn("the client's next jobs keep their ranks", "job", job.ID, "err", err)
	}
}

// stepUp moves the client's waiting jobs of the kind ranked below above one
// rank up; with requeue, those available also go behind the jobs waiting now.
func (r *Runner) stepUp(ctx context.Context, client riverClient, kind, who string, above int, requeue bool) error {
	d := r.backend.dialect
	if requeue {
		return client.exec().Exec(ctx, d.Rebind(`UPDATE river_job
			SET priority = CASE WHEN priority > 1 THEN priority - 1 ELSE 1 END,
				scheduled_at = CASE WHEN state = 'available' THEN ? ELSE scheduled_at END
			WHERE kind = ? AND state IN (`+waitingStates+`) AND metadata ->> 'client' = ? AND priority > ?`),
			d.Time(time.Now()), kind, who, above)
	}
	return client.exec().Exec(ctx, d.Rebind(`UPDATE river_job
		SET priority = CASE WHEN priority > 1 THEN priority - 1 ELSE 1 END
		WHERE kind = ? AND state IN (`+waitingStates+`) AND metadata ->> 'client' = ? AND priority > ?`),
		kind, who, above)
}

// position counts the jobs that run, or wait to run before job id, in its
// queue (across replicas).
func (r *Runner) position(ctx context.Context, client riverClient, id int64) (int, error) {
	var n int
	err := client.exec().QueryRow(ctx, r.backend.dialect.Rebind(`SELECT count(*) FROM river_job j, river_job me
		WHERE me.id = ? AND j.queue = me.queue AND j.id <> me.id AND (j.state = 'running' OR j.state = 'available'
			AND (j.priority, j.scheduled_at, j.id) < (me.priority, me.scheduled_at, me.id))`), id).Scan(&n)
	return n, err
}
