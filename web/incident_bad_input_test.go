package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/leakui/leakui/internal/pgtest"
	"github.com/leakui/leakui/store"
	"github.com/leakui/leakui/store/postgres"
	"github.com/leakui/leakui/store/sqlite"
)

// TestIncidentHostileInput sends what a careless or hostile client sends:
// slugs that are paths or markup, titles and annotations too long or with
// markup, ticket URLs that are scripts, refs that are not reports, bodies too
// large, and cross-site form posts. Each gets a clear 4xx and stores nothing;
// markup is shown as text.
func TestIncidentHostileInput(t *testing.T) {
	ts := newTestServer(t, Config{})
	const js = "application/json"
	for _, body := range []string{
		`{"slug":"../etc","title":"x"}`, `{"slug":"<script>","title":"x"}`, `{"slug":"a--b","title":"x"}`,
		`{"slug":"new","title":"x"}`, `{"slug":"` + strings.Repeat("a", 65) + `","title":"x"}`, `{"slug":"UPPER","title":"x"}`,
		`{"slug":"ok-1","title":""}`, `{"slug":"ok-1","title":"` + strings.Repeat("é", 201) + `"}`,
		`{"slug":"ok-1","title":"x","ticket_url":"javascript:alert(1)"}`, `{"slug":"ok-1","title":"x","ticket_url":"JavaScript:alert(1)//http://x"}`,
		`{"slug":"ok-1","title":"x","ticket_url":"data:text/html,<script>alert(1)</script>"}`,
		`{"slug":"ok-1","title":"x","ticket_url":"https://user:pw@tickets.example.com/1"}`, `{"slug":"ok-1","title":"x","ticket_url":"ftp://x/1"}`,
		`{"slug":"ok-1","title":"x","ticket_url":"//evil.example/1"}`,
		`{"slug":"ok-1"`, `{"slug":"ok-1","title":"x","extra":1}`, `[]`,
	} {
		resp, b := ts.post(t, "/api/incidents", js, body)
		var e map[string]string
		if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(b, &e) != nil || e["error"] == "" {
			t.Errorf("POST /api/incidents %.80s: %d %s, want 400 with an error", body, resp.StatusCode, b)
		}
	}
	if resp, b := ts.post(t, "/api/incidents", js, `{"slug":"ok-1","title":"`+strings.Repeat("x", 70<<10)+`"}`); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a 70 kB body: %d %s", resp.StatusCode, b)
	}
	if found, _ := ts.db.SearchIncidents(context.Background(), store.IncidentSearch{}); len(found) != 0 {
		t.Fatalf("refused incidents were stored: %+v", found)
	}

	// The form shows the refusal with what was typed, and no link of it.
	resp, pg := ts.postForm(t, "/i", "slug", "evil", "title", "x", "ticket_url", "javascript:alert(document.cookie)")
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(string(pg)))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(doc.Find("[data-testid=incident-create-error]").Text(), "http:// or https://") {
		t.Errorf("the form with a javascript: ticket: %d %q", resp.StatusCode, doc.Find("[data-testid=incident-create-error]").Text())
	}
	doc.Find("a[href]").Each(func(_ int, s *goquery.Selection) {
		if href, _ := s.Attr("href"); strings.HasPrefix(strings.ToLower(href), "javascript:") {
			t.Errorf("the page links %q", href)
		}
	})

	// Markup in a title and an annotation is text on the page, the list, the
	// Markdown and the JSON.
	const markup = `<img src=x onerror=alert(1)> **bold** [link](javascript:alert(1))`
	if resp, b := ts.post(t, "/api/incidents", js, fmt.Sprintf(`{"slug":"markup","title":%q,"ticket_url":"https://tickets.example.com/a?b=<c>"}`, markup+"\nsecond line")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.StatusCode, b)
	}
	if resp, b := ts.postForm(t, "/i/markup/annotations", "text", markup, "at", "2026-12-02T10:00"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("annotate: %d %s", resp.StatusCode, b)
	}
	for _, path := range []string{"/i/markup", "/i"} {
		doc := incidentDoc(t, ts, path)
		if doc.Find("main img:not(.timeline-static)").Length() != 0 || doc.Find("main a[href^='javascript']").Length() != 0 {
			t.Errorf("%s: the markup became elements", path)
		}
		if !strings.Contains(doc.Find("main").Text(), "<img src=x onerror=alert(1)>") {
			t.Errorf("%s does not show the title's markup as text", path)
		}
	}
	_, _, md := ts.get(t, "/i/markup.md")
	var html bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.Table)).Convert(md, &html); err != nil {
		t.Fatal(err)
	}
	rendered, _ := goquery.NewDocumentFromReader(&html)
	if rendered.Find("img").Length() != 1 || rendered.Find("a[href^='javascript']").Length() != 0 || rendered.Find("strong:contains('bold')").Length() != 0 ||
		!strings.Contains(rendered.Text(), "<img src=x onerror=alert(1)> **bold** [link](javascript:alert(1)) second line") {
		t.Errorf("the Markdown renders the markup as markup:\n%s", md)
	}

	// Annotations, state, refs and paths.
	for _, c := range []struct {
		path, body string
		want       int
	}{
		{"/api/incidents/markup/annotations", `{"text":""}`, 400},
		{"/api/incidents/markup/annotations", `{"text":"` + strings.Repeat("a", 1001) + `"}`, 400},
		{"/api/incidents/markup/annotations", `{"text":"x","at":"yesterday"}`, 400},
		{"/api/incidents/markup/annotations", `{"text":"x","at":"0001-01-01T00:00:00Z"}`, 400},
		{"/api/incidents/nope/annotations", `{"text":"x"}`, 404},
		{"/api/incidents/markup/state", `{"state":"deleted"}`, 400},
		{"/api/incidents/markup/evidence", `{"ref":"javascript:alert(1)"}`, 400},
		{"/api/incidents/markup/evidence", `{"ref":"https://leakui.example.com/r/aaaaaaaaaaaaaaaaaaaaaaaaaa"}`, 404},
		{"/api/incidents/markup/evidence", `{"ref":"aaaaaaaaaaaaaaaaaaaaaaaaaa"}`, 404},
		{"/api/incidents/markup/evidence", `{"ref":"/etc/passwd"}`, 400},
		{"/r/aaaaaaaaaaaaaaaaaaaaaaaaaa/incident", `{"slug":"markup"}`, 404},
		{"/runs/aaaaaaaaaaaaaaaaaaaaaaaaaa/incident", `{"slug":"../../x"}`, 404},
	} {
		resp, b := ts.post(t, c.path, js, c.body)
		if resp.StatusCode != c.want {
			t.Errorf("POST %s %.60s: %d %s, want %d", c.path, c.body, resp.StatusCode, b, c.want)
		}
	}
	for path, want := range map[string]int{"/i/..%2F..%2Fetc": 404, "/i/UPPER": 404, "/i/nope": 404, "/i/nope.md": 404,
		"/i/nope/timeline.png": 404, "/i/markup/timeline.png?w=99999": 400, "/i/markup/timeline.png?w=abc": 400,
		"/i?after=garbage": 400, "/i?state=deleted": 400, "/i?q=" + strings.Repeat("a", 900): 400} {
		if code, _, b := ts.get(t, path); code != want {
			t.Errorf("GET %s: %d %.200s, want %d", path, code, b, want)
		}
	}
	// A form posted from another site is refused before it reaches the store.
	resp, b := ts.post(t, "/i/markup/state", "application/x-www-form-urlencoded", "state=resolved",
		"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-site form: %d %s, want 403", resp.StatusCode, b)
	}
	if in, _ := ts.db.Incident(context.Background(), "markup"); in.State != store.IncidentOpen {
		t.Errorf("the cross-site form resolved the incident")
	}
}

// TestIncidentToken checks the token rules: writes need the token like every
// other write, and reads too, since an incident lists its reports' ids (what
// protects a report) under a guessable slug.
func TestIncidentToken(t *testing.T) {
	ts := newTestServer(t, Config{Token: "s3cret"})
	if resp, b := ts.post(t, "/api/incidents", "application/json", `{"slug":"a","title":"a"}`); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("create without the token: %d %s", resp.StatusCode, b)
	}
	if resp, b := ts.post(t, "/api/incidents", "application/json", `{"slug":"a","title":"a"}`, "Authorization", "Bearer s3cret"); resp.StatusCode != http.StatusCreated {
		t.Fatalf("create with the token: %d %s", resp.StatusCode, b)
	}
	for _, path := range []string{"/i", "/i/a", "/i/a.md", "/i/a.json", "/i/a/timeline.png", "/api/incidents", "/api/incidents/a"} {
		if code, _, _ := ts.get(t, path); code != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d, want 401", path, code)
		}
		if code, _, _ := ts.get(t, path, "Authorization", "Bearer s3cret"); code != http.StatusOK {
			t.Errorf("GET %s with the token: %d, want 200", path, code)
		}
	}
}

// TestIncidentTenThousandReports attaches 10,000 reports (one real goroutine
// dump, stored once) to an incident on a server with a small memory budget:
// its page, Markdown, JSON and image answer, judged on one page of evidence
// and saying how many more there are; the evidence list pages through them;
// and the budget is all given back.
func TestIncidentTenThousandReports(t *testing.T) {
	const budget = 256 << 20
	ts := newTestServer(t, Config{MemoryBudget: budget})
	ctx := context.Background()
	if err := ts.db.CreateIncident(ctx, &store.Incident{Slug: "big", Title: "ten thousand dumps"}); err != nil {
		t.Fatal(err)
	}
	up := ts.mustUpload(t, map[string]string{"label": "incident:big"}, fixtureFile(t, "goroutines", "goprofnotes-snap1-debug2.txt"))
	rep, err := ts.db.Report(ctx, up.ReportID)
	if err != nil {
		t.Fatal(err)
	}
	a := rep.Artifacts[0]
	const n = 10_000
	for i := 1; i < n; i++ {
		r := store.Report{Kind: rep.Kind, Params: rep.Params, Summary: rep.Summary}
		if err := ts.db.CreateReport(ctx, &r, []store.Upload{{Name: a.Name, Label: "incident:big", SHA256: a.SHA256, Size: a.Size, Kind: a.Kind, Format: a.Format}}); err != nil {
			t.Fatal(err)
		}
	}
	doc := incidentDoc(t, ts, "/i/big")
	if got := doc.Find("[data-testid=incident-more]").Text(); !strings.Contains(got, fmt.Sprintf("first %d", store.MaxIncidentPage)) ||
		!strings.Contains(got, fmt.Sprintf("%d more", n-store.MaxIncidentPage)) {
		t.Errorf("the page says %q of what it judged", got)
	}
	seen, pages, next := 0, 0, "/i/big"
	for next != "" && pages < 3 {
		doc := incidentDoc(t, ts, next)
		seen += doc.Find("[data-testid=evidence-row]").Length()
		next, _ = doc.Find("[data-testid=evidence-next]").Attr("href")
		pages++
	}
	if seen != 3*evidenceRowsForTest || next == "" {
		t.Errorf("three pages of evidence list %d rows, next %q", seen, next)
	}
	for _, path := range []string{"/i/big.md", "/i/big.json", "/i/big/timeline.png", "/i"} {
		code, ct, b := ts.get(t, path)
		if code != 200 {
			t.Errorf("GET %s: %d %.200s", path, code, b)
		}
		if ct == "image/png" {
			if _, err := png.Decode(strings.NewReader(string(b))); err != nil {
				t.Errorf("%s: %v", path, err)
			}
		}
	}
	if used := ts.srv.budget.Used(); used > budget/2 {
		t.Errorf("the memory budget holds %d bytes after the requests, more than half of %d", used, budget)
	}
}

// evidenceRowsForTest is the incident page's evidence rows a page.
const evidenceRowsForTest = 50

// TestIncidentSurvivesRestart creates an incident with evidence and
// annotations, stops the server and opens a new one on the same store, on
// SQLite (the same directory) and on PostgreSQL (the same schema): the
// incident, its state, its evidence and its annotations are there.
func TestIncidentSurvivesRestart(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			var open func() *store.DB
			if backend == "sqlite" {
				dir := t.TempDir()
				open = func() *store.DB {
					db, err := sqlite.Open(context.Background(), dir)
					if err != nil {
						t.Fatal(err)
					}
					return db
				}
			} else {
				dsn := pgtest.DSN(t)
				open = func() *store.DB {
					db, err := postgres.Open(context.Background(), dsn)
					if err != nil {
						t.Fatal(err)
					}
					return db
				}
			}
			incidentSurvivesRestart(t, open)
		})
	}
}

func incidentSurvivesRestart(t *testing.T, open func() *store.DB) {
	start := func() (*httptest.Server, *Server, *store.DB) {
		db := open()
		srv, err := NewServer(Config{Store: db, TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		return httptest.NewServer(srv), srv, db
	}
	stop := func(hs *httptest.Server, srv *Server, db *store.DB) {
		srv.BeginShutdown()
		hs.Close()
		srv.Close()
		db.Close()
	}
	hs, srv, db := start()
	ts := &testServer{Server: hs, db: db, srv: srv}
	if resp, b := ts.post(t, "/api/incidents", "application/json", `{"slug":"restart","title":"survives"}`); resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %s", resp.StatusCode, b)
	}
	up := ts.mustUpload(t, map[string]string{"label": "incident:restart"}, fixtureFile(t, "goroutines", "goprofnotes-snap1-debug2.txt"))
	ts.post(t, "/api/incidents/restart/annotations", "application/json", `{"text":"before the restart","at":"2026-12-02T09:00:00Z"}`)
	ts.post(t, "/api/incidents/restart/state", "application/json", `{"state":"resolved"}`)
	stop(hs, srv, db)

	hs, srv, db = start()
	defer stop(hs, srv, db)
	ts = &testServer{Server: hs, db: db, srv: srv}
	doc := incidentDoc(t, ts, "/i/restart")
	if doc.Find("[data-testid=incident-state]").Text() != "resolved" || doc.Find("[data-testid=annotation-text]").Text() != "before the restart" {
		t.Errorf("after the restart: state %q, annotation %q", doc.Find("[data-testid=incident-state]").Text(), doc.Find("[data-testid=annotation-text]").Text())
	}
	if id, _ := doc.Find("[data-testid=evidence-row]").Attr("data-id"); id != up.ReportID {
		t.Errorf("after the restart the evidence is %q, want %s", id, up.ReportID)
	}
}
