// Package jobs owns leakui's background work: jobs that outlive the request or
// the tick that asked for them (heap dump analyses, scrapes, verdict updates,
// alert deliveries, retention), stored in the database beside the store and
// run by River (github.com/riverqueue/river) in every replica that shares it.
//
// The package is driver-free, like store: a Backend wraps River's driver for
// one database (jobs/sqlite over the store's SQLite file, jobs/postgres through
// pgx), and only cmd/leakui chooses one. The packages that own the work
// register its kinds (Register: a Worker's Work(ctx, args, progress)), insert
// jobs (Runner.Insert), and read where a job stands (Runner.Job) or where every
// queue stands (Runner.Snapshot, for /readyz and the operations page).
//
// What it guarantees, on both backends:
//
//   - A job survives the process that runs it. A runner heartbeats each job it
//     runs (attempted_at, every third of Config.RescueAfter); a job whose
//     process died (SIGKILL, a lost machine) is rescued by the leader once its
//     heartbeat is Config.RescueAfter old, plus up to River's rescuer interval
//     of 30 s, and runs again in a live replica.
//   - A failed attempt is retried with back-off (Kind.Backoff, doubling from
//     5 s up to 2 min by default) up to Kind.MaxAttempts, then discarded; an
//     error wrapped by Fail, or a panic, ends the job at once.
//   - Stop cancels the running jobs' contexts and waits for them to return;
//     a job stopped so goes back to its queue without using an attempt.
//   - Periodic jobs (Runner.AddPeriodic) are inserted by the leader on a grid
//     aligned to the wall clock and unique per period and arguments, so N
//     replicas run each tick once, even across a change of leader.
//   - Fairness by client (Insert's InsertOptions.Client): a client has at most
//     Kind.MaxPerClient jobs of a kind queued or running (ErrClientLimit
//     beyond), and its k-th gets River priority k (at most 4), so the jobs are
//     served round robin by client; when a client's job ends its turn, the
//     client's other jobs step up one rank and go behind the jobs waiting
//     now (see fair.go).
//   - An attempt may ask for the wait before the next (RetryAfter: a
//     receiver's Retry-After), which the kind's back-off only lengthens.
//
// What a job costs: one river_job row (its arguments and metadata as JSON, a
// unique key when unique, one attempt error per failed attempt), kept after it
// ends for Config.Retention and then deleted by River's job cleaner on the
// leader (River's defaults: 24 h completed or cancelled, 7 days discarded);
// an insert is one transaction (two statements more for a fair job), a run
// three or four statements (fetch, completion, and a turn's update for a fair
// job), a heartbeat one UPDATE every third of RescueAfter, and a progress
// report at most one UPDATE a second while the stage or the percentage
// changes. The measured numbers are in bench/RESULTS.md.
package jobs
