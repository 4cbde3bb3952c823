CREATE TABLE sessions (
	id_sha256  TEXT PRIMARY KEY,
	created_at {{int64}} NOT NULL,
	expires_at {{int64}} NOT NULL
){{strict}};

CREATE INDEX sessions_expires_at ON sessions (expires_at);
