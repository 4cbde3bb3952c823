ALTER TABLE reports ADD COLUMN title TEXT NOT NULL DEFAULT '';
ALTER TABLE reports ADD COLUMN verdict TEXT NOT NULL DEFAULT '';
ALTER TABLE reports ADD COLUMN headline TEXT NOT NULL DEFAULT '';
ALTER TABLE reports ADD COLUMN input_bytes {{int64}} NOT NULL DEFAULT 0;
ALTER TABLE reports ADD COLUMN headline_state INTEGER NOT NULL DEFAULT 0;

UPDATE reports SET
	title = COALESCE((SELECT ra.name FROM report_artifacts ra WHERE ra.report_id = reports.id ORDER BY ra.position LIMIT 1), ''),
	input_bytes = COALESCE((SELECT SUM(a.size) FROM report_artifacts ra JOIN artifacts a ON a.sha256 = ra.sha256 WHERE ra.report_id = reports.id), 0);

CREATE INDEX reports_headline_state ON reports (headline_state);
