package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
)

// derivedBlob is a complete derived blob's name and size.
type derivedBlob struct {
	name string
	size int64
}

// derivedOf lists report id's complete derived blobs, by name.
func (db *DB) derivedOf(ctx context.Context, id string) ([]derivedBlob, error) {
	rows, err := db.read.QueryContext(ctx, db.q(`SELECT name, size FROM derived WHERE report_id = ? AND complete = 1 ORDER BY name`), id)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out []derivedBlob
	for rows.Next() {
		var d derivedBlob
		if err := rows.Scan(&d.name, &d.size); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// copyDerived copies report id's complete derived blobs (a heap dump's index)
// that dst lacks or holds with another size, streamed chunk by chunk in short
// transactions (PutDerived), and returns how many blobs and bytes it copied.
// The report must be in dst already.
func copyDerived(ctx context.Context, dst, src *DB, id string) (n, bytes int64, err error) {
	blobs, err := src.derivedOf(ctx, id)
	if err != nil {
		return 0, 0, err
	}
	have, err := dst.derivedOf(ctx, id)
	if err != nil {
		return 0, 0, err
	}
	for _, d := range blobs {
		if containsBlob(have, d) {
			continue
		}
		b, err := src.OpenDerived(ctx, id, d.name)
		if err != nil {
			return n, bytes, err
		}
		k, err := dst.PutDerived(ctx, id, d.name, io.NewSectionReader(b, 0, b.Size()))
		b.Close()
		if err != nil {
			return n, bytes, fmt.Errorf("copying report %s's %q: %w", id, d.name, err)
		}
		if k != d.size {
			return n, bytes, fmt.Errorf("%w: report %s's %q: %d bytes copied of %d", ErrIntegrity, id, d.name, k, d.size)
		}
		n++
		bytes += k
	}
	return n, bytes, nil
}

func containsBlob(list []derivedBlob, d derivedBlob) bool {
	for _, x := range list {
		if x == d {
			return true
		}
	}
	return false
}

// derivedDigest is the SHA-256 of report id's derived blob name as db holds
// it; ok is false when db holds no complete blob of that name or it cannot be
// read whole.
func (db *DB) derivedDigest(ctx context.Context, id, name string) (sum [sha256.Size]byte, ok bool, err error) {
	b, err := db.OpenDerived(ctx, id, name)
	if errors.Is(err, ErrNotFound) {
		return sum, false, nil
	}
	if err != nil {
		return sum, false, err
	}
	defer b.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(b, 0, b.Size())); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, ErrIntegrity) {
			return sum, false, nil
		}
		return sum, false, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, true, nil
}

// verifyDerived counts report id's derived blobs in c: each source blob that
// dst holds with the same bytes matches.
func verifyDerived(ctx context.Context, dst, src *DB, id string, c *TableCheck, miss func(*TableCheck, string)) error {
	blobs, err := src.derivedOf(ctx, id)
	if err != nil {
		return err
	}
	for _, d := range blobs {
		c.Source++
		c.SourceBytes += d.size
		want, _, err := src.derivedDigest(ctx, id, d.name)
		if err != nil {
			return err
		}
		got, ok, err := dst.derivedDigest(ctx, id, d.name)
		if err != nil {
			return err
		}
		if ok && got == want {
			c.Matched++
			c.MatchedBytes += d.size
		} else {
			miss(c, id+"/"+d.name)
		}
	}
	return nil
}
