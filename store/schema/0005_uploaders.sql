CREATE TABLE report_uploaders (
	report_id TEXT PRIMARY KEY REFERENCES reports (id) ON DELETE CASCADE,
	uploader  TEXT NOT NULL
){{strict}};

CREATE INDEX report_uploaders_uploader ON report_uploaders (uploader);
