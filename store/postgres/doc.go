// Package postgres opens leakui's store in a PostgreSQL database (pgx).
//
// Open(ctx, dsn) connects through pgx; IsDSN tells a DSN from a data directory;
// errors redact the DSN; placeholders are rebound; migrations run under
// pg_advisory_lock; the schema is in PostgreSQL's words (BIGINT, BYTEA).
package postgres
