ALTER TABLE watch_snapshots ADD COLUMN bundle {{bytes}};
ALTER TABLE watches ADD COLUMN incident TEXT NOT NULL DEFAULT '';
CREATE INDEX alert_deliveries_unfinished ON alert_deliveries (state, updated_at);
