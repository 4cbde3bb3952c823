package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// RunStatusRunning is the status of a run in progress; the store treats it
// specially (leases, interruption). Other statuses are the lab's vocabulary.
const RunStatusRunning = "running"

// RunStatusInterrupted marks a run whose replica stopped without finishing it.
const RunStatusInterrupted = "interrupted"

// Run is a lab run: what was asked, how far it got, and how it ended.
type Run struct {
	ID       string
	Workload string
	Spec     json.RawMessage
	Status   string
	Verdict  string
	Reason   string
	Error    string
	// Progress is the latest progress the lab recorded (JSON object).
	Progress json.RawMessage
	ReportID string
	// Owner names the replica running it; LeaseUntil is when, without renewal,
	// another replica may call it interrupted.
	Owner      string
	LeaseUntil time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
	FinishedAt time.Time
}

// RunArtifact is one file a run produced: a captured profile or the run's log.
type RunArtifact struct {
	Seq     int
	Role    string // "heap", "goroutine", "log", …
	Step    int64
	SHA256  string
	Name    string
	Size    int64
	TakenAt time.Time
}

// CreateRun stores a new run with status running, owned by owner until leaseUntil.
func (db *DB) CreateRun(ctx context.Context, r *Run) error {
	if !ValidID(r.ID) || r.Workload == "" {
		return fmt.Errorf("%w: a run needs an id and a workload", ErrInvalid)
	}
	now := time.Now().UTC()
	r.Status, r.CreatedAt, r.UpdatedAt = RunStatusRunning, fromMillis(millis(now)), fromMillis(millis(now))
	return db.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, db.q(`INSERT INTO runs (id, workload, spec, status, progress, owner, lease_until, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			r.ID, cleanText(r.Workload), jsonOrEmpty(r.Spec), r.Status, jsonOrEmpty(r.Progress), cleanText(r.Owner), millis(r.LeaseUntil), millis(now), millis(now))
		if err != nil {
			return fmt.Errorf("store: run: %w", err)
		}
		return nil
	})
}

// UpdateRunProgress records a running run's progress and renews its lease. It
// fails with ErrNotFound when the run is no longer running (another replica may
// have called it interrupted).
func (db *DB) UpdateRunProgress(ctx context.Context, id string, progress json.RawMessage, leaseUntil time.Time) error {
	return db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, db.q(`UPDATE runs SET progress = ?, lease_until = ?, updated_at = ? WHERE id = ? AND status = ?`),
			jsonOrEmpty(progress), millis(leaseUntil), millis(time.Now()), id, RunStatusRunning)
		if err != nil {
			return fmt.Errorf("store: run progress: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("running run %s: %w", id, ErrNotFound)
		}
		return nil
	})
}

// FinishRun records how a run ended. Only a running run can finish.
func (db *DB) FinishRun(ctx context.Context, r *Run) error {
	if r.Status == RunStatusRunning || r.Status == "" {
		return fmt.Errorf("%w: a finished run needs a final status", ErrInvalid)
	}
	now := time.Now().UTC()
	return db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, db.q(`UPDATE runs SET status = ?, verdict = ?, reason = ?, error = ?, progress = ?, report_id = ?,
			updated_at = ?, finished_at = ? WHERE id = ? AND status = ?`),
			cleanText(r.Status), cleanText(r.Verdict), cleanText(r.Reason), cleanText(r.Error), jsonOrEmpty(r.Progress), r.ReportID,
			millis(now), millis(now), r.ID, RunStatusRunning)
		if err != nil {
			return fmt.Errorf("store: finish run: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("running run %s: %w", r.ID, ErrNotFound)
		}
		return nil
	})
}

// AddRunArtifact stores a file a run produced and links it to the run, in one
// transaction. The artifact is stored unless its bytes already are.
func (db *DB) AddRunArtifact(ctx context.Context, runID string, a *RunArtifact, u Upload) error {
	now := time.Now().UTC()
	if a.TakenAt.IsZero() {
		a.TakenAt = now
	}
	return db.inTx(ctx, func(tx *sql.Tx) error {
		// Lock the run's row first, so that two captures of one run numbered
		// at once get different seqs in PostgreSQL too.
		res, err := tx.ExecContext(ctx, db.q(`UPDATE runs SET id = id WHERE id = ?`), runID)
		if err != nil {
			return fmt.Errorf("store: run artifact: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("run %s: %w", runID, ErrNotFound)
		}
		if err := db.putArtifact(ctx, tx, u, now); err != nil {
			return err
		}
		var seq int
		if err := tx.QueryRowContext(ctx, db.q(`SELECT COALESCE(MAX(seq), -1) + 1 FROM run_artifacts WHERE run_id = ?`), runID).Scan(&seq); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		a.Seq, a.SHA256, a.Name, a.Size = seq, u.SHA256, cleanText(u.Name), u.Size
		_, err = tx.ExecContext(ctx, db.q(`INSERT INTO run_artifacts (run_id, seq, role, step, sha256, name, taken_at) VALUES (?, ?, ?, ?, ?, ?, ?)`),
			runID, seq, cleanText(a.Role), a.Step, u.SHA256, cleanText(u.Name), millis(a.TakenAt))
		if err != nil {
			return fmt.Errorf("store: run artifact: %w", err)
		}
		return nil
	})
}

// Run returns one run.
func (db *DB) Run(ctx context.Context, id string) (*Run, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("run %q: %w", id, ErrNotFound)
	}
	rows, err := db.read.QueryContext(ctx, db.q(runSelect+` WHERE id = ?`), id)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	runs, err := scanRuns(rows)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("run %s: %w", id, ErrNotFound)
	}
	return &runs[0], nil
}

// RecentRuns lists the newest runs first.
func (db *DB) RecentRuns(ctx context.Context, limit int) ([]Run, error) {
	rows, err := db.read.QueryContext(ctx, db.q(runSelect+` ORDER BY created_at DESC, id LIMIT ?`), limit)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return scanRuns(rows)
}

// RunArtifacts lists a run's files in the order they were taken.
func (db *DB) RunArtifacts(ctx context.Context, runID string) ([]RunArtifact, error) {
	rows, err := db.read.QueryContext(ctx, db.q(`SELECT ra.seq, ra.role, ra.step, ra.sha256, ra.name, ra.taken_at, a.size
		FROM run_artifacts ra JOIN artifacts a ON a.sha256 = ra.sha256 WHERE ra.run_id = ? ORDER BY ra.seq`), runID)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out []RunArtifact
	for rows.Next() {
		var a RunArtifact
		var taken int64
		if err := rows.Scan(&a.Seq, &a.Role, &a.Step, &a.SHA256, &a.Name, &taken, &a.Size); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		a.TakenAt = fromMillis(taken)
		out = append(out, a)
	}
	return out, rows.Err()
}

// InterruptExpiredRuns marks as interrupted every running run whose lease ended
// before now: its replica stopped renewing it. It returns how many it marked.
func (db *DB) InterruptExpiredRuns(ctx context.Context, now time.Time) (int, error) {
	var n int64
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, db.q(`UPDATE runs SET status = ?, reason = ?, updated_at = ?, finished_at = ?
			WHERE status = ? AND lease_until < ?`),
			RunStatusInterrupted, "the server running it stopped before it finished", millis(now), millis(now), RunStatusRunning, millis(now))
		if err != nil {
			return fmt.Errorf("store: interrupt runs: %w", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return int(n), err
}

// InterruptOwnedRuns marks as interrupted every running run of one owner, as a
// replica does for its own runs when it shuts down or starts again.
func (db *DB) InterruptOwnedRuns(ctx context.Context, owner string) (int, error) {
	var n int64
	now := time.Now()
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, db.q(`UPDATE runs SET status = ?, reason = ?, updated_at = ?, finished_at = ? WHERE status = ? AND owner = ?`),
			RunStatusInterrupted, "the server running it stopped before it finished", millis(now), millis(now), RunStatusRunning, owner)
		if err != nil {
			return fmt.Errorf("store: interrupt runs: %w", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return int(n), err
}

const runSelect = `SELECT id, workload, spec, status, verdict, reason, error, progress, report_id, owner, lease_until,
	created_at, updated_at, finished_at FROM runs`

func scanRuns(rows *sql.Rows) ([]Run, error) {
	defer rows.Close()
	var out []Run
	for rows.Next() {
		var r Run
		var spec, progress string
		var lease, created, updated, finished int64
		if err := rows.Scan(&r.ID, &r.Workload, &spec, &r.Status, &r.Verdict, &r.Reason, &r.Error, &progress, &r.ReportID,
			&r.Owner, &lease, &created, &updated, &finished); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		r.Spec, r.Progress = json.RawMessage(spec), json.RawMessage(progress)
		r.LeaseUntil, r.CreatedAt, r.UpdatedAt = fromMillis(lease), fromMillis(created), fromMillis(updated)
		if finished != 0 {
			r.FinishedAt = fromMillis(finished)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, errors.Join(fmt.Errorf("store: %w", err))
	}
	return out, nil
}
