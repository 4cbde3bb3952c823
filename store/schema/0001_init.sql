CREATE TABLE artifacts (
	sha256     TEXT PRIMARY KEY,
	kind       TEXT NOT NULL,
	format     TEXT NOT NULL DEFAULT '',
	size       {{int64}} NOT NULL,
	created_at {{int64}} NOT NULL
){{strict}};

CREATE TABLE artifact_chunks (
	sha256 TEXT NOT NULL REFERENCES artifacts (sha256) ON DELETE CASCADE,
	seq    INTEGER NOT NULL,
	data   {{bytes}} NOT NULL,
	PRIMARY KEY (sha256, seq)
){{strict}};

CREATE TABLE reports (
	id         TEXT PRIMARY KEY,
	kind       TEXT NOT NULL,
	params     TEXT NOT NULL DEFAULT '{}',
	summary    TEXT NOT NULL DEFAULT '{}',
	created_at {{int64}} NOT NULL,
	pinned     INTEGER NOT NULL DEFAULT 0,
	run_id     TEXT NOT NULL DEFAULT ''
){{strict}};

CREATE TABLE report_artifacts (
	report_id TEXT NOT NULL REFERENCES reports (id) ON DELETE CASCADE,
	position  INTEGER NOT NULL,
	sha256    TEXT NOT NULL REFERENCES artifacts (sha256),
	name      TEXT NOT NULL,
	label     TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (report_id, position)
){{strict}};

CREATE INDEX report_artifacts_sha256 ON report_artifacts (sha256);
CREATE INDEX reports_created_at ON reports (created_at);
