// Package sqlite opens leakui's store in a SQLite file (modernc.org/sqlite, no cgo).
//
// Open(ctx, dir) opens File in the data directory with WAL, foreign keys and one
// writer connection; the schema is in SQLite's words (INTEGER, BLOB, STRICT
// tables).
package sqlite
