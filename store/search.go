package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MinArtifactPrefix is the shortest SHA-256 prefix ArtifactsWithPrefix accepts:
// 12 hex characters (48 bits) make an accidental match between two uploads
// unlikely in any store a person browses.
const MinArtifactPrefix = 12

// ValidSHA256Prefix reports whether s is a lowercase hex prefix of a SHA-256 of
// at least MinArtifactPrefix characters.
func ValidSHA256Prefix(s string) bool {
	return len(s) >= MinArtifactPrefix && len(s) <= 64 && strings.Trim(s, "0123456789abcdef") == ""
}

// ArtifactsWithPrefix lists, in order, up to limit stored artifacts whose
// SHA-256 starts with prefix (see ValidSHA256Prefix; anything else finds none).
// It runs the same LIKE query on SQLite and PostgreSQL: the prefix is hex only,
// so it holds no wildcard.
func (db *DB) ArtifactsWithPrefix(ctx context.Context, prefix string, limit int) ([]string, error) {
	if !ValidSHA256Prefix(prefix) {
		return nil, nil
	}
	rows, err := db.read.QueryContext(ctx, db.q(`SELECT sha256 FROM artifacts WHERE sha256 LIKE ? ORDER BY sha256 LIMIT ?`), prefix+"%", limit)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var sha string
		if err := rows.Scan(&sha); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		out = append(out, sha)
	}
	return out, rows.Err()
}

// ArtifactName returns the name an artifact was first stored under: its name in
// the oldest report that holds it, else in the oldest run that captured it. It
// is "" for an artifact no report or run names.
func (db *DB) ArtifactName(ctx context.Context, sha string) (string, error) {
	if !ValidSHA256(sha) {
		return "", fmt.Errorf("artifact %q: %w", sha, ErrNotFound)
	}
	var name string
	err := db.read.QueryRowContext(ctx, db.q(`SELECT ra.name FROM report_artifacts ra JOIN reports r ON r.id = ra.report_id
		WHERE ra.sha256 = ? ORDER BY r.created_at, r.id, ra.position LIMIT 1`), sha).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		err = db.read.QueryRowContext(ctx, db.q(`SELECT name FROM run_artifacts WHERE sha256 = ? ORDER BY taken_at, run_id, seq LIMIT 1`), sha).Scan(&name)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	return name, nil
}

// ReportSearch asks for a page of reports, newest first.
type ReportSearch struct {
	// Text, when not empty, keeps the reports whose kind, an input's name or
	// label contains it, ignoring case; one of whose inputs' SHA-256 starts with
	// it; or whose words (its title, verdict as the pages say it — "leak
	// suspected", "inconclusive" —, headline and the Headliner's Terms: its
	// suspects, top functions and classes) or its run's verdict hold its words
	// as whole tokens, in order: "leak" does not find "no leak".
	Text string
	// Kind, when not empty, keeps the reports of that kind.
	Kind string
	// Summaries asks for the reports' summaries too; a listing never needs them
	// (each report has its Headline), and a summary may be large.
	Summaries bool
	// After is the cursor of the last report of the previous page (Cursor of a
	// report), "" for the first page.
	After string
	// Source keeps the reports of uploads ("upload") or of lab runs ("run");
	// "" keeps both.
	Source string
	Limit  int
}

// Cursor is the paging position just after r in ReportSearch's order.
func Cursor(r Report) string {
	return strconv.FormatInt(millis(r.CreatedAt), 10) + "-" + r.ID
}

// parseCursor reads a Cursor back; a malformed one is ErrInvalid.
func parseCursor(c string) (int64, string, error) {
	ms, id, ok := strings.Cut(c, "-")
	n, err := strconv.ParseInt(ms, 10, 64)
	if !ok || err != nil || !ValidID(id) {
		return 0, "", fmt.Errorf("%w: the page cursor %q is not one leakui made", ErrInvalid, c)
	}
	return n, id, nil
}

// likeEscape makes s a literal inside a LIKE pattern with ESCAPE '\'.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// SearchReports lists one page of reports, newest first, each with its
// headline, its first input's name and label (as Artifacts[0]) and nothing of
// its bytes, nor its summary unless s.Summaries asks for it: the query reads
// the headline columns, never the summaries. It returns up to s.Limit
// reports; a full page may have more after it.
func (db *DB) SearchReports(ctx context.Context, s ReportSearch) ([]Report, error) {
	var where []string
	var args []any
	if s.After != "" {
		ms, id, err := parseCursor(s.After)
		if err != nil {
			return nil, err
		}
		where = append(where, `(r.created_at < ? OR (r.created_at = ? AND r.id > ?))`)
		args = append(args, ms, ms, id)
	}
	if s.Kind != "" {
		where = append(where, `r.kind = ?`)
		args = append(args, s.Kind)
	}
	switch s.Source {
	case "":
	case "upload":
		where = append(where, `r.run_id = ''`)
	case "run":
		where = append(where, `r.run_id <> ''`)
	default:
		return nil, fmt.Errorf("%w: source must be upload, run or empty, not %q", ErrInvalid, s.Source)
	}
	if text := strings.ToLower(strings.TrimSpace(cleanText(s.Text))); text != "" {
		// Names, labels and the kind match as substrings (what a person types of
		// a file name), a SHA-256 as a prefix; the words the pages show (title,
		// verdict, headline, suspects, functions, classes) as whole tokens.
		like := "%" + likeEscape(text) + "%"
		var either []string
		if phrase := searchPhrase(text); phrase != "" {
			either = append(either, `r.search_terms LIKE ? ESCAPE '\'`)
			args = append(args, phrase)
		}
		if verdicts := verdictsNamed(text); len(verdicts) > 0 {
			either = append(either, `EXISTS (SELECT 1 FROM runs u WHERE u.id = r.run_id AND u.verdict IN (?`+strings.Repeat(", ?", len(verdicts)-1)+`))`)
			args = append(args, verdicts...)
		}
		either = append(either, `LOWER(r.kind) LIKE ? ESCAPE '\'`, `EXISTS (SELECT 1 FROM report_artifacts ra WHERE ra.report_id = r.id
				AND (LOWER(ra.name) LIKE ? ESCAPE '\' OR LOWER(ra.label) LIKE ? ESCAPE '\' OR ra.sha256 LIKE ? ESCAPE '\'))`)
		args = append(args, like, like, like, likeEscape(text)+"%")
		where = append(where, "("+strings.Join(either, " OR ")+")")
	}
	summary := `''`
	if s.Summaries {
		summary = `r.summary`
	}
	query := `SELECT r.id, r.kind, ` + summary + `, r.created_at, r.pinned, r.run_id,
		r.title, r.verdict, r.headline, r.input_bytes, r.headline_state,
		COALESCE((SELECT ra.name FROM report_artifacts ra WHERE ra.report_id = r.id ORDER BY ra.position LIMIT 1), ''),
		COALESCE((SELECT ra.label FROM report_artifacts ra WHERE ra.report_id = r.id ORDER BY ra.position LIMIT 1), '')
		FROM reports r`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += ` ORDER BY r.created_at DESC, r.id LIMIT ?`
	args = append(args, s.Limit)
	rows, err := db.read.QueryContext(ctx, db.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out []Report
	for rows.Next() {
		var r Report
		var summary, name, label string
		var created, pinned, set int64
		if err := rows.Scan(&r.ID, &r.Kind, &summary, &created, &pinned, &r.RunID,
			&r.Headline.Title, &r.Headline.Verdict, &r.Headline.Line, &r.Headline.InputBytes, &set, &name, &label); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		r.CreatedAt, r.Pinned, r.Headline.Set = fromMillis(created), pinned != 0, set != 0
		if summary != "" {
			r.Summary = []byte(summary)
		}
		r.Artifacts = []ReportArtifact{{Name: name, Label: label}}
		out = append(out, r)
	}
	return out, rows.Err()
}
