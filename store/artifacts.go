package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"
)

// putArtifact stores one artifact inside tx unless its bytes are already stored,
// copying them in chunks and checking them against the claimed hash and size.
func (db *DB) putArtifact(ctx context.Context, tx *sql.Tx, u Upload, now time.Time) error {
	if !ValidSHA256(u.SHA256) {
		return fmt.Errorf("%w: artifact %q needs a sha256", ErrInvalid, u.Name)
	}
	var n int
	if err := tx.QueryRowContext(ctx, db.q(`SELECT COUNT(*) FROM artifacts WHERE sha256 = ?`), u.SHA256).Scan(&n); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if n > 0 {
		return nil // content-addressed: the same bytes are already here
	}
	if u.Open == nil {
		return fmt.Errorf("artifact %s: %w", u.SHA256, ErrNotFound)
	}
	if u.Kind == "" {
		return fmt.Errorf("%w: artifact %q needs a kind", ErrInvalid, u.Name)
	}
	// A concurrent upload of the same bytes (another replica) may have stored
	// them since: the insert then waits for it and does nothing.
	res, err := tx.ExecContext(ctx, db.q(`INSERT INTO artifacts (sha256, kind, format, size, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (sha256) DO NOTHING`),
		u.SHA256, cleanText(u.Kind), cleanText(u.Format), u.Size, millis(now))
	if err != nil {
		return fmt.Errorf("store: artifact: %w", err)
	}
	if inserted, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("store: artifact: %w", err)
	} else if inserted == 0 {
		return nil
	}
	r, err := u.Open()
	if err != nil {
		return fmt.Errorf("store: artifact %q: %w", u.Name, err)
	}
	defer r.Close()
	h := sha256.New()
	buf := make([]byte, db.chunkSize)
	var size int64
	stmt, err := tx.PrepareContext(ctx, db.q(`INSERT INTO artifact_chunks (sha256, seq, data) VALUES (?, ?, ?)`))
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer stmt.Close()
	for seq := 0; ; seq++ {
		k, err := io.ReadFull(r, buf)
		if k > 0 {
			h.Write(buf[:k])
			size += int64(k)
			if _, err := stmt.ExecContext(ctx, u.SHA256, seq, buf[:k]); err != nil {
				return fmt.Errorf("store: artifact chunk: %w", err)
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("store: reading artifact %q: %w", u.Name, err)
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != u.SHA256 || size != u.Size {
		return fmt.Errorf("%w: artifact %q: %d bytes hashing to %s, claimed %d bytes and %s", ErrIntegrity, u.Name, size, got, u.Size, u.SHA256)
	}
	return nil
}

// Artifact returns an artifact's metadata.
func (db *DB) Artifact(ctx context.Context, sha string) (*Artifact, error) {
	if !ValidSHA256(sha) {
		return nil, fmt.Errorf("artifact %q: %w", sha, ErrNotFound)
	}
	a := &Artifact{SHA256: sha}
	var created int64
	err := db.read.QueryRowContext(ctx, db.q(`SELECT kind, format, size, created_at FROM artifacts WHERE sha256 = ?`), sha).
		Scan(&a.Kind, &a.Format, &a.Size, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("artifact %s: %w", sha, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	a.CreatedAt = fromMillis(created)
	return a, nil
}

// OpenArtifact returns a reader of an artifact's bytes that fetches one chunk at a
// time, so a download never holds a whole file in memory. Close it. A chunk that
// goes missing while it reads (the artifact was deleted meanwhile) is an error,
// never a short file.
func (db *DB) OpenArtifact(ctx context.Context, sha string) (io.ReadCloser, error) {
	a, err := db.Artifact(ctx, sha)
	if err != nil {
		return nil, err
	}
	return &chunkReader{ctx: ctx, db: db, sha: sha, size: a.Size}, nil
}

// ReadArtifact returns all of an artifact's bytes, checking them against the hash.
func (db *DB) ReadArtifact(ctx context.Context, sha string) ([]byte, error) {
	r, err := db.OpenArtifact(ctx, sha)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != sha {
		return nil, fmt.Errorf("%w: artifact %s", ErrIntegrity, sha)
	}
	return b, nil
}

// chunkReader reads an artifact chunk by chunk, each chunk one query, so that a
// slow download holds no connection between two chunks.
type chunkReader struct {
	ctx  context.Context
	db   *DB
	sha  string
	size int64 // the artifact's recorded size
	read int64 // bytes fetched so far
	seq  int
	buf  *bytes.Reader
	done bool
}

func (c *chunkReader) Read(p []byte) (int, error) {
	for c.buf == nil || c.buf.Len() == 0 {
		if c.done || c.read >= c.size {
			return 0, io.EOF
		}
		var data []byte
		err := c.db.read.QueryRowContext(c.ctx, c.db.q(`SELECT data FROM artifact_chunks WHERE sha256 = ? AND seq = ?`), c.sha, c.seq).Scan(&data)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("store: artifact %s: chunk %d is missing after %d of %d bytes: %w", c.sha, c.seq, c.read, c.size, io.ErrUnexpectedEOF)
		}
		if err != nil {
			return 0, fmt.Errorf("store: artifact chunk: %w", err)
		}
		if len(data) == 0 || c.read+int64(len(data)) > c.size {
			return 0, fmt.Errorf("%w: artifact %s: chunk %d does not fit its size of %d bytes", ErrIntegrity, c.sha, c.seq, c.size)
		}
		c.seq++
		c.read += int64(len(data))
		c.buf = bytes.NewReader(data)
	}
	return c.buf.Read(p)
}

func (c *chunkReader) Close() error { c.done = true; return nil }

// Counts reports how many artifacts, chunks and reports the store holds, for tests
// and health pages.
func (db *DB) Counts(ctx context.Context) (artifacts, chunks, reports int, err error) {
	for q, dst := range map[string]*int{
		`SELECT COUNT(*) FROM artifacts`:       &artifacts,
		`SELECT COUNT(*) FROM artifact_chunks`: &chunks,
		`SELECT COUNT(*) FROM reports`:         &reports,
	} {
		if err = db.read.QueryRowContext(ctx, q).Scan(dst); err != nil {
			return 0, 0, 0, fmt.Errorf("store: %w", err)
		}
	}
	return artifacts, chunks, reports, nil
}
