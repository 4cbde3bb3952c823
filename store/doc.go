// Package store is leakui's persistence: content-addressed artifacts (the uploaded
// and captured files, keyed by their SHA-256), immutable reports that point at them,
// and lab runs. The default backend is a SQLite file in the data directory
// (modernc.org/sqlite, no cgo).
//
// Every write is one transaction: an error or a crash in the middle of an upload
// leaves neither an artifact without all of its bytes nor a report without its
// artifacts. Artifact bytes live in the database itself, in chunks, so that the
// transaction covers them too and a download can stream them.
package store
