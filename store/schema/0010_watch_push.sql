ALTER TABLE watch_snapshots ADD COLUMN bundle {{bytes}};
ALTER TABLE watches ADD COLUMN incident TEXT NOT NULL DEFAULT '';
