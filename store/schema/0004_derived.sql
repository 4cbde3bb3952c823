ALTER TABLE reports ADD COLUMN status TEXT NOT NULL DEFAULT '';
ALTER TABLE reports ADD COLUMN error TEXT NOT NULL DEFAULT '';
ALTER TABLE reports ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE reports ADD COLUMN lease_until {{int64}} NOT NULL DEFAULT 0;

CREATE INDEX reports_status ON reports (status);

CREATE TABLE derived (
	report_id  TEXT NOT NULL REFERENCES reports (id) ON DELETE CASCADE,
	name       TEXT NOT NULL,
	size       {{int64}} NOT NULL,
	chunk_size {{int64}} NOT NULL,
	complete   INTEGER NOT NULL DEFAULT 0,
	created_at {{int64}} NOT NULL,
	PRIMARY KEY (report_id, name)
){{strict}};

CREATE TABLE derived_chunks (
	report_id TEXT NOT NULL,
	name      TEXT NOT NULL,
	seq       INTEGER NOT NULL,
	data      {{bytes}} NOT NULL,
	PRIMARY KEY (report_id, name, seq),
	FOREIGN KEY (report_id, name) REFERENCES derived (report_id, name) ON DELETE CASCADE
){{strict}};
