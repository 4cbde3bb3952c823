package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// A report analyzed in the background (ReportAnalyzing) belongs to the server
// analyzing it (Report.Owner) until Report.LeaseUntil. The owner renews its
// leases while it works (RenewReportLeases) and gives them back when it stops
// (ReleaseReportLeases); a server takes up only the reports whose lease has ended
// (ExpiredAnalyses, ClaimReportAnalysis), so that servers sharing one database
// never analyze a report twice while its owner lives.

// leaseMillis is a lease's end as stored: 0 for none (the zero time).
func leaseMillis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return millis(t)
}

// ClaimReportAnalysis makes owner the owner of report id's analysis until
// until, if the report is analyzing and either owner already holds it or its
// lease has ended by now. It reports whether owner holds it.
func (db *DB) ClaimReportAnalysis(ctx context.Context, id, owner string, until, now time.Time) (bool, error) {
	if !ValidID(id) {
		return false, fmt.Errorf("report %q: %w", id, ErrNotFound)
	}
	claimed := false
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, db.q(`UPDATE reports SET owner = ?, lease_until = ?
			WHERE id = ? AND status = ? AND (owner = ? OR lease_until < ?)`),
			cleanText(owner), leaseMillis(until), id, ReportAnalyzing, cleanText(owner), millis(now))
		if err != nil {
			return fmt.Errorf("store: claiming report %s: %w", id, err)
		}
		n, _ := res.RowsAffected()
		claimed = n == 1
		return nil
	})
	return claimed, err
}

// RenewReportLeases extends to until the leases of the analyzing reports owner
// holds, and returns how many it extended.
func (db *DB) RenewReportLeases(ctx context.Context, owner string, until time.Time) (int, error) {
	return db.setLeases(ctx, owner, leaseMillis(until))
}

// ReleaseReportLeases ends at once the leases of the analyzing reports owner
// holds (a server stopping), so that another server takes them up without
// waiting for them to run out.
func (db *DB) ReleaseReportLeases(ctx context.Context, owner string) (int, error) {
	return db.setLeases(ctx, owner, 0)
}

func (db *DB) setLeases(ctx context.Context, owner string, until int64) (int, error) {
	var n int64
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, db.q(`UPDATE reports SET lease_until = ? WHERE owner = ? AND status = ?`),
			until, cleanText(owner), ReportAnalyzing)
		if err != nil {
			return fmt.Errorf("store: report leases: %w", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return int(n), err
}

// ExpiredAnalyses lists, oldest first, the analyzing reports whose lease ended
// before now (or that never had one): those a server may take up.
func (db *DB) ExpiredAnalyses(ctx context.Context, now time.Time) ([]string, error) {
	return db.reportIDs(ctx, `SELECT id FROM reports WHERE status = ? AND lease_until < ? ORDER BY created_at, id`,
		ReportAnalyzing, millis(now))
}
