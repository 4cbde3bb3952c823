CREATE TABLE watches (
	name            TEXT PRIMARY KEY,
	url             TEXT NOT NULL,
	every_ms        {{int64}} NOT NULL,
	keep            INTEGER NOT NULL,
	verdict         TEXT NOT NULL DEFAULT '',
	suspect         TEXT NOT NULL DEFAULT '',
	growth_per_hour {{float64}} NOT NULL DEFAULT 0,
	unit            TEXT NOT NULL DEFAULT '',
	reason          TEXT NOT NULL DEFAULT '',
	last_scrape_at  {{int64}} NOT NULL DEFAULT 0,
	last_scrape_ms  {{int64}} NOT NULL DEFAULT 0,
	last_error      TEXT NOT NULL DEFAULT '',
	failures        INTEGER NOT NULL DEFAULT 0,
	next_scrape_at  {{int64}} NOT NULL DEFAULT 0,
	changed_at      {{int64}} NOT NULL DEFAULT 0,
	created_at      {{int64}} NOT NULL,
	updated_at      {{int64}} NOT NULL
){{strict}};

CREATE TABLE watch_snapshots (
	watch         TEXT NOT NULL REFERENCES watches (name) ON DELETE CASCADE,
	tick          {{int64}} NOT NULL,
	taken_at      {{int64}} NOT NULL,
	heap          {{bytes}} NOT NULL,
	goroutine     {{bytes}} NOT NULL,
	goroutineleak {{bytes}},
	PRIMARY KEY (watch, tick)
){{strict}};
