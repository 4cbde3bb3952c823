package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// CreateReport stores a new report and the artifacts it was made from, all in one
// transaction. It assigns r.ID and r.CreatedAt; uploads are stored unless their
// bytes are already there, and become r.Artifacts in order.
func (db *DB) CreateReport(ctx context.Context, r *Report, uploads []Upload) error {
	if r.Kind == "" || len(uploads) == 0 {
		return fmt.Errorf("%w: a report needs a kind and at least one artifact", ErrInvalid)
	}
	for _, raw := range []json.RawMessage{r.Params, r.Summary} {
		if len(raw) > 0 && !json.Valid(raw) {
			return fmt.Errorf("%w: report params and summary must be JSON", ErrInvalid)
		}
	}
	now := time.Now().UTC()
	id := NewID()
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		for _, u := range uploads {
			if err := db.putArtifact(ctx, tx, u, now); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, db.q(`INSERT INTO reports (id, kind, params, summary, created_at, pinned, run_id) VALUES (?, ?, ?, ?, ?, ?, ?)`),
			id, r.Kind, jsonOrEmpty(r.Params), jsonOrEmpty(r.Summary), millis(now), boolInt(r.Pinned), r.RunID); err != nil {
			return fmt.Errorf("store: report: %w", err)
		}
		for i, u := range uploads {
			if _, err := tx.ExecContext(ctx, db.q(`INSERT INTO report_artifacts (report_id, position, sha256, name, label) VALUES (?, ?, ?, ?, ?)`),
				id, i, u.SHA256, u.Name, u.Label); err != nil {
				return fmt.Errorf("store: report artifact: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.ID, r.CreatedAt = id, fromMillis(millis(now))
	return nil
}

// Report returns a report with its artifacts in order.
func (db *DB) Report(ctx context.Context, id string) (*Report, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("report %q: %w", id, ErrNotFound)
	}
	r := &Report{ID: id}
	var params, summary string
	var created, pinned int64
	err := db.read.QueryRowContext(ctx, db.q(`SELECT kind, params, summary, created_at, pinned, run_id FROM reports WHERE id = ?`), id).
		Scan(&r.Kind, &params, &summary, &created, &pinned, &r.RunID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("report %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	r.Params, r.Summary = json.RawMessage(params), json.RawMessage(summary)
	r.CreatedAt, r.Pinned = fromMillis(created), pinned != 0
	rows, err := db.read.QueryContext(ctx, db.q(`SELECT a.sha256, a.kind, a.format, a.size, a.created_at, ra.name, ra.label
		FROM report_artifacts ra JOIN artifacts a ON a.sha256 = ra.sha256
		WHERE ra.report_id = ? ORDER BY ra.position`), id)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var ra ReportArtifact
		var created int64
		if err := rows.Scan(&ra.SHA256, &ra.Kind, &ra.Format, &ra.Size, &created, &ra.Name, &ra.Label); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		ra.CreatedAt = fromMillis(created)
		r.Artifacts = append(r.Artifacts, ra)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return r, nil
}

// RecentReports lists the newest reports first, without their artifacts' bytes,
// for the dashboard.
func (db *DB) RecentReports(ctx context.Context, limit int) ([]Report, error) {
	rows, err := db.read.QueryContext(ctx, db.q(`SELECT r.id, r.kind, r.summary, r.created_at, r.pinned, r.run_id,
		COALESCE((SELECT ra.name FROM report_artifacts ra WHERE ra.report_id = r.id ORDER BY ra.position LIMIT 1), '')
		FROM reports r ORDER BY r.created_at DESC, r.id LIMIT ?`), limit)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out []Report
	for rows.Next() {
		var r Report
		var summary, first string
		var created, pinned int64
		if err := rows.Scan(&r.ID, &r.Kind, &summary, &created, &pinned, &r.RunID, &first); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		r.Summary, r.CreatedAt, r.Pinned = json.RawMessage(summary), fromMillis(created), pinned != 0
		if first != "" {
			r.Artifacts = []ReportArtifact{{Name: first}}
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func jsonOrEmpty(b json.RawMessage) string {
	if len(b) == 0 {
		return "{}"
	}
	return string(b)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
