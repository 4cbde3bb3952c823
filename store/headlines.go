package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Headlines are what the dashboard lists reports by (Report.Headline), kept in
// columns of their own so that listing and searching reports never reads, let
// alone decodes, a summary, whatever its size. The store cannot say a report's
// verdict or one-line summary itself (it does not know the kinds of report):
// the server gives it a Headliner (SetHeadliner), which it calls when it
// stores a report or its summary, and which BackfillHeadlines calls for the
// reports stored before headlines were (migration 0005 filled their titles and
// sizes).

// Headliner works out a report's headline from its kind, summary, state and
// run: its verdict and line, and its title when it is not its first input's
// name.
type Headliner func(r *Report) Headline

// SetHeadliner sets the Headliner the store calls for the reports it stores
// without a headline. Call it before the store is used.
func (db *DB) SetHeadliner(h Headliner) { db.headliner = h }

// headlineOf is r's headline: the one it carries, else the Headliner's (a
// store without one leaves it unset, for BackfillHeadlines), with the first
// input's name as its title by default.
func (db *DB) headlineOf(r *Report, firstName string) Headline {
	h := r.Headline
	if !h.Set && db.headliner != nil {
		h = db.headliner(r)
		h.Set = true
	}
	if h.Title == "" {
		h.Title = firstName
	}
	h.Title, h.Verdict, h.Line = cleanText(clipHeadline(h.Title)), cleanText(clipHeadline(h.Verdict)), cleanText(clipHeadline(h.Line))
	h.Terms = cleanText(h.Terms)
	return h
}

// maxHeadline is the most bytes of each headline column.
const maxHeadline = 1000

// clipHeadline cuts s to maxHeadline bytes on a character boundary.
func clipHeadline(s string) string {
	if len(s) <= maxHeadline {
		return s
	}
	cut := maxHeadline
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// setInputBytes sets report id's input size from its inputs, inside tx, and
// returns it.
func (db *DB) setInputBytes(ctx context.Context, tx *sql.Tx, id string) (int64, error) {
	_, err := tx.ExecContext(ctx, db.q(`UPDATE reports SET input_bytes = COALESCE((SELECT SUM(a.size) FROM report_artifacts ra
		JOIN artifacts a ON a.sha256 = ra.sha256 WHERE ra.report_id = ?), 0) WHERE id = ?`), id, id)
	if err != nil {
		return 0, fmt.Errorf("store: report size: %w", err)
	}
	var n int64
	if err := tx.QueryRowContext(ctx, db.q(`SELECT input_bytes FROM reports WHERE id = ?`), id).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: report size: %w", err)
	}
	return n, nil
}

// BackfillHeadlines works out, with the Headliner, the headline of every
// report that has none (stored before headlines were, or by a store without a
// Headliner), one report at a time, and returns how many it filled. Several
// servers may run it at once: each report is filled once.
func (db *DB) BackfillHeadlines(ctx context.Context) (int, error) {
	if db.headliner == nil {
		return 0, errors.New("store: BackfillHeadlines without a Headliner")
	}
	filled, after := 0, ""
	for {
		ids, err := db.reportIDs(ctx, `SELECT id FROM reports WHERE headline_state = 0 AND id > ? ORDER BY id LIMIT 100`, after)
		if err != nil || len(ids) == 0 {
			return filled, err
		}
		for _, id := range ids {
			r, err := db.Report(ctx, id)
			if errors.Is(err, ErrNotFound) {
				continue // deleted meanwhile
			}
			if err != nil {
				return filled, err
			}
			r.Headline.Set = false
			first := ""
			if len(r.Artifacts) > 0 {
				first = r.Artifacts[0].Name
			}
			h := db.headlineOf(r, first)
			err = db.inTx(ctx, func(tx *sql.Tx) error {
				res, err := tx.ExecContext(ctx, db.q(`UPDATE reports SET title = ?, verdict = ?, headline = ?, headline_state = 1,
					search_terms = ? WHERE id = ? AND headline_state = 0`), h.Title, h.Verdict, h.Line, searchTerms(h), id)
				if err != nil {
					return fmt.Errorf("store: report headline: %w", err)
				}
				if n, _ := res.RowsAffected(); n > 0 {
					filled++
				}
				_, err = db.setInputBytes(ctx, tx, id)
				return err
			})
			if err != nil {
				return filled, err
			}
		}
		after = ids[len(ids)-1]
	}
}
