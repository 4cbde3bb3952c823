CREATE TABLE runs (
	id          TEXT PRIMARY KEY,
	workload    TEXT NOT NULL,
	spec        TEXT NOT NULL DEFAULT '{}',
	status      TEXT NOT NULL,
	verdict     TEXT NOT NULL DEFAULT '',
	reason      TEXT NOT NULL DEFAULT '',
	error       TEXT NOT NULL DEFAULT '',
	progress    TEXT NOT NULL DEFAULT '{}',
	report_id   TEXT NOT NULL DEFAULT '',
	owner       TEXT NOT NULL DEFAULT '',
	lease_until {{int64}} NOT NULL DEFAULT 0,
	created_at  {{int64}} NOT NULL,
	updated_at  {{int64}} NOT NULL,
	finished_at {{int64}} NOT NULL DEFAULT 0
){{strict}};

CREATE INDEX runs_created_at ON runs (created_at);
CREATE INDEX runs_status ON runs (status);

CREATE TABLE run_artifacts (
	run_id   TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	seq      INTEGER NOT NULL,
	role     TEXT NOT NULL,
	step     {{int64}} NOT NULL,
	sha256   TEXT NOT NULL REFERENCES artifacts (sha256),
	name     TEXT NOT NULL,
	taken_at {{int64}} NOT NULL,
	PRIMARY KEY (run_id, seq)
){{strict}};

CREATE INDEX run_artifacts_sha256 ON run_artifacts (sha256);
