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
package store
