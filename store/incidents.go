package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// An incident gathers the evidence of one production problem: the reports and
// lab runs attached to it (many to many: a report may serve several incidents)
// and the annotations people add ("10:32 deployed the fix"). Its slug names it
// in URLs (/i/{slug}); its title and ticket URL are what people read and follow.

// The states of an incident (Incident.State).
const (
	IncidentOpen     = "open"
	IncidentResolved = "resolved"
)

// The bounds of an incident's fields. A field beyond them is ErrInvalid, never
// cut silently: the one who typed it is told.
const (
	// MaxSlugLen is the longest slug, in bytes (a slug is ASCII).
	MaxSlugLen = 64
	// MaxTitleRunes is the longest title, in runes after cleaning.
	MaxTitleRunes = 200
	// MaxTicketURLLen is the longest ticket URL, in bytes.
	MaxTicketURLLen = 2048
	// MaxAnnotationRunes is the longest annotation text, in runes after cleaning.
	MaxAnnotationRunes = 1000
	// MaxAuthorRunes is the longest annotation author, in runes after cleaning.
	MaxAuthorRunes = 100
	// MaxAnnotations is how many annotations one incident holds.
	MaxAnnotations = 1000
	// MaxIncidentPage is the most rows one page of incidents, evidence or
	// annotations holds; a larger limit asks for this many.
	MaxIncidentPage = 500
	// defaultIncidentPage is the rows of a page asked with limit 0.
	defaultIncidentPage = 50
)

// reservedSlugs name pages of their own beside /i/{slug}, not incidents.
var reservedSlugs = map[string]bool{"new": true, "search": true}

// Incident is one incident with the numbers of what is attached to it.
type Incident struct {
	// Slug is the incident's name in URLs: see ValidSlug.
	Slug string
	// Title is one line of text, at most MaxTitleRunes runes.
	Title string
	// TicketURL is the incident ticket's http or https URL, or "".
	TicketURL string
	// State is IncidentOpen or IncidentResolved.
	State string
	// CreatedAt is when it was created; UpdatedAt when it, its evidence or its
	// annotations last changed.
	CreatedAt, UpdatedAt time.Time
	// Reports, Runs and Annotations count what is attached (read, not written).
	Reports, Runs, Annotations int64
}

// The kinds of attached evidence (Evidence.Kind).
const (
	EvidenceReport = "report"
	EvidenceRun    = "run"
)

// Evidence is one report or lab run attached to an incident, with what a
// listing shows of it; the rest is read by its id (Report, Run).
type Evidence struct {
	// Kind is EvidenceReport or EvidenceRun; ID is the report's or run's id.
	Kind, ID string
	// At is when the report or run was created: the evidence is paged in this
	// order, oldest first.
	At time.Time
	// AttachedAt is when it was attached to the incident.
	AttachedAt time.Time
	// What is the report's kind ("series", "capture", …) or the run's workload.
	What string
	// Name and Label are a report's first input's name and label.
	Name, Label string
	// Status is a report's state (ReportAnalyzing, ReportFailed, or "" when
	// ready) or a run's status.
	Status string
	// Verdict is a run's verdict ("leak", "no-leak"); "" for a report, whose
	// verdict is in its summary.
	Verdict string
	// RunID is the run a report was made by, if any.
	RunID string
}

// Annotation is a note on an incident's timeline.
type Annotation struct {
	ID   string
	Slug string
	// At is the moment on the timeline the note is about.
	At time.Time
	// Text is one line, at most MaxAnnotationRunes runes; Author is optional.
	Text, Author string
	CreatedAt    time.Time
}

// ValidSlug reports whether s can name an incident: 1 to MaxSlugLen lowercase
// ASCII letters, digits and dashes, starting and ending with a letter or digit,
// without two dashes in a row, and not a reserved name ("new", "search").
func ValidSlug(s string) bool {
	if len(s) == 0 || len(s) > MaxSlugLen || reservedSlugs[s] {
		return false
	}
	if s[0] == '-' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// cleanLine makes text one storable line: invalid UTF-8 becomes U+FFFD, line
// breaks, tabs and other control or format characters become spaces, and the
// ends are trimmed.
func cleanLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\u0085' || unicode.Is(unicode.Cf, r) && r != '\u200d' {
			return ' '
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// boundedLine cleans s (cleanLine) and refuses it with ErrInvalid when it is
// longer than maxRunes runes, or empty and required.
func boundedLine(what, s string, maxRunes int, required bool) (string, error) {
	if len(s) > 4*maxRunes+64 { // refuse a huge text before cleaning a copy of it
		return "", fmt.Errorf("%w: the %s is longer than %d characters", ErrInvalid, what, maxRunes)
	}
	s = cleanLine(s)
	if n := utf8.RuneCountInString(s); n > maxRunes {
		return "", fmt.Errorf("%w: the %s is %d characters long, more than %d", ErrInvalid, what, n, maxRunes)
	}
	if required && s == "" {
		return "", fmt.Errorf("%w: the %s is empty", ErrInvalid, what)
	}
	return s, nil
}

// CheckTicketURL returns the ticket URL as stored, or ErrInvalid: "" (no
// ticket), or an absolute http or https URL with a host, without user name or
// password, spaces or control characters, at most MaxTicketURLLen bytes.
// javascript:, data: and every other scheme are refused.
func CheckTicketURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", nil
	}
	if len(raw) > MaxTicketURLLen {
		return "", fmt.Errorf("%w: the ticket URL is longer than %d bytes", ErrInvalid, MaxTicketURLLen)
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] <= ' ' || raw[i] == 0x7f {
			return "", fmt.Errorf("%w: the ticket URL holds a space or a control character", ErrInvalid)
		}
	}
	if !utf8.ValidString(raw) {
		return "", fmt.Errorf("%w: the ticket URL is not UTF-8", ErrInvalid)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%w: the ticket URL does not parse", ErrInvalid)
	}
	if scheme := strings.ToLower(u.Scheme); scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("%w: the ticket URL must start with http:// or https://", ErrInvalid)
	}
	if u.Host == "" || u.Opaque != "" {
		return "", fmt.Errorf("%w: the ticket URL has no host", ErrInvalid)
	}
	if u.User != nil {
		return "", fmt.Errorf("%w: the ticket URL must not hold a user name or password", ErrInvalid)
	}
	return raw, nil
}

// slugNotFound is the error for an incident that does not exist, or a slug
// that cannot name one.
func slugNotFound(slug string) error {
	if !ValidSlug(slug) {
		return fmt.Errorf("incident %q: %w", truncate(slug, MaxSlugLen), ErrNotFound)
	}
	return fmt.Errorf("incident %s: %w", slug, ErrNotFound)
}

// truncate cuts s to n bytes at a rune boundary, for error messages.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// pageLimit is the rows a page holds for a limit asked.
func pageLimit(limit int) int {
	switch {
	case limit <= 0:
		return defaultIncidentPage
	case limit > MaxIncidentPage:
		return MaxIncidentPage
	}
	return limit
}

// CreateIncident stores a new open incident. The slug must be valid
// (ValidSlug), the title one line of 1 to MaxTitleRunes characters (cleaned
// of invalid UTF-8 and control characters), the ticket URL empty or http(s)
// (CheckTicketURL); anything else is ErrInvalid, as is a slug already taken.
// It sets in's State and times, and its Title and TicketURL as stored.
func (db *DB) CreateIncident(ctx context.Context, in *Incident) error {
	if !ValidSlug(in.Slug) {
		return fmt.Errorf("%w: a slug is 1 to %d lowercase letters, digits and single dashes, not starting or ending with a dash (not %q)",
			ErrInvalid, MaxSlugLen, truncate(in.Slug, MaxSlugLen))
	}
	title, err := boundedLine("title", in.Title, MaxTitleRunes, true)
	if err != nil {
		return err
	}
	ticket, err := CheckTicketURL(in.TicketURL)
	if err != nil {
		return err
	}
	now := fromMillis(millis(time.Now()))
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, db.q(`SELECT COUNT(*) FROM incidents WHERE slug = ?`), in.Slug).Scan(&n); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if n > 0 {
			return fmt.Errorf("%w: the incident %s exists already", ErrInvalid, in.Slug)
		}
		_, err := tx.ExecContext(ctx, db.q(`INSERT INTO incidents (slug, title, ticket_url, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`),
			in.Slug, title, ticket, IncidentOpen, millis(now), millis(now))
		if err != nil {
			return fmt.Errorf("store: incident: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	in.Title, in.TicketURL, in.State, in.CreatedAt, in.UpdatedAt = title, ticket, IncidentOpen, now, now
	in.Reports, in.Runs, in.Annotations = 0, 0, 0
	return nil
}

// incidentColumns are the columns scanIncident reads, with the counts of what
// is attached.
const incidentColumns = `i.slug, i.title, i.ticket_url, i.state, i.created_at, i.updated_at,
	(SELECT COUNT(*) FROM incident_reports x WHERE x.slug = i.slug),
	(SELECT COUNT(*) FROM incident_runs x WHERE x.slug = i.slug),
	(SELECT COUNT(*) FROM incident_annotations x WHERE x.slug = i.slug)`

func scanIncident(row interface{ Scan(...any) error }) (Incident, error) {
	var in Incident
	var created, updated int64
	err := row.Scan(&in.Slug, &in.Title, &in.TicketURL, &in.State, &created, &updated, &in.Reports, &in.Runs, &in.Annotations)
	in.CreatedAt, in.UpdatedAt = fromMillis(created), fromMillis(updated)
	return in, err
}

// Incident returns one incident with the counts of what is attached to it.
func (db *DB) Incident(ctx context.Context, slug string) (*Incident, error) {
	if !ValidSlug(slug) {
		return nil, slugNotFound(slug)
	}
	in, err := scanIncident(db.read.QueryRowContext(ctx, db.q(`SELECT `+incidentColumns+` FROM incidents i WHERE i.slug = ?`), slug))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, slugNotFound(slug)
	}
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return &in, nil
}

// IncidentSearch asks for a page of incidents: the open ones first, then by
// the time they last changed, newest first.
type IncidentSearch struct {
	// Text, when not empty, keeps the incidents whose slug, title or ticket URL
	// contains it, ignoring case, or that have a report or run attached whose
	// verdict starts with it (a run's verdict, or "verdict"/"series_verdict" in
	// a report's summary).
	Text string
	// State keeps IncidentOpen or IncidentResolved incidents; "" keeps both.
	State string
	// After is the cursor of the last incident of the previous page
	// (IncidentCursor), "" for the first page.
	After string
	// Limit is the page's size: 0 asks for 50, and at most MaxIncidentPage.
	Limit int
}

// IncidentCursor is the paging position just after in, in IncidentSearch's
// order.
func IncidentCursor(in Incident) string {
	state := "o"
	if in.State == IncidentResolved {
		state = "r"
	}
	return state + "-" + strconv.FormatInt(millis(in.UpdatedAt), 10) + "-" + in.Slug
}

// parseIncidentCursor reads an IncidentCursor back; anything else is ErrInvalid.
func parseIncidentCursor(c string) (state string, ms int64, slug string, err error) {
	parts := strings.SplitN(c, "-", 3)
	if len(parts) == 3 && ValidSlug(parts[2]) {
		ms, perr := strconv.ParseInt(parts[1], 10, 64)
		switch {
		case perr != nil:
		case parts[0] == "o":
			return IncidentOpen, ms, parts[2], nil
		case parts[0] == "r":
			return IncidentResolved, ms, parts[2], nil
		}
	}
	return "", 0, "", fmt.Errorf("%w: the page cursor %q is not one leakui made", ErrInvalid, truncate(c, 100))
}

// SearchIncidents lists one page of incidents, open ones first, then the most
// recently changed, each with the counts of what is attached. A full page may
// have more after it: ask again with After set to the last one's
// IncidentCursor.
func (db *DB) SearchIncidents(ctx context.Context, s IncidentSearch) ([]Incident, error) {
	var where []string
	var args []any
	if s.After != "" {
		state, ms, slug, err := parseIncidentCursor(s.After)
		if err != nil {
			return nil, err
		}
		// 'open' sorts before 'resolved', so the order is state, then time.
		where = append(where, `(i.state > ? OR (i.state = ? AND (i.updated_at < ? OR (i.updated_at = ? AND i.slug > ?))))`)
		args = append(args, state, state, ms, ms, slug)
	}
	switch s.State {
	case "":
	case IncidentOpen, IncidentResolved:
		where = append(where, `i.state = ?`)
		args = append(args, s.State)
	default:
		return nil, fmt.Errorf("%w: state must be open, resolved or empty, not %q", ErrInvalid, truncate(s.State, 20))
	}
	if len(s.Text) > 4*MaxTitleRunes {
		return nil, fmt.Errorf("%w: the search text is longer than %d characters", ErrInvalid, MaxTitleRunes)
	}
	if text := strings.ToLower(cleanLine(s.Text)); text != "" {
		like := "%" + likeEscape(text) + "%"
		verdict := `%"verdict":"` + likeEscape(text) + `%`
		seriesVerdict := `%"series_verdict":"` + likeEscape(text) + `%`
		// TODO(lead): the verdicts inside reports are matched in the summary's
		// JSON until reports have headline columns of their own.
		where = append(where, `(LOWER(i.slug) LIKE ? ESCAPE '\' OR LOWER(i.title) LIKE ? ESCAPE '\' OR LOWER(i.ticket_url) LIKE ? ESCAPE '\'
			OR EXISTS (SELECT 1 FROM incident_runs x JOIN runs u ON u.id = x.run_id WHERE x.slug = i.slug AND LOWER(u.verdict) LIKE ? ESCAPE '\')
			OR EXISTS (SELECT 1 FROM incident_reports x JOIN reports r ON r.id = x.report_id WHERE x.slug = i.slug
				AND (LOWER(r.summary) LIKE ? ESCAPE '\' OR LOWER(r.summary) LIKE ? ESCAPE '\')))`)
		args = append(args, like, like, like, likeEscape(text)+"%", verdict, seriesVerdict)
	}
	query := `SELECT ` + incidentColumns + ` FROM incidents i`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += ` ORDER BY i.state, i.updated_at DESC, i.slug LIMIT ?`
	args = append(args, pageLimit(s.Limit))
	rows, err := db.read.QueryContext(ctx, db.q(query), args...)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	var out []Incident
	for rows.Next() {
		in, err := scanIncident(rows)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		out = append(out, in)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return out, nil
}

// touchIncident marks the incident changed now, inside tx; ErrNotFound when it
// does not exist.
func (db *DB) touchIncident(ctx context.Context, tx *sql.Tx, slug string, now time.Time) error {
	res, err := tx.ExecContext(ctx, db.q(`UPDATE incidents SET updated_at = ? WHERE slug = ?`), millis(now), slug)
	if err != nil {
		return fmt.Errorf("store: incident: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return slugNotFound(slug)
	}
	return nil
}

// SetIncidentState resolves (IncidentResolved) or reopens (IncidentOpen) an
// incident. Another state is ErrInvalid; an unknown incident ErrNotFound.
func (db *DB) SetIncidentState(ctx context.Context, slug, state string) error {
	if state != IncidentOpen && state != IncidentResolved {
		return fmt.Errorf("%w: an incident is open or resolved, not %q", ErrInvalid, truncate(state, 20))
	}
	if !ValidSlug(slug) {
		return slugNotFound(slug)
	}
	return db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, db.q(`UPDATE incidents SET state = ?, updated_at = ? WHERE slug = ?`), state, millis(time.Now()), slug)
		if err != nil {
			return fmt.Errorf("store: incident: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return slugNotFound(slug)
		}
		return nil
	})
}

// DeleteIncident removes an incident with its attachments and annotations;
// the reports and runs attached stay.
func (db *DB) DeleteIncident(ctx context.Context, slug string) error {
	if !ValidSlug(slug) {
		return slugNotFound(slug)
	}
	return db.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, db.q(`DELETE FROM incidents WHERE slug = ?`), slug)
		if err != nil {
			return fmt.Errorf("store: incident: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return slugNotFound(slug)
		}
		return nil
	})
}

// Attach attaches a report (kind EvidenceReport) or a lab run (EvidenceRun) to
// an incident. Attaching what is attached already changes nothing. An unknown
// incident, report or run is ErrNotFound; another kind ErrInvalid.
func (db *DB) Attach(ctx context.Context, slug, kind, id string) error {
	if _, _, _, err := evidenceTable(kind); err != nil {
		return err
	}
	if !ValidSlug(slug) {
		return slugNotFound(slug)
	}
	if !ValidID(id) {
		return fmt.Errorf("%s %q: %w", kind, truncate(id, 26), ErrNotFound)
	}
	return db.inTx(ctx, func(tx *sql.Tx) error { return db.attachTx(ctx, tx, slug, kind, id, time.Now()) })
}

// attachTx attaches, inside tx, the report or run id to the incident slug
// (both valid), at now; attaching twice is attaching once.
func (db *DB) attachTx(ctx context.Context, tx *sql.Tx, slug, kind, id string, now time.Time) error {
	table, column, source, err := evidenceTable(kind)
	if err != nil {
		return err
	}
	if err := db.touchIncident(ctx, tx, slug, now); err != nil {
		return err
	}
	var at int64
	err = tx.QueryRowContext(ctx, db.q(`SELECT created_at FROM `+source+` WHERE id = ?`), id).Scan(&at)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s %s: %w", kind, id, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	var n int
	if err := tx.QueryRowContext(ctx, db.q(`SELECT COUNT(*) FROM `+table+` WHERE slug = ? AND `+column+` = ?`), slug, id).Scan(&n); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, db.q(`INSERT INTO `+table+` (slug, `+column+`, evidence_at, attached_at) VALUES (?, ?, ?, ?)`),
		slug, id, at, millis(now)); err != nil {
		return fmt.Errorf("store: attach: %w", err)
	}
	return nil
}

// attachLabelledTx attaches, inside tx, the new report id to every existing
// incident its uploads' labels name, and returns the slugs it attached it to.
// A slug no incident has is skipped: labels never create incidents.
func (db *DB) attachLabelledTx(ctx context.Context, tx *sql.Tx, id string, uploads []Upload, now time.Time) ([]string, error) {
	var attached []string
	for _, u := range uploads {
		for _, slug := range IncidentsFromLabel(u.Label) {
			if contains(attached, slug) {
				continue
			}
			err := db.attachTx(ctx, tx, slug, EvidenceReport, id, now)
			switch {
			case err == nil:
				attached = append(attached, slug)
			case errors.Is(err, ErrNotFound):
			default:
				return nil, err
			}
		}
	}
	return attached, nil
}

// Detach takes a report or run off an incident; ErrNotFound when it was not
// attached.
func (db *DB) Detach(ctx context.Context, slug, kind, id string) error {
	table, column, _, err := evidenceTable(kind)
	if err != nil {
		return err
	}
	if !ValidSlug(slug) {
		return slugNotFound(slug)
	}
	return db.inTx(ctx, func(tx *sql.Tx) error {
		if err := db.touchIncident(ctx, tx, slug, time.Now()); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, db.q(`DELETE FROM `+table+` WHERE slug = ? AND `+column+` = ?`), slug, id)
		if err != nil {
			return fmt.Errorf("store: detach: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("%s %s attached to incident %s: %w", kind, truncate(id, 26), slug, ErrNotFound)
		}
		return nil
	})
}

// evidenceTable names the table of one kind of attachment, its id column and
// the table the ids point at; constants of this package, never user input.
func evidenceTable(kind string) (table, column, source string, err error) {
	switch kind {
	case EvidenceReport:
		return "incident_reports", "report_id", "reports", nil
	case EvidenceRun:
		return "incident_runs", "run_id", "runs", nil
	}
	return "", "", "", fmt.Errorf("%w: evidence is a report or a run, not %q", ErrInvalid, truncate(kind, 20))
}

// IncidentsFromLabel returns the slugs a report's label names: each word of
// the label (words are separated by white space or commas) of the form
// incident:SLUG or incident=SLUG, the prefix in any case and the slug
// lowercased, when the slug is valid (ValidSlug). A label "before
// incident:checkout-oom" names checkout-oom; "incident:Checkout-OOM" too.
func IncidentsFromLabel(label string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(label, func(r rune) bool { return unicode.IsSpace(r) || r == ',' }) {
		if len(w) < len("incident:")+1 || !strings.EqualFold(w[:len("incident")], "incident") || (w[8] != ':' && w[8] != '=') {
			continue
		}
		slug := strings.ToLower(w[9:])
		if ValidSlug(slug) && !contains(out, slug) {
			out = append(out, slug)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// AttachLabelled attaches a report to every incident that its inputs' labels
// name (IncidentsFromLabel), in one transaction. It returns the slugs it
// attached the report to and those the labels name that no incident has
// (labels never create incidents). An unknown report is ErrNotFound.
func (db *DB) AttachLabelled(ctx context.Context, reportID string) (attached, unknown []string, err error) {
	r, err := db.Report(ctx, reportID)
	if err != nil {
		return nil, nil, err
	}
	var slugs []string
	for _, a := range r.Artifacts {
		for _, s := range IncidentsFromLabel(a.Label) {
			if !contains(slugs, s) {
				slugs = append(slugs, s)
			}
		}
	}
	for _, s := range slugs {
		err := db.Attach(ctx, s, EvidenceReport, reportID)
		switch {
		case err == nil:
			attached = append(attached, s)
		case errors.Is(err, ErrNotFound):
			unknown = append(unknown, s)
		default:
			return attached, unknown, err
		}
	}
	return attached, unknown, nil
}

// EvidenceCursor is the paging position just after e in IncidentEvidence's
// order.
func EvidenceCursor(e Evidence) string {
	return strconv.FormatInt(millis(e.At), 10) + "-" + e.Kind + "-" + e.ID
}

// parseEvidenceCursor reads an EvidenceCursor back; anything else is ErrInvalid.
func parseEvidenceCursor(c string) (ms int64, kind, id string, err error) {
	parts := strings.SplitN(c, "-", 3)
	if len(parts) == 3 && (parts[1] == EvidenceReport || parts[1] == EvidenceRun) && ValidID(parts[2]) {
		if ms, err := strconv.ParseInt(parts[0], 10, 64); err == nil {
			return ms, parts[1], parts[2], nil
		}
	}
	return 0, "", "", fmt.Errorf("%w: the page cursor %q is not one leakui made", ErrInvalid, truncate(c, 100))
}

// IncidentEvidence lists one page of an incident's attached reports and runs
// together, oldest first (by the time each was created), at most
// MaxIncidentPage: an incident of any size is read a page at a time, never
// whole. after is the last one's EvidenceCursor, "" for the first page. An
// unknown incident is ErrNotFound.
func (db *DB) IncidentEvidence(ctx context.Context, slug, after string, limit int) ([]Evidence, error) {
	if _, err := db.Incident(ctx, slug); err != nil {
		return nil, err
	}
	ms, kind, id := int64(-1<<62), "", ""
	if after != "" {
		var err error
		if ms, kind, id, err = parseEvidenceCursor(after); err != nil {
			return nil, err
		}
	}
	n := pageLimit(limit)
	// Each side reads its own page through its index; the union keeps the
	// first n of both. Kinds order 'report' before 'run'.
	keyset := `(x.evidence_at > ? OR (x.evidence_at = ? AND (%s > ? OR (%s = ? AND x.%s > ?))))`
	query := `SELECT kind, id, evidence_at, attached_at, what, name, label, status, verdict, run_id FROM (
		SELECT * FROM (SELECT 'report' AS kind, x.report_id AS id, x.evidence_at, x.attached_at, r.kind AS what,
			COALESCE((SELECT ra.name FROM report_artifacts ra WHERE ra.report_id = r.id ORDER BY ra.position LIMIT 1), '') AS name,
			COALESCE((SELECT ra.label FROM report_artifacts ra WHERE ra.report_id = r.id ORDER BY ra.position LIMIT 1), '') AS label,
			r.status AS status, '' AS verdict, r.run_id AS run_id
			FROM incident_reports x JOIN reports r ON r.id = x.report_id
			WHERE x.slug = ? AND ` + fmt.Sprintf(keyset, "'report'", "'report'", "report_id") + `
			ORDER BY x.evidence_at, x.report_id LIMIT ?) reps
		UNION ALL
		SELECT * FROM (SELECT 'run' AS kind, x.run_id AS id, x.evidence_at, x.attached_at, u.workload AS what,
			'' AS name, '' AS label, u.status AS status, u.verdict AS verdict, u.id AS run_id
			FROM incident_runs x JOIN runs u ON u.id = x.run_id
			WHERE x.slug = ? AND ` + fmt.Sprintf(keyset, "'run'", "'run'", "run_id") + `
			ORDER BY x.evidence_at, x.run_id LIMIT ?) rns
	) e ORDER BY evidence_at, kind, id LIMIT ?`
	rows, err := db.read.QueryContext(ctx, db.q(query), slug, ms, ms, kind, kind, id, n, slug, ms, ms, kind, kind, id, n, n)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	defer rows.Close()
	out := make([]Evidence, 0, min(n, 64))
	for rows.Next() {
		var e Evidence
		var at, attached int64
		if err := rows.Scan(&e.Kind, &e.ID, &at, &attached, &e.What, &e.Name, &e.Label, &e.Status, &e.Verdict, &e.RunID); err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		e.At, e.AttachedAt = fromMillis(at), fromMillis(attached)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return out, nil
}

// Annotate adds a note to an incident's timeline: a.At (now when zero), a.Text
// one line of 1 to MaxAnnotationRunes characters, a.Author optional, at most
// MaxAuthorRunes (both cleaned of invalid UTF-8 and control characters). An
// incident holds at most MaxAnnotations. It sets a's ID, Slug, CreatedAt and
// the texts as stored; bad fields are ErrInvalid, an unknown incident
// ErrNotFound.
func (db *DB) Annotate(ctx context.Context, slug string, a *Annotation) error {
	if !ValidSlug(slug) {
		return slugNotFound(slug)
	}
	text, err := boundedLine("annotation", a.Text, MaxAnnotationRunes, true)
	if err != nil {
		return err
	}
	author, err := boundedLine("author", a.Author, MaxAuthorRunes, false)
	if err != nil {
		return err
	}
	now := fromMillis(millis(time.Now()))
	at := a.At
	if at.IsZero() {
		at = now
	}
	if y := at.UTC().Year(); y < 1970 || y > 9999 {
		return fmt.Errorf("%w: an annotation's time must fall between the years 1970 and 9999", ErrInvalid)
	}
	at = fromMillis(millis(at))
	id := NewID()
	err = db.inTx(ctx, func(tx *sql.Tx) error {
		if err := db.touchIncident(ctx, tx, slug, now); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, db.q(`SELECT COUNT(*) FROM incident_annotations WHERE slug = ?`), slug).Scan(&n); err != nil {
			return fmt.Errorf("store: %w", err)
		}
		if n >= MaxAnnotations {
			return fmt.Errorf("%w: the incident %s holds %d annotations, the most it may", ErrInvalid, slug, MaxAnnotations)
		}
		if _, err := tx.ExecContext(ctx, db.q(`INSERT INTO incident_annotations (id, slug, at, text, author, created_at) VALUES (?, ?, ?, ?, ?, ?)`),
			id, slug, millis(at), text, author, millis(now)); err != nil {
			return fmt.Errorf("store: annotation: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	a.ID, a.Slug, a.At, a.Text, a.Author, a.CreatedAt = id, slug, at, text, author, now
	return nil
}

// DeleteAnnotation removes one annotation of an incident; ErrNotFound when the
// incident has no annotation of that id.
func (db *DB) DeleteAnnotation(ctx context.Context, slug, id string) error {
	if !ValidSlug(slug) {
		return slugNotFound(slug)
	}
	return db.inTx(ctx, func(tx *sql.Tx) error {
		if err := db.touchIncident(ctx, tx, slug, time.Now()); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, db.q(`DELETE FROM incident_annotations WHERE slug = ? AND id = ?`), slug, id)
		if err != nil {
			return fmt.Errorf("store: annotation: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("annotation %s of incident %s: %w", truncate(id, 26), slug, ErrNotFound)
		}
		return nil
	})
}

// AnnotationCursor is the paging position just after a in Annotations' order.
func AnnotationCursor(a Annotation) string {
	return strconv.FormatInt(millis(a.At), 10) + "-" + a.ID
}

// Annotations lists one page of an incident's annotations in the order of
// their times, at most MaxIncidentPage. after is the last one's
// AnnotationCursor, "" for the first page. An unknown incident is ErrNotFound.
func (db *DB) Annotations(ctx context.Context, slug, after string, limit int) ([]Annotation, error) {
	if _, err := db.Incident(ctx, slug); err != nil {
		return nil, err
	}
	ms, id := int64(-1<<62), ""
	if after != "" {
		var err error
		if ms, id, err = parseCursor(after); err != nil {
			return nil, err
		}
	}
	rows, err := db.read.QueryContext(ctx, db.q(`SELECT id, at, text, author, created_at FROM incident_annotations
		WHERE slug = ? AND (at > ? OR (at = ? AND id > ?)) ORDER BY at, id LIMIT ?`), slug, ms, ms, id, pageLimit(limit))
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
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return out, nil
}
