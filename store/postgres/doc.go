// Package postgres opens leakui's store in a PostgreSQL database (pgx).
package postgres
