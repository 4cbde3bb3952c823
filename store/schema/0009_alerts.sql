CREATE TABLE alert_deliveries (
	id           TEXT PRIMARY KEY,
	receiver     TEXT NOT NULL,
	watch        TEXT NOT NULL,
	verdict      TEXT NOT NULL,
	event        TEXT NOT NULL,
	event_at     {{int64}} NOT NULL,
	state        TEXT NOT NULL,
	attempts     INTEGER NOT NULL DEFAULT 0,
	last_status  INTEGER NOT NULL DEFAULT 0,
	last_error   TEXT NOT NULL DEFAULT '',
	created_at   {{int64}} NOT NULL,
	updated_at   {{int64}} NOT NULL,
	delivered_at {{int64}} NOT NULL DEFAULT 0
){{strict}};

CREATE INDEX alert_deliveries_watch ON alert_deliveries (watch, event_at, id);
CREATE INDEX alert_deliveries_receiver ON alert_deliveries (receiver, watch, verdict, event_at);
