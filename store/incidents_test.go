package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leakui/leakui/store"
)

// TestIncidents runs the incident tests on every backend.
func TestIncidents(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			for _, c := range []struct {
				name string
				run  func(t *testing.T, dsn string)
			}{
				{"Lifecycle", testIncidentLifecycle},
				{"Listing", testIncidentListing},
				{"Search", testIncidentSearch},
				{"HostileFields", testIncidentHostileFields},
				{"Annotations", testIncidentAnnotations},
				{"AttachLabelled", testAttachLabelled},
				{"EvidenceGoesWithItsReport", testEvidenceGoesWithItsReport},
				{"TenThousandAttachmentsPage", testTenThousandAttachments},
			} {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					c.run(t, b.dsn(t))
				})
			}
		})
	}
}

// newReport stores a report of one small file and returns its id.
func newReport(t *testing.T, db *store.DB, kind, name, label string, summary string) string {
	t.Helper()
	u := upload(name, []byte(name+label+summary+fmt.Sprint(time.Now().UnixNano())))
	u.Label = label
	r := &store.Report{Kind: kind}
	if summary != "" {
		r.Summary = json.RawMessage(summary)
	}
	if err := db.CreateReport(context.Background(), r, []store.Upload{u}); err != nil {
		t.Fatal(err)
	}
	return r.ID
}

// newRun stores a finished run with a verdict and returns its id.
func newRun(t *testing.T, db *store.DB, verdict string) string {
	t.Helper()
	ctx := context.Background()
	r := &store.Run{ID: store.NewID(), Workload: "checkpoint", LeaseUntil: time.Now().Add(time.Minute)}
	if err := db.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	r.Status, r.Verdict = "done", verdict
	if err := db.FinishRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	return r.ID
}

func testIncidentLifecycle(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	in := &store.Incident{Slug: "checkout-oom-2026", Title: "  Checkout pods\nOOM-killed  ", TicketURL: "https://jira.example.com/browse/OPS-42"}
	if err := db.CreateIncident(ctx, in); err != nil {
		t.Fatal(err)
	}
	if in.Title != "Checkout pods OOM-killed" || in.State != store.IncidentOpen || in.CreatedAt.IsZero() {
		t.Errorf("created %+v", in)
	}
	if err := db.CreateIncident(ctx, &store.Incident{Slug: in.Slug, Title: "again"}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a slug taken twice: %v, want ErrInvalid", err)
	}
	rep, run := newReport(t, db, "series", "heap-1.pb.gz", "", `{"verdict":"leak"}`), newRun(t, db, "leak")
	time.Sleep(2 * time.Millisecond)
	for _, e := range [][2]string{{store.EvidenceReport, rep}, {store.EvidenceRun, run}, {store.EvidenceReport, rep}} {
		if err := db.Attach(ctx, in.Slug, e[0], e[1]); err != nil {
			t.Fatalf("attach %s %s: %v", e[0], e[1], err)
		}
	}
	got, err := db.Incident(ctx, in.Slug)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != in.Title || got.TicketURL != in.TicketURL || got.Reports != 1 || got.Runs != 1 || got.Annotations != 0 ||
		!got.CreatedAt.Equal(in.CreatedAt) || !got.UpdatedAt.After(in.CreatedAt) {
		t.Errorf("read back %+v (created %+v)", got, in)
	}
	ev, err := db.IncidentEvidence(ctx, in.Slug, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != 2 || ev[0].Kind != store.EvidenceReport || ev[0].ID != rep || ev[0].What != "series" || ev[0].Name != "heap-1.pb.gz" ||
		ev[1].Kind != store.EvidenceRun || ev[1].ID != run || ev[1].Verdict != "leak" || ev[1].What != "checkpoint" {
		t.Errorf("evidence %+v", ev)
	}
	// What is not there, or not attached, is ErrNotFound; a kind that is not
	// evidence is ErrInvalid.
	for _, err := range []error{
		db.Attach(ctx, in.Slug, store.EvidenceReport, store.NewID()),
		db.Attach(ctx, in.Slug, store.EvidenceRun, store.NewID()),
		db.Attach(ctx, "no-such-incident", store.EvidenceReport, rep),
		db.Attach(ctx, in.Slug, store.EvidenceReport, "../../etc/passwd"),
		db.Detach(ctx, in.Slug, store.EvidenceRun, rep),
		func() error { _, err := db.Incident(ctx, "no-such-incident"); return err }(),
		func() error { _, err := db.IncidentEvidence(ctx, "no-such-incident", "", 10); return err }(),
		db.SetIncidentState(ctx, "no-such-incident", store.IncidentResolved),
		db.DeleteIncident(ctx, "no-such-incident"),
	} {
		if !errors.Is(err, store.ErrNotFound) {
			t.Errorf("got %v, want ErrNotFound", err)
		}
	}
	for _, err := range []error{
		db.Attach(ctx, in.Slug, "artifact", rep),
		db.SetIncidentState(ctx, in.Slug, "closed"),
		func() error { _, err := db.IncidentEvidence(ctx, in.Slug, "1-report-x", 10); return err }(),
	} {
		if !errors.Is(err, store.ErrInvalid) {
			t.Errorf("got %v, want ErrInvalid", err)
		}
	}
	if err := db.Detach(ctx, in.Slug, store.EvidenceRun, run); err != nil {
		t.Fatal(err)
	}
	if err := db.SetIncidentState(ctx, in.Slug, store.IncidentResolved); err != nil {
		t.Fatal(err)
	}
	got, _ = db.Incident(ctx, in.Slug)
	if got.State != store.IncidentResolved || got.Runs != 0 || got.Reports != 1 {
		t.Errorf("after detach and resolve: %+v", got)
	}
	if err := db.SetIncidentState(ctx, in.Slug, store.IncidentOpen); err != nil {
		t.Fatal(err)
	}
	if got, _ = db.Incident(ctx, in.Slug); got.State != store.IncidentOpen {
		t.Errorf("reopened: %+v", got)
	}
	// Incidents survive a restart.
	db2 := openStore(t, dsn)
	if got2, err := db2.Incident(ctx, in.Slug); err != nil || !reflect.DeepEqual(got, got2) {
		t.Errorf("after reopening the store: %+v (%v), want %+v", got2, err, got)
	}
	// Deleting the incident keeps its evidence.
	if err := db.DeleteIncident(ctx, in.Slug); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Report(ctx, rep); err != nil {
		t.Errorf("the report went with the incident: %v", err)
	}
	var left int
	store.ReadPool(db).QueryRow(`SELECT COUNT(*) FROM incident_reports`).Scan(&left)
	if left != 0 {
		t.Errorf("%d attachments left after the incident went", left)
	}
}

// The listing shows open incidents first, then resolved ones, each by the time
// they last changed, newest first; pages follow each other without a gap or a
// repeat.
func testIncidentListing(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	for i := range 7 {
		slug := fmt.Sprintf("incident-%d", i)
		if err := db.CreateIncident(ctx, &store.Incident{Slug: slug, Title: "incident " + fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	for _, s := range []string{"incident-1", "incident-4"} {
		if err := db.SetIncidentState(ctx, s, store.IncidentResolved); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	// Annotating incident-2 makes it the most recent open one.
	if err := db.Annotate(ctx, "incident-2", &store.Annotation{Text: "paged the owner"}); err != nil {
		t.Fatal(err)
	}
	want := []string{"incident-2", "incident-6", "incident-5", "incident-3", "incident-0", "incident-4", "incident-1"}
	var got []string
	after := ""
	for range 10 {
		page, err := db.SearchIncidents(ctx, store.IncidentSearch{After: after, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range page {
			got = append(got, in.Slug)
		}
		if len(page) < 2 {
			break
		}
		after = store.IncidentCursor(page[len(page)-1])
	}
	if !slices.Equal(got, want) {
		t.Errorf("listing %v, want %v", got, want)
	}
	open, err := db.SearchIncidents(ctx, store.IncidentSearch{State: store.IncidentResolved})
	if err != nil || len(open) != 2 || open[0].Slug != "incident-4" {
		t.Errorf("resolved: %+v (%v)", open, err)
	}
	for _, c := range []string{"x", "o-1-", "o-1-Bad", "z-1-incident-1", "o-x-incident-1", strings.Repeat("o-1-a", 10_000)} {
		if _, err := db.SearchIncidents(ctx, store.IncidentSearch{After: c}); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("cursor %.20q: %v, want ErrInvalid", c, err)
		}
	}
	if _, err := db.SearchIncidents(ctx, store.IncidentSearch{State: "closed"}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("state closed: %v, want ErrInvalid", err)
	}
}

// Search finds incidents by slug, title and ticket, and by the verdicts of the
// reports and runs attached; LIKE's wildcards are plain characters.
func testIncidentSearch(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	for _, in := range []store.Incident{
		{Slug: "checkout-oom", Title: "Checkout pods OOM-killed", TicketURL: "https://jira.example.com/browse/OPS-42"},
		{Slug: "broker-3-rss", Title: "Broker 3: RSS 100% of the limit"},
		{Slug: "quiet", Title: "Nothing to see"},
	} {
		if err := db.CreateIncident(ctx, &in); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Attach(ctx, "checkout-oom", store.EvidenceReport, newReport(t, db, "series", "heap.pb.gz", "", `{"verdict":"inconclusive"}`)); err != nil {
		t.Fatal(err)
	}
	// Updated times are kept to the millisecond: the attachments are made in
	// distinct milliseconds, so the order of the last change is the order here.
	time.Sleep(2 * time.Millisecond)
	if err := db.Attach(ctx, "broker-3-rss", store.EvidenceRun, newRun(t, db, "leak")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	if err := db.Attach(ctx, "quiet", store.EvidenceReport, newReport(t, db, "jvm-histogram", "histo.txt", "", `{"series_verdict":"steady"}`)); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string][]string{
		"checkout":     {"checkout-oom"},
		"OOM-KILLED":   {"checkout-oom"},
		"ops-42":       {"checkout-oom"},
		"jira.example": {"checkout-oom"},
		"inconclusive": {"checkout-oom"},
		"leak":         {"broker-3-rss"},
		"steady":       {"quiet"},
		"100%":         {"broker-3-rss"},
		"%":            {"broker-3-rss"},
		"_":            nil,
		"o":            {"quiet", "broker-3-rss", "checkout-oom"},
		"  ":           {"quiet", "broker-3-rss", "checkout-oom"},
		"heap.pb.gz":   nil,
	} {
		page, err := db.SearchIncidents(ctx, store.IncidentSearch{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, in := range page {
			got = append(got, in.Slug)
		}
		if !slices.Equal(got, want) {
			t.Errorf("search %q: %v, want %v", q, got, want)
		}
	}
	if _, err := db.SearchIncidents(ctx, store.IncidentSearch{Text: strings.Repeat("a", 10_000)}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a 10,000-character search: %v, want ErrInvalid", err)
	}
}

// Hostile slugs, titles, ticket URLs, annotation texts and authors are refused
// with ErrInvalid and store nothing; the text fields that pass are stored clean.
func testIncidentHostileFields(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	for _, in := range []store.Incident{
		{Slug: "", Title: "t"},
		{Slug: "Checkout", Title: "t"},
		{Slug: "-lead", Title: "t"},
		{Slug: "trail-", Title: "t"},
		{Slug: "two--dashes", Title: "t"},
		{Slug: "../../etc/passwd", Title: "t"},
		{Slug: "a/b", Title: "t"},
		{Slug: "a.md", Title: "t"},
		{Slug: "a b", Title: "t"},
		{Slug: "a\x00b", Title: "t"},
		{Slug: "x'; DROP TABLE incidents; --", Title: "t"},
		{Slug: "ｃｈｅｃｋｏｕｔ", Title: "t"},
		{Slug: "new", Title: "t"},
		{Slug: strings.Repeat("a", store.MaxSlugLen+1), Title: "t"},
		{Slug: "ok", Title: ""},
		{Slug: "ok", Title: " \n\t "},
		{Slug: "ok", Title: strings.Repeat("é", store.MaxTitleRunes+1)},
		{Slug: "ok", Title: strings.Repeat("x", 10<<20)},
		{Slug: "ok", Title: "t", TicketURL: "javascript:alert(1)"},
		{Slug: "ok", Title: "t", TicketURL: "JavaScript:alert(document.cookie)"},
		{Slug: "ok", Title: "t", TicketURL: "data:text/html,<script>alert(1)</script>"},
		{Slug: "ok", Title: "t", TicketURL: "vbscript:msgbox"},
		{Slug: "ok", Title: "t", TicketURL: "ftp://example.com/ticket"},
		{Slug: "ok", Title: "t", TicketURL: "//evil.example.com/x"},
		{Slug: "ok", Title: "t", TicketURL: "/relative/path"},
		{Slug: "ok", Title: "t", TicketURL: "https://"},
		{Slug: "ok", Title: "t", TicketURL: "https:opaque"},
		{Slug: "ok", Title: "t", TicketURL: "https://user:secret@jira.example.com/x"},
		{Slug: "ok", Title: "t", TicketURL: "https://jira.example.com/a b"},
		{Slug: "ok", Title: "t", TicketURL: "https://jira.example.com/\x00"},
		{Slug: "ok", Title: "t", TicketURL: "https://jira.example.com/\nx"},
		{Slug: "ok", Title: "t", TicketURL: "https://jira.example.com/\xff"},
		{Slug: "ok", Title: "t", TicketURL: "https://jira.example.com/" + strings.Repeat("a", store.MaxTicketURLLen)},
	} {
		err := db.CreateIncident(ctx, &in)
		if !errors.Is(err, store.ErrInvalid) {
			t.Errorf("CreateIncident(%.40q, %.40q, %.40q): %v, want ErrInvalid", in.Slug, in.Title, in.TicketURL, err)
		}
	}
	if page, err := db.SearchIncidents(ctx, store.IncidentSearch{}); err != nil || len(page) != 0 {
		t.Fatalf("refused incidents were stored: %+v (%v)", page, err)
	}
	in := &store.Incident{Slug: "a", Title: "bad \xff\xfe bytes\x00 and <script>\u2028line\u202e", TicketURL: "HTTPS://Jira.example.com/browse/OPS-1?x=<y>#z"}
	if err := db.CreateIncident(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, err := db.Incident(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "bad \ufffd bytes  and <script> line" || got.TicketURL != in.TicketURL {
		t.Errorf("stored title %q, ticket %q", got.Title, got.TicketURL)
	}
	for _, a := range []store.Annotation{
		{Text: ""},
		{Text: "\n\n"},
		{Text: strings.Repeat("x", store.MaxAnnotationRunes+1)},
		{Text: strings.Repeat("x", 64<<20)},
		{Text: "ok", Author: strings.Repeat("a", store.MaxAuthorRunes+1)},
		{Text: "ok", At: time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC)},
		{Text: "ok", At: time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		if err := db.Annotate(ctx, "a", &a); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("Annotate(%.40q, %.20q, %v): %v, want ErrInvalid", a.Text, a.Author, a.At, err)
		}
	}
	for _, slug := range []string{"", "../a", strings.Repeat("a", 1<<20)} {
		if err := db.Annotate(ctx, slug, &store.Annotation{Text: "ok"}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Annotate on slug %.20q: %v, want ErrNotFound", slug, err)
		}
	}
	if got, _ := db.Incident(ctx, "a"); got.Annotations != 0 {
		t.Errorf("%d refused annotations were stored", got.Annotations)
	}
}

func testIncidentAnnotations(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	if err := db.CreateIncident(ctx, &store.Incident{Slug: "notes", Title: "notes"}); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var ids []string
	// Added out of order: listed by their times.
	for _, m := range []int{65, 32, 5, 32} {
		a := store.Annotation{At: base.Add(time.Duration(m) * time.Minute), Text: fmt.Sprintf("at +%d min\r\nsecond line", m), Author: "sre\tbot"}
		if err := db.Annotate(ctx, "notes", &a); err != nil {
			t.Fatal(err)
		}
		if a.Text != fmt.Sprintf("at +%d min  second line", m) || a.Author != "sre bot" || !store.ValidID(a.ID) {
			t.Errorf("annotation stored as %+v", a)
		}
		ids = append(ids, a.ID)
	}
	var got []string
	after := ""
	for {
		page, err := db.Annotations(ctx, "notes", after, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		got = append(got, page[0].Text[:len("at +5 min")+1])
		after = store.AnnotationCursor(page[0])
	}
	if want := []string{"at +5 min ", "at +32 min", "at +32 min", "at +65 min"}; !slices.Equal(got, want) {
		t.Errorf("annotations in order: %q, want %q", got, want)
	}
	if err := db.DeleteAnnotation(ctx, "notes", ids[0]); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteAnnotation(ctx, "notes", ids[0]); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleting twice: %v, want ErrNotFound", err)
	}
	if in, _ := db.Incident(ctx, "notes"); in.Annotations != 3 {
		t.Errorf("%d annotations after one was deleted, want 3", in.Annotations)
	}
	if _, err := db.Annotations(ctx, "notes", "not-a-cursor", 10); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a bad cursor: %v, want ErrInvalid", err)
	}
	// An incident holds at most MaxAnnotations.
	tx, err := store.WritePool(db).Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := 3; i < store.MaxAnnotations; i++ {
		if _, err := tx.Exec(rebind(db, `INSERT INTO incident_annotations (id, slug, at, text, author, created_at) VALUES (?, 'notes', ?, 'x', '', 0)`),
			store.NewID(), i); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := db.Annotate(ctx, "notes", &store.Annotation{Text: "one too many"}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("annotation %d: %v, want ErrInvalid", store.MaxAnnotations+1, err)
	}
}

// rebind writes ? placeholders as the backend wants them, for tests that write
// rows themselves.
func rebind(db *store.DB, q string) string {
	if db.Backend() != "postgres" {
		return q
	}
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// A report labelled incident:SLUG (or incident=SLUG, among other words) is
// attached to that incident when it is stored, and again (changing nothing)
// by AttachLabelled; a label never creates one.
func testAttachLabelled(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	for _, s := range []string{"checkout-oom", "broker-3"} {
		if err := db.CreateIncident(ctx, &store.Incident{Slug: s, Title: s}); err != nil {
			t.Fatal(err)
		}
	}
	const label = "before, INCIDENT:Checkout-OOM incident=broker-3 incident:unknown-one incident:../x"
	u := upload("heap.pb.gz", []byte("a labelled upload"))
	u.Label = label
	created := &store.Report{Kind: "profile"}
	if err := db.CreateReport(ctx, created, []store.Upload{u}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(created.Incidents, []string{"checkout-oom", "broker-3"}) {
		t.Errorf("CreateReport attached the report to %v", created.Incidents)
	}
	for _, s := range []string{"checkout-oom", "broker-3"} {
		if in, _ := db.Incident(ctx, s); in.Reports != 1 {
			t.Errorf("stored: %s has %d reports, want 1", s, in.Reports)
		}
	}
	if plain := newReport(t, db, "profile", "other.pb.gz", "no incident here", ""); plain == "" {
		t.Fatal("no report")
	}
	rep := created.ID
	attached, unknown, err := db.AttachLabelled(ctx, rep)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(attached, []string{"checkout-oom", "broker-3"}) || !slices.Equal(unknown, []string{"unknown-one"}) {
		t.Errorf("attached %v, unknown %v", attached, unknown)
	}
	for _, s := range []string{"checkout-oom", "broker-3"} {
		if in, _ := db.Incident(ctx, s); in.Reports != 1 {
			t.Errorf("%s has %d reports, want 1", s, in.Reports)
		}
	}
	if _, err := db.Incident(ctx, "unknown-one"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a label created an incident: %v", err)
	}
	if _, _, err := db.AttachLabelled(ctx, store.NewID()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown report: %v, want ErrNotFound", err)
	}
}

// TestIncidentsFromLabel is the mapping from a label to slugs.
func TestIncidentsFromLabel(t *testing.T) {
	for label, want := range map[string][]string{
		"incident:checkout-oom":                    {"checkout-oom"},
		"incident=checkout-oom":                    {"checkout-oom"},
		"Incident:Checkout-OOM":                    {"checkout-oom"},
		"before incident:a,incident:b\tincident:a": {"a", "b"},
		"incident:":                                nil,
		"incident:-bad":                            nil,
		"incident:a/b":                             nil,
		"incidents:a":                              nil,
		"my-incident:a":                            nil,
		"incident":                                 nil,
		"before":                                   nil,
		"":                                         nil,
		"incident:new":                             nil,
		"incident:\xff":                            nil,
	} {
		if got := store.IncidentsFromLabel(label); !slices.Equal(got, want) {
			t.Errorf("IncidentsFromLabel(%q) = %q, want %q", label, got, want)
		}
	}
}

// When a report goes (retention, a deleted artifact), its attachment goes with
// it, and the incident stays.
func testEvidenceGoesWithItsReport(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	if err := db.CreateIncident(ctx, &store.Incident{Slug: "i", Title: "i"}); err != nil {
		t.Fatal(err)
	}
	rep, err := db.Report(ctx, newReport(t, db, "profile", "a.pb.gz", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Attach(ctx, "i", store.EvidenceReport, rep.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.DeleteArtifact(ctx, rep.Artifacts[0].SHA256); err != nil {
		t.Fatal(err)
	}
	in, err := db.Incident(ctx, "i")
	if err != nil || in.Reports != 0 {
		t.Errorf("after the report went: %+v (%v)", in, err)
	}
}

// An incident of 10,000 attached reports and runs is read a page at a time:
// no page holds more than MaxIncidentPage, the pages hold every one once in
// order, and search and the counts still answer.
func testTenThousandAttachments(t *testing.T, dsn string) {
	ctx := context.Background()
	db := openStore(t, dsn)
	if err := db.CreateIncident(ctx, &store.Incident{Slug: "big", Title: "big"}); err != nil {
		t.Fatal(err)
	}
	const reports, runs = 10_000, 300
	fillIncident(t, db, "big", reports, runs)
	in, err := db.Incident(ctx, "big")
	if err != nil || in.Reports != reports || in.Runs != runs {
		t.Fatalf("incident %+v (%v)", in, err)
	}
	seen := map[string]bool{}
	var last time.Time
	after, pages := "", 0
	for {
		page, err := db.IncidentEvidence(ctx, "big", after, 100_000)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) > store.MaxIncidentPage {
			t.Fatalf("a page of %d, more than %d", len(page), store.MaxIncidentPage)
		}
		if len(page) == 0 {
			break
		}
		pages++
		for _, e := range page {
			if seen[e.Kind+e.ID] || e.At.Before(last) {
				t.Fatalf("%s %s again or out of order", e.Kind, e.ID)
			}
			seen[e.Kind+e.ID] = true
			last = e.At
		}
		after = store.EvidenceCursor(page[len(page)-1])
	}
	if len(seen) != reports+runs || pages != (reports+runs+store.MaxIncidentPage-1)/store.MaxIncidentPage {
		t.Errorf("%d pieces of evidence in %d pages, want %d", len(seen), pages, reports+runs)
	}
	if page, err := db.SearchIncidents(ctx, store.IncidentSearch{Text: "leak"}); err != nil || len(page) != 1 {
		t.Errorf("search among 10,000 reports: %+v (%v)", page, err)
	}
}

// fillIncident stores reports and finished runs in bulk, straight into the
// tables (the tests of CreateReport are elsewhere), and attaches them all to
// slug: two reports or runs share each millisecond, so paging must break ties.
func fillIncident(t *testing.T, db *store.DB, slug string, reports, runs int) {
	t.Helper()
	tx, err := store.WritePool(db).Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	insReport, err := tx.Prepare(rebind(db, `INSERT INTO reports (id, kind, summary, created_at) VALUES (?, 'series', ?, ?)`))
	if err != nil {
		t.Fatal(err)
	}
	insRun, err := tx.Prepare(rebind(db, `INSERT INTO runs (id, workload, status, verdict, created_at, updated_at) VALUES (?, 'recovery', 'done', 'leak', ?, ?)`))
	if err != nil {
		t.Fatal(err)
	}
	attach := map[string]*sql.Stmt{}
	for _, k := range []string{"report", "run"} {
		s, err := tx.Prepare(rebind(db, `INSERT INTO incident_`+k+`s (slug, `+k+`_id, evidence_at, attached_at) VALUES (?, ?, ?, 0)`))
		if err != nil {
			t.Fatal(err)
		}
		attach[k] = s
	}
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for i := range reports {
		id, at := store.NewID(), base+int64(i/2)
		if _, err := insReport.Exec(id, `{"verdict":"steady"}`, at); err != nil {
			t.Fatal(err)
		}
		if _, err := attach["report"].Exec(slug, id, at); err != nil {
			t.Fatal(err)
		}
	}
	for i := range runs {
		id, at := store.NewID(), base+int64(i*3)
		if _, err := insRun.Exec(id, at, at); err != nil {
			t.Fatal(err)
		}
		if _, err := attach["run"].Exec(slug, id, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
