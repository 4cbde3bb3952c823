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
// transaction, and attaches it to every existing incident its uploads' labels
// name (incident:SLUG, see IncidentsFromLabel). It assigns r.ID, r.CreatedAt
// and r.Incidents; uploads are stored unless their bytes are already there,
// and become r.Artifacts in order.
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
	var attached []string
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		if err := db.insertReport(ctx, tx, id, r, uploads, now, now); err != nil {
			return err
		}
		var err error
		attached, err = db.attachLabelledTx(ctx, tx, id, uploads, now)
		return err
	})
	if err != nil {
		return err
	}
	r.ID, r.CreatedAt, r.Incidents = id, fromMillis(millis(now)), attached
	return nil
}

// insertReport stores, inside tx, the uploads not yet stored (as created at
// stored) and the report under id, created at created.
func (db *DB) insertReport(ctx context.Context, tx *sql.Tx, id string, r *Report, uploads []Upload, created, stored time.Time) error {
	for _, u := range uploads {
		if err := db.putArtifact(ctx, tx, u, stored); err != nil {
			return err
		}
	}
	first := ""
	if len(uploads) > 0 {
		first = uploads[0].Name
	}
	h := db.headlineOf(r, first)
	if _, err := tx.ExecContext(ctx, db.q(`INSERT INTO reports (id, kind, params, summary, created_at, pinned, run_id, status, error,
		title, verdict, headline, headline_state, search_terms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		id, cleanText(r.Kind), jsonOrEmpty(r.Params), jsonOrEmpty(r.Summary), millis(created), boolInt(r.Pinned), cleanText(r.RunID), cleanText(r.Status), cleanText(r.Error),
		h.Title, h.Verdict, h.Line, boolInt(h.Set), searchTerms(h)); err != nil {
		return fmt.Errorf("store: report: %w", err)
	}
	for i, u := range uploads {
		if _, err := tx.ExecContext(ctx, db.q(`INSERT INTO report_artifacts (report_id, position, sha256, name, label) VALUES (?, ?, ?, ?, ?)`),
			id, i, u.SHA256, cleanText(u.Name), cleanText(u.Label)); err != nil {
			return fmt.Errorf("store: report artifact: %w", err)
		}
	}
	if err := db.putUploader(ctx, tx, id, r.Uploader); err != nil {
		return err
	}
	var err error
	if h.InputBytes, err = db.setInputBytes(ctx, tx, id); err != nil {
		return err
	}
	r.Headline = h
	return nil
}

// Report returns a report with its artifacts in order.
func (db *DB) Report(ctx context.Context, id string) (*Report, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("report %q: %w", id, ErrNotFound)
	}
	r := &Report{ID: id}
	var params, summary string
	var created, pinned, set int64
	err := db.read.QueryRowContext(ctx, db.q(`SELECT kind, params, summary, created_at, pinned, run_id, status, error,
		title, verdict, headline, input_bytes, headline_state FROM reports WHERE id = ?`), id).
		Scan(&r.Kind, &params, &summary, &created, &pinned, &r.RunID, &r.Status, &r.Error,
			&r.Headline.Title, &r.Headline.Verdict, &r.Headline.Line, &r.Headline.InputBytes, &set)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("report %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	r.Params, r.Summary = json.RawMessage(params), json.RawMessage(summary)
	r.CreatedAt, r.Pinned, r.Headline.Set = fromMillis(created), pinned != 0, set != 0
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

// RecentReports lists the newest reports first with their summaries, without
// their artifacts' bytes. The dashboard lists reports by their headlines
// (SearchReports), which never read a summary.
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

// jsonOrEmpty is a JSON document as text, "{}" when there is none.
func jsonOrEmpty(b json.RawMessage) string {
	if len(b) == 0 {
		return "{}"
	}
	return cleanText(string(b))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// SetPinned pins or unpins a report; retention keeps pinned reports.
func (db *DB) SetPinned(ctx context.Context, id string, pinned bool) error {
	if !ValidID(id) {
		return fmt.Errorf("report %q: %w", id, ErrNotFound)
	}
	return db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, db.q(`UPDATE reports SET pinned = ? WHERE id = ?`), boolInt(pinned), id)
		if err != nil {
			return fmt.Errorf("store: pin: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("report %s: %w", id, ErrNotFound)
		}
		return nil
	})
}

// DeleteArtifact removes an artifact's bytes and every report that used it; runs
// that captured it keep their record but lose the file and their report. It
// returns how many reports went.
func (db *DB) DeleteArtifact(ctx context.Context, sha string) (reports int, err error) {
	if !ValidSHA256(sha) {
		return 0, fmt.Errorf("artifact %q: %w", sha, ErrNotFound)
	}
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, db.q(`SELECT COUNT(*) FROM artifacts WHERE sha256 = ?`), sha).Scan(&n); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if n == 0 {
			return fmt.Errorf("artifact %s: %w", sha, ErrNotFound)
		}
		res, err := tx.ExecContext(ctx, db.q(`DELETE FROM reports WHERE id IN (SELECT report_id FROM report_artifacts WHERE sha256 = ?)`), sha)
		if err != nil {
			return fmt.Errorf("store: delete reports: %w", err)
		}
		n64, _ := res.RowsAffected()
		reports = int(n64)
		if _, err := tx.ExecContext(ctx, db.q(`UPDATE runs SET report_id = '' WHERE report_id <> '' AND report_id NOT IN (SELECT id FROM reports)`)); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		for _, q := range []string{`DELETE FROM run_artifacts WHERE sha256 = ?`, `DELETE FROM artifact_chunks WHERE sha256 = ?`, `DELETE FROM artifacts WHERE sha256 = ?`} {
			if _, err := tx.ExecContext(ctx, db.q(q), sha); err != nil {
				return fmt.Errorf("store: delete artifact: %w", err)
			}
		}
		return nil
	})
	return reports, err
}

// ExpireReports deletes the unpinned reports created before cutoff, then the
// artifacts no report and no run refers to any more. It returns how many reports
// and artifacts went.
func (db *DB) ExpireReports(ctx context.Context, cutoff time.Time) (reports, artifacts int, err error) {
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, db.q(`DELETE FROM reports WHERE pinned = 0 AND created_at < ?`), millis(cutoff))
		if err != nil {
			return fmt.Errorf("store: expire reports: %w", err)
		}
		n, _ := res.RowsAffected()
		reports = int(n)
		if _, err := tx.ExecContext(ctx, db.q(`UPDATE runs SET report_id = '' WHERE report_id <> '' AND report_id NOT IN (SELECT id FROM reports)`)); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		// Runs older than the cutoff that no pinned report keeps go too.
		if _, err := tx.ExecContext(ctx, db.q(`DELETE FROM runs WHERE status <> ? AND created_at < ? AND report_id = ''`), RunStatusRunning, millis(cutoff)); err != nil {
			return fmt.Errorf("store: expire runs: %w", err)
		}
		// One statement, the chunks going by ON DELETE CASCADE: an artifact that a
		// concurrent upload (another replica) refers to meanwhile makes the foreign
		// key refuse the whole transaction, never keep a record without its bytes.
		res, err = tx.ExecContext(ctx, db.q(`DELETE FROM artifacts WHERE sha256 NOT IN (SELECT sha256 FROM report_artifacts)
			AND sha256 NOT IN (SELECT sha256 FROM run_artifacts)`))
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		n, _ = res.RowsAffected()
		artifacts = int(n)
		return nil
	})
	return reports, artifacts, err
}
