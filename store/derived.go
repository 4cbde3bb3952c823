package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Derived blobs are files computed from a report's artifacts and kept with the
// report (a heap dump's index, like Eclipse MAT's index files), so that showing
// the report never computes them again. They are stored in chunks like
// artifacts, read chunk by chunk on demand, and deleted with their report.

// derivedChunksPerTx is how many chunks of a derived blob one write transaction
// holds (1 MiB of 32 KiB chunks), so that writing a blob of hundreds of
// megabytes never keeps the database's write lock (SQLite) for long.
const derivedChunksPerTx = 32

// PutDerived stores the bytes r yields as the derived blob name of report
// reportID, replacing one of that name, and returns its size. The blob is
// written in short transactions and becomes visible to OpenDerived only once it
// is complete; a failed write leaves nothing. A report that does not exist (or
// is deleted meanwhile) is ErrNotFound.
func (db *DB) PutDerived(ctx context.Context, reportID, name string, r io.Reader) (int64, error) {
	if !ValidID(reportID) {
		return 0, fmt.Errorf("report %q: %w", reportID, ErrNotFound)
	}
	if name == "" {
		return 0, fmt.Errorf("%w: a derived blob needs a name", ErrInvalid)
	}
	chunk := db.derivedChunk
	err := db.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, db.q(`SELECT COUNT(*) FROM reports WHERE id = ?`), reportID).Scan(&n); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if n == 0 {
			return fmt.Errorf("report %s: %w", reportID, ErrNotFound)
		}
		if _, err := tx.ExecContext(ctx, db.q(`DELETE FROM derived WHERE report_id = ? AND name = ?`), reportID, name); err != nil {
			return fmt.Errorf("store: derived: %w", err)
		}
		_, err := tx.ExecContext(ctx, db.q(`INSERT INTO derived (report_id, name, size, chunk_size, complete, created_at) VALUES (?, ?, 0, ?, 0, ?)`),
			reportID, name, chunk, millis(time.Now()))
		if err != nil {
			return fmt.Errorf("store: derived: %w", err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	size, err := db.putDerivedChunks(ctx, reportID, name, chunk, r)
	if err == nil {
		err = db.inTx(ctx, func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, db.q(`UPDATE derived SET size = ?, complete = 1 WHERE report_id = ? AND name = ?`), size, reportID, name)
			if err != nil {
				return fmt.Errorf("store: derived: %w", err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return fmt.Errorf("report %s: %w", reportID, ErrNotFound)
			}
			return nil
		})
	}
	if err != nil {
		// Remove what was written, with a context of its own: ctx may be why.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		db.inTx(cctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(cctx, db.q(`DELETE FROM derived WHERE report_id = ? AND name = ?`), reportID, name)
			return err
		})
		return 0, err
	}
	return size, nil
}

// putDerivedChunks writes r's bytes as chunks of size chunk, derivedChunksPerTx
// chunks per transaction.
func (db *DB) putDerivedChunks(ctx context.Context, reportID, name string, chunk int, r io.Reader) (int64, error) {
	buf := make([]byte, chunk)
	var size int64
	seq := 0
	for end := false; !end; {
		err := db.inTx(ctx, func(tx *sql.Tx) error {
			for i := 0; i < derivedChunksPerTx; i++ {
				k, err := io.ReadFull(r, buf)
				if k > 0 {
					if _, err := tx.ExecContext(ctx, db.q(`INSERT INTO derived_chunks (report_id, name, seq, data) VALUES (?, ?, ?, ?)`),
						reportID, name, seq, buf[:k]); err != nil {
						return fmt.Errorf("store: derived chunk: %w", err)
					}
					seq++
					size += int64(k)
				}
				if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
					end = true
					return nil
				}
				if err != nil {
					return fmt.Errorf("store: reading derived blob %q: %w", name, err)
				}
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	return size, nil
}

// Blob is a stored derived blob, read at any offset; each read fetches the
// chunks it needs (a few recent ones are kept). It is safe for concurrent use.
// Close it.
type Blob interface {
	io.ReaderAt
	io.Closer
	// Size is the blob's length in bytes.
	Size() int64
}

// OpenDerived opens report reportID's complete derived blob name; ErrNotFound
// when there is none.
func (db *DB) OpenDerived(ctx context.Context, reportID, name string) (Blob, error) {
	if !ValidID(reportID) {
		return nil, fmt.Errorf("report %q: %w", reportID, ErrNotFound)
	}
	b := &blob{ctx: ctx, db: db, report: reportID, name: name}
	err := db.read.QueryRowContext(ctx, db.q(`SELECT size, chunk_size FROM derived WHERE report_id = ? AND name = ? AND complete = 1`),
		reportID, name).Scan(&b.size, &b.chunk)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("report %s: derived %q: %w", reportID, name, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	if b.chunk <= 0 {
		return nil, fmt.Errorf("%w: report %s: derived %q has chunks of %d bytes", ErrIntegrity, reportID, name, b.chunk)
	}
	return b, nil
}

// blobCacheChunks is how many chunks a Blob keeps.
const blobCacheChunks = 16

// blob reads a derived blob's chunks on demand.
type blob struct {
	ctx          context.Context
	db           *DB
	report, name string
	size, chunk  int64

	mu     sync.Mutex
	cache  []cachedChunk // most recently used last
	closed bool
}

type cachedChunk struct {
	seq  int64
	data []byte
}

func (b *blob) Size() int64 { return b.size }

func (b *blob) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed, b.cache = true, nil
	return nil
}

// ReadAt reads len(p) bytes at off, fetching the chunks that hold them.
func (b *blob) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("store: derived %q: negative offset", b.name)
	}
	n := 0
	for n < len(p) {
		if off >= b.size {
			return n, io.EOF
		}
		seq := off / b.chunk
		data, err := b.chunkAt(seq)
		if err != nil {
			return n, err
		}
		k := copy(p[n:], data[off-seq*b.chunk:])
		n += k
		off += int64(k)
	}
	return n, nil
}

// chunkAt returns chunk seq from the cache or the database.
func (b *blob) chunkAt(seq int64) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, fmt.Errorf("store: derived %q: %w", b.name, errors.New("read after Close"))
	}
	for i, c := range b.cache {
		if c.seq == seq {
			b.cache = append(append(b.cache[:i:i], b.cache[i+1:]...), c)
			return c.data, nil
		}
	}
	var data []byte
	err := b.db.read.QueryRowContext(b.ctx, b.db.q(`SELECT data FROM derived_chunks WHERE report_id = ? AND name = ? AND seq = ?`),
		b.report, b.name, seq).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("store: report %s: derived %q: chunk %d is missing: %w", b.report, b.name, seq, io.ErrUnexpectedEOF)
	}
	if err != nil {
		return nil, fmt.Errorf("store: derived chunk: %w", err)
	}
	want := min(b.chunk, b.size-seq*b.chunk)
	if int64(len(data)) != want {
		return nil, fmt.Errorf("%w: report %s: derived %q: chunk %d holds %d bytes, not %d", ErrIntegrity, b.report, b.name, seq, len(data), want)
	}
	if len(b.cache) == blobCacheChunks {
		b.cache = b.cache[1:]
	}
	b.cache = append(b.cache, cachedChunk{seq, data})
	return data, nil
}

// SetReportState records the end of a report's background analysis: ReportReady
// with its summary, or ReportFailed with the reason (summary nil keeps the
// stored one). A new summary gives the report a new headline (from the
// Headliner; without one, BackfillHeadlines fills it later). A report that is
// gone is ErrNotFound.
func (db *DB) SetReportState(ctx context.Context, id, status, reason string, summary json.RawMessage) error {
	if !ValidID(id) {
		return fmt.Errorf("report %q: %w", id, ErrNotFound)
	}
	if len(summary) > 0 && !json.Valid(summary) {
		return fmt.Errorf("%w: report summary must be JSON", ErrInvalid)
	}
	var h Headline
	if len(summary) > 0 && db.headliner != nil {
		var kind, runID string
		err := db.read.QueryRowContext(ctx, db.q(`SELECT kind, run_id FROM reports WHERE id = ?`), id).Scan(&kind, &runID)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("report %s: %w", id, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		h = db.headlineOf(&Report{ID: id, Kind: kind, RunID: runID, Status: status, Error: reason, Summary: summary}, "")
	}
	return db.inTx(ctx, func(tx *sql.Tx) error {
		var res sql.Result
		var err error
		if len(summary) > 0 {
			// The title stays the first input's unless the headline names another.
			res, err = tx.ExecContext(ctx, db.q(`UPDATE reports SET status = ?, error = ?, summary = ?,
				title = CASE WHEN ? = '' THEN title ELSE ? END, verdict = ?, headline = ?, headline_state = ?,
				search_terms = ? WHERE id = ?`),
				cleanText(status), cleanText(reason), cleanText(string(summary)), h.Title, h.Title, h.Verdict, h.Line, boolInt(h.Set), searchTerms(h), id)
		} else {
			res, err = tx.ExecContext(ctx, db.q(`UPDATE reports SET status = ?, error = ? WHERE id = ?`), cleanText(status), cleanText(reason), id)
		}
		if err != nil {
			return fmt.Errorf("store: report state: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("report %s: %w", id, ErrNotFound)
		}
		return nil
	})
}

// ReportsInState lists the ids of the reports in a state, oldest first: the
// reports a restarted server's background analyses take up again.
func (db *DB) ReportsInState(ctx context.Context, status string) ([]string, error) {
	return db.reportIDs(ctx, `SELECT id FROM reports WHERE status = ? ORDER BY created_at, id`, status)
}

// reportIDs runs a query whose rows are report ids and returns them in order.
func (db *DB) reportIDs(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := db.read.QueryContext(ctx, db.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
