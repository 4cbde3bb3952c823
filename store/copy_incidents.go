package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// incidentLink is one row of incident_reports or incident_runs as stored.
type incidentLink struct {
	id                     string
	evidenceAt, attachedAt int64
}

// incidentLinkTables are the tables of an incident's attachments with their id
// column, as Copy and Verify walk them.
var incidentLinkTables = []struct{ table, column string }{
	{"incident_reports", "report_id"},
	{"incident_runs", "run_id"},
}

// incidentLinks reads one page of an incident's rows of a link table, by id
// after after.
func (db *DB) incidentLinks(ctx context.Context, table, column, slug, after string) ([]incidentLink, error) {
	rows, err := db.read.QueryContext(ctx, db.q(`SELECT `+column+`, evidence_at, attached_at FROM `+table+`
		WHERE slug = ? AND `+column+` > ? ORDER BY `+column+` LIMIT ?`), slug, after, copyPage)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out []incidentLink
	for rows.Next() {
		var l incidentLink
		if err := rows.Scan(&l.id, &l.evidenceAt, &l.attachedAt); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// incidentNotes reads one page of an incident's annotations as stored, by id
// after after.
func (db *DB) incidentNotes(ctx context.Context, slug, after string) ([]Annotation, error) {
	rows, err := db.read.QueryContext(ctx, db.q(`SELECT id, at, text, author, created_at FROM incident_annotations
		WHERE slug = ? AND id > ? ORDER BY id LIMIT ?`), slug, after, copyPage)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out []Annotation
	for rows.Next() {
		a := Annotation{Slug: slug}
		var at, created int64
		if err := rows.Scan(&a.ID, &at, &a.Text, &a.Author, &created); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		a.At, a.CreatedAt = fromMillis(at), fromMillis(created)
		out = append(out, a)
	}
	return out, rows.Err()
}

// pages calls fn with each page that read returns, after the last key of the
// page before, until a page is short.
func pages[T any](read func(after string) ([]T, error), key func(T) string, fn func([]T) error) error {
	after := ""
	for {
		page, err := read(after)
		if err != nil {
			return err
		}
		if err := fn(page); err != nil {
			return err
		}
		if len(page) < copyPage {
			return nil
		}
		after = key(page[len(page)-1])
	}
}

// copyIncident copies one incident with its attachments and annotations in one
// transaction, reading them from src a page at a time, and returns how many
// rows it wrote. When dst holds the incident already (exists), it writes only
// the attachments and annotations dst lacks: those an interrupted copy, or a
// report that dst lost and the copy brought back, left out. The reports and
// runs it points at must be in dst already (Copy walks them first).
func copyIncident(ctx context.Context, dst, src *DB, slug string, exists bool) (written int64, err error) {
	in, err := src.Incident(ctx, slug)
	if err != nil {
		return 0, err
	}
	// insert writes one row unless dst holds it (only asked when the incident
	// existed before).
	insert := func(tx *sql.Tx, table, keyColumn, key, query string, args ...any) error {
		if exists {
			var n int
			if err := tx.QueryRowContext(ctx, dst.q(`SELECT COUNT(*) FROM `+table+` WHERE slug = ? AND `+keyColumn+` = ?`), slug, key).Scan(&n); err != nil {
				return fmt.Errorf("store: %w", err)
			}
			if n > 0 {
				return nil
			}
		}
		if _, err := tx.ExecContext(ctx, dst.q(query), args...); err != nil {
			return fmt.Errorf("store: %s: %w", table, err)
		}
		written++
		return nil
	}
	err = dst.inTx(ctx, func(tx *sql.Tx) error {
		if !exists {
			if _, err := tx.ExecContext(ctx, dst.q(`INSERT INTO incidents (slug, title, ticket_url, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`),
				in.Slug, in.Title, in.TicketURL, in.State, millis(in.CreatedAt), millis(in.UpdatedAt)); err != nil {
				return fmt.Errorf("store: incident: %w", err)
			}
			written++
		}
		for _, t := range incidentLinkTables {
			err := pages(func(after string) ([]incidentLink, error) {
				return src.incidentLinks(ctx, t.table, t.column, slug, after)
			},
				func(l incidentLink) string { return l.id },
				func(page []incidentLink) error {
					for _, l := range page {
						if err := insert(tx, t.table, t.column, l.id, `INSERT INTO `+t.table+` (slug, `+t.column+`, evidence_at, attached_at) VALUES (?, ?, ?, ?)`,
							slug, l.id, l.evidenceAt, l.attachedAt); err != nil {
							return err
						}
					}
					return nil
				})
			if err != nil {
				return err
			}
		}
		return pages(func(after string) ([]Annotation, error) { return src.incidentNotes(ctx, slug, after) },
			func(a Annotation) string { return a.ID },
			func(page []Annotation) error {
				for _, a := range page {
					if err := insert(tx, "incident_annotations", "id", a.ID, `INSERT INTO incident_annotations (id, slug, at, text, author, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
						a.ID, slug, millis(a.At), a.Text, a.Author, millis(a.CreatedAt)); err != nil {
						return err
					}
				}
				return nil
			})
	})
	if err != nil {
		return 0, err
	}
	return written, nil
}

func sameIncident(a, b *Incident) bool {
	return a.Slug == b.Slug && a.Title == b.Title && a.TicketURL == b.TicketURL && a.State == b.State &&
		a.CreatedAt.Equal(b.CreatedAt) && a.UpdatedAt.Equal(b.UpdatedAt)
}

func sameAnnotation(a, b Annotation) bool {
	return a.ID == b.ID && a.At.Equal(b.At) && a.Text == b.Text && a.Author == b.Author && a.CreatedAt.Equal(b.CreatedAt)
}

// verifyIncident checks one incident and its attachments and annotations
// between the stores, a page of each side at a time: a page the target holds
// alike counts as matched, row by row.
func verifyIncident(ctx context.Context, dst, src *DB, slug string, checks map[string]*TableCheck, miss func(*TableCheck, string)) error {
	s, err := src.Incident(ctx, slug)
	if err != nil {
		return err
	}
	c := checks["incidents"]
	c.Source++
	d, err := dst.Incident(ctx, slug)
	switch {
	case errors.Is(err, ErrNotFound):
		miss(c, slug)
	case err != nil:
		return err
	case sameIncident(s, d):
		c.Matched++
	default:
		miss(c, slug)
	}
	for _, t := range incidentLinkTables {
		if err := verifyPages(checks[t.table], slug, miss,
			func(db *DB, after string) ([]incidentLink, error) {
				return db.incidentLinks(ctx, t.table, t.column, slug, after)
			},
			func(l incidentLink) string { return l.id },
			func(a, b incidentLink) bool { return a == b }, src, dst); err != nil {
			return err
		}
	}
	return verifyPages(checks["incident_annotations"], slug, miss,
		func(db *DB, after string) ([]Annotation, error) { return db.incidentNotes(ctx, slug, after) },
		func(a Annotation) string { return a.ID }, sameAnnotation, src, dst)
}

// verifyPages walks the source's rows a page at a time beside the target's page
// after the same key: each source row the target holds alike, at the same
// place, counts as matched; when any differs, the table misses once, under the
// incident's slug.
func verifyPages[T any](c *TableCheck, slug string, miss func(*TableCheck, string), read func(*DB, string) ([]T, error),
	key func(T) string, same func(a, b T) bool, src, dst *DB) error {
	after, differ := "", false
	for {
		sp, err := read(src, after)
		if err != nil {
			return err
		}
		dp, err := read(dst, after)
		if err != nil {
			return err
		}
		c.Source += int64(len(sp))
		for i, s := range sp {
			if i < len(dp) && same(s, dp[i]) {
				c.Matched++
			} else {
				differ = true
			}
		}
		if len(sp) < copyPage {
			break
		}
		after = key(sp[len(sp)-1])
	}
	if differ {
		miss(c, slug)
	}
	return nil
}
