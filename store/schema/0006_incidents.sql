CREATE TABLE incidents (
	slug       TEXT PRIMARY KEY,
	title      TEXT NOT NULL,
	ticket_url TEXT NOT NULL DEFAULT '',
	state      TEXT NOT NULL,
	created_at {{int64}} NOT NULL,
	updated_at {{int64}} NOT NULL
){{strict}};

CREATE INDEX incidents_listing ON incidents (state, updated_at, slug);

CREATE TABLE incident_reports (
	slug        TEXT NOT NULL REFERENCES incidents (slug) ON DELETE CASCADE,
	report_id   TEXT NOT NULL REFERENCES reports (id) ON DELETE CASCADE,
	evidence_at {{int64}} NOT NULL,
	attached_at {{int64}} NOT NULL,
	PRIMARY KEY (slug, report_id)
){{strict}};

CREATE INDEX incident_reports_paging ON incident_reports (slug, evidence_at, report_id);
CREATE INDEX incident_reports_report ON incident_reports (report_id);

CREATE TABLE incident_runs (
	slug        TEXT NOT NULL REFERENCES incidents (slug) ON DELETE CASCADE,
	run_id      TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	evidence_at {{int64}} NOT NULL,
	attached_at {{int64}} NOT NULL,
	PRIMARY KEY (slug, run_id)
){{strict}};

CREATE INDEX incident_runs_paging ON incident_runs (slug, evidence_at, run_id);
CREATE INDEX incident_runs_run ON incident_runs (run_id);

CREATE TABLE incident_annotations (
	id         TEXT PRIMARY KEY,
	slug       TEXT NOT NULL REFERENCES incidents (slug) ON DELETE CASCADE,
	at         {{int64}} NOT NULL,
	text       TEXT NOT NULL,
	author     TEXT NOT NULL DEFAULT '',
	created_at {{int64}} NOT NULL
){{strict}};

CREATE INDEX incident_annotations_paging ON incident_annotations (slug, at, id);
