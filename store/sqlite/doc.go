// Package sqlite opens leakui's store in a SQLite file (modernc.org/sqlite, no cgo).
package sqlite
