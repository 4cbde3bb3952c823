package store

import "context"

// AnalyzingReports lists, oldest first, the reports still analyzing in the
// background (ReportAnalyzing): the job system runs their analyses, and a
// server starting makes sure each has its job.
func (db *DB) AnalyzingReports(ctx context.Context) ([]string, error) {
	return db.reportIDs(ctx, `SELECT id FROM reports WHERE status = ? ORDER BY created_at, id`, ReportAnalyzing)
}
