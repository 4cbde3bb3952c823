package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Each report uploaded through the server records its uploader (the client
// address it came from) in report_uploaders, so that a disk quota per client
// can be counted; reports made by lab runs and by older servers have none.

// putUploader records, inside tx, who uploaded report id (nothing for "").
func (db *DB) putUploader(ctx context.Context, tx *sql.Tx, id, uploader string) error {
	if uploader == "" {
		return nil
	}
	if _, err := tx.ExecContext(ctx, db.q(`INSERT INTO report_uploaders (report_id, uploader) VALUES (?, ?)`), id, cleanText(uploader)); err != nil {
		return fmt.Errorf("store: report uploader: %w", err)
	}
	return nil
}

// uploaderOf is who uploaded report id ("" when it is not recorded).
func (db *DB) uploaderOf(ctx context.Context, id string) (string, error) {
	var uploader string
	err := db.read.QueryRowContext(ctx, db.q(`SELECT uploader FROM report_uploaders WHERE report_id = ?`), id).Scan(&uploader)
	if err == sql.ErrNoRows {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	return uploader, nil
}

// StoredBytes is the disk the store's content takes, as its sizes count it:
// with uploader "", every artifact's bytes and every complete derived blob's
// (a heap dump's index); else those of the reports uploader uploaded, each
// artifact once however many of its reports use it (an artifact shared with
// other uploaders counts for each of them).
func (db *DB) StoredBytes(ctx context.Context, uploader string) (int64, error) {
	var artifacts, derived int64
	var err error
	if uploader == "" {
		err = db.read.QueryRowContext(ctx, `SELECT CAST(COALESCE(SUM(size), 0) AS BIGINT) FROM artifacts`).Scan(&artifacts)
		if err == nil {
			err = db.read.QueryRowContext(ctx, `SELECT CAST(COALESCE(SUM(size), 0) AS BIGINT) FROM derived WHERE complete = 1`).Scan(&derived)
		}
	} else {
		err = db.read.QueryRowContext(ctx, db.q(`SELECT CAST(COALESCE(SUM(a.size), 0) AS BIGINT) FROM artifacts a
			WHERE a.sha256 IN (SELECT ra.sha256 FROM report_artifacts ra JOIN report_uploaders u ON u.report_id = ra.report_id WHERE u.uploader = ?)`),
			uploader).Scan(&artifacts)
		if err == nil {
			err = db.read.QueryRowContext(ctx, db.q(`SELECT CAST(COALESCE(SUM(d.size), 0) AS BIGINT) FROM derived d
				JOIN report_uploaders u ON u.report_id = d.report_id WHERE u.uploader = ? AND d.complete = 1`), uploader).Scan(&derived)
		}
	}
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	return artifacts + derived, nil
}
