// Package store is leakui's persistence: content-addressed artifacts (the uploaded
// and captured files, keyed by their SHA-256), immutable reports that point at them,
// and lab runs. It holds the domain types and one implementation over database/sql,
// and links no database driver: store/sqlite opens the default backend, a SQLite
// file in the data directory (modernc.org/sqlite, no cgo), and store/postgres
// opens PostgreSQL (pgx), which many replicas can share. Both run the same queries
// (? placeholders, rebound by each backend's Dialect) and behave alike; one test
// suite runs against each. Copy and Verify move a store from one backend to the
// other.
//
// Every write is one transaction: an error or a crash in the middle of an upload
// leaves neither an artifact without all of its bytes nor a report without its
// artifacts. Artifact bytes live in the database itself, in chunks, so that the
// transaction covers them too and a download can stream them.
//
// What it owns, beside artifacts, reports and runs:
//
//   - the dashboard's search and paging (SearchReports, Cursor) and each report's
//     headline in columns of its own (title, verdict, line, inputs' size:
//     Headline), filled when a report or its summary is stored by the server's
//     Headliner (SetHeadliner) and for older reports by BackfillHeadlines;
//   - downloads by SHA-256 prefix (ArtifactsWithPrefix) and by name (ArtifactName);
//   - lab runs with their owner and lease (InterruptExpiredRuns,
//     InterruptOwnedRuns) and their artifacts (AddRunArtifact);
//   - sign-in sessions (the SHA-256 of each random id, with its expiry; not copied
//     by Copy);
//   - who uploaded each report and the bytes stored in all or per uploader, for
//     disk quotas (StoredBytes, usage.go);
//   - derived blobs kept with a report (PutDerived; OpenDerived, an io.ReaderAt
//     reading 32 KiB chunks on demand: a heap dump's index; deleted with the
//     report, not copied by Copy) and a report's state while a background analysis
//     completes it (SetReportState, ReportsInState);
//   - incidents (incidents.go): slugs (ValidSlug), ticket URLs (CheckTicketURL),
//     open or resolved; attachments of reports and runs, many to many
//     (AttachLabelled for a report labelled incident:SLUG); the evidence paged by
//     EvidenceCursor, never whole; annotations;
//   - alert deliveries (alerts.go): one per receiver and verdict change, stored
//     once per id (CreateDelivery), each attempt's outcome recorded (RecordAttempt)
//     and never undone by a late write of an earlier one;
//   - the schema's migrations, written once (schema/*.sql, with {{int64}},
//     {{bytes}}, {{strict}} for the words that differ: Migrations(SchemaWords)),
//     and the Dialect seam (Name, Rebind, Migrations, LockMigrations) that New
//     applies at open.
//
// Reports are immutable: a report records its kind, parameters, artifacts and
// summary once; another set of parameters is another URL, never a change.
//
// The web package maps its errors to statuses: ErrNotFound 404, ErrInvalid 400,
// ErrIntegrity 500, ErrFull 507 (a write the disk had no room for, rolled back;
// full.go recognises SQLite's SQLITE_FULL and PostgreSQL's 53100 by their
// methods, without the drivers).
package store
