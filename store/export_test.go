package store

import (
	"database/sql"
	"io"
)

// SetChunkSize sets how many bytes of an artifact (and of a derived blob) one
// row of db holds, so that a test stores small artifacts in several chunks.
func SetChunkSize(db *DB, n int) { db.chunkSize, db.derivedChunk = n, n }

// ReadPool returns the pool db reads through, for tests that count rows
// themselves.
func ReadPool(db *DB) *sql.DB { return db.read }

// WritePool returns the pool db writes through, for tests that change rows
// behind the store's back.
func WritePool(db *DB) *sql.DB { return db.write }

// ChunksFetched returns how many chunks a reader from OpenArtifact has fetched.
func ChunksFetched(rc io.ReadCloser) int { return rc.(*chunkReader).seq }
