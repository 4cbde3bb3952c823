package web

import (
	"bytes"
	"encoding/json"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/lab"
)

// fixtureFile reads a file of testdata/ as an upload part.
func fixtureFile(t testing.TB, elem ...string) file {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, elem...))
	if err != nil {
		t.Fatal(err)
	}
	return file{name: elem[len(elem)-1], data: b}
}

// post sends a body to the test server without following redirects.
func (ts *testServer) post(t testing.TB, path, contentType string, body string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// postForm posts form fields.
func (ts *testServer) postForm(t testing.TB, path string, kv ...string) (*http.Response, []byte) {
	t.Helper()
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return ts.post(t, path, "application/x-www-form-urlencoded", v.Encode())
}

// incidentFixture is an incident built from real evidence through the real
// upload path: what the tests know of it.
type incidentFixture struct {
	slug    string
	reports map[string]string // report ids by what they are
	run     string
}

// The annotation with markup the fixture adds.
const hostileNote = `<script>alert(1)</script> deployed the fix`

// buildIncident creates an incident and attaches to it, by the label
// incident:SLUG at upload: a heap series of three real heap profiles, the Go
// runtime's goroutineleak profile, a goroutine dump, a JVM's capture bundles
// before and after, a Kafka broker's log counted with the group members
// preset; then a leaky lab run from the run page's form, and two
// annotations.
func buildIncident(t *testing.T, ts *testServer) incidentFixture {
	t.Helper()
	f := incidentFixture{slug: "checkout-oom", reports: map[string]string{}}
	resp, body := ts.post(t, "/api/incidents", "application/json",
		`{"slug":"checkout-oom","title":"checkout pods OOM-killed every 6 h","ticket_url":"https://tickets.example.com/INC-4711"}`)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/incidents: %d %s", resp.StatusCode, body)
	}
	label := map[string]string{"label": "prod incident:checkout-oom"}
	f.reports["heap series"] = ts.mustUpload(t, label,
		fixtureFile(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz"),
		fixtureFile(t, "pprof", "parca-self-heap-t6-1644509290.pb.gz"),
		fixtureFile(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")).ReportID
	f.reports["goroutineleak"] = ts.mustUpload(t, label, fixtureFile(t, "pprof", "leakui-leaky-goroutineleak-100.pb.gz")).ReportID
	f.reports["dump"] = ts.mustUpload(t, label, fixtureFile(t, "goroutines", "goprofnotes-snap1-debug2.txt")).ReportID
	f.reports["capture"] = ts.mustUpload(t, label,
		fixtureFile(t, "capture", "jvm-unclosed-gzip-before.tar.gz"),
		fixtureFile(t, "capture", "jvm-unclosed-gzip-after.tar.gz")).ReportID
	f.reports["log"] = ts.mustUpload(t, map[string]string{"label": "incident:checkout-oom", "preset": "kafka-group-members"},
		fixtureFile(t, "logs", "kafka-3.6.2-broker-server.log")).ReportID

	code, out := postJSON(t, ts.URL+"/api/runs", `{"workload":"checkpoint","variant":"leaky","mode":"active","cycles":12,"tasks":1}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST /api/runs: %d %v", code, out)
	}
	run := waitRun(t, ts, out["id"])
	if run.Verdict != lab.VerdictLeak {
		t.Fatalf("the leaky run ended %+v", run)
	}
	f.run = run.ID
	if resp, body := ts.postForm(t, "/runs/"+f.run+"/incident", "slug", f.slug); resp.StatusCode != http.StatusSeeOther ||
		resp.Header.Get("Location") != "/i/checkout-oom#evidence" {
		t.Fatalf("attach the run from its page: %d %s %s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	for _, note := range [][2]string{{"2026-12-02T10:32", hostileNote}, {"2026-12-02T11:05:00Z", "restarted broker-3"}} {
		if resp, body := ts.postForm(t, "/i/checkout-oom/annotations", "at", note[0], "text", note[1], "author", "sre"); resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("annotate: %d %s", resp.StatusCode, body)
		}
	}
	return f
}

// incidentDoc fetches a page and parses it.
func incidentDoc(t *testing.T, ts *testServer, path string) *goquery.Document {
	t.Helper()
	code, _, pg := ts.get(t, path)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, pg)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(pg))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestIncidentFromRealEvidence builds an incident from real evidence and
// reads its page, JSON, Markdown and timeline image: the headline is the
// goroutineleak profile's proof, the strongest evidence comes first with its
// number and link, every source's series is on the timeline in its unit, the
// dump without a time is beside it, the annotation's markup is text, and
// og:image points at the PNG.
func TestIncidentFromRealEvidence(t *testing.T) {
	ts := labServer(t, "5ms", lab.Config{Snapshots: 4})
	f := buildIncident(t, ts)
	doc := incidentDoc(t, ts, "/i/"+f.slug)

	if got := doc.Find("[data-testid=incident-strength]").Text(); got != "leak proven" {
		t.Errorf("the verdict is %q, want leak proven", got)
	}
	headline := doc.Find("[data-testid=incident-headline]").Text()
	// Two proofs: the JVM's native growth NMT cannot see (bytes) ranks before
	// the goroutineleak profile's goroutines (a count).
	if !strings.HasPrefix(headline, "Leak proven: JVM captures") || !strings.Contains(headline, "RSS − heap grew 230.8 MB beyond what NMT tracks") {
		t.Errorf("the headline %q does not name the JVM's untracked native growth", headline)
	}
	if lead, _ := doc.Find("[data-testid=incident-lead]").Attr("href"); lead != "/r/"+f.reports["capture"] {
		t.Errorf("the headline links %q, want the capture report", lead)
	}
	second := doc.Find("[data-testid=strongest-item]").Eq(1)
	if !strings.Contains(second.Text(), "goroutineleak") || second.Find("[data-testid=strongest-number]").Text() != "100" {
		t.Errorf("the second strongest evidence reads %q, want the goroutineleak profile's 100", second.Text())
	}
	var strengths []string
	doc.Find("[data-testid=strongest-item]").Each(func(_ int, s *goquery.Selection) {
		st, _ := s.Attr("data-strength")
		strengths = append(strengths, st)
	})
	rank := map[string]int{"leak proven": 4, "leak suspected": 3, "inconclusive": 2, "no leak": 1}
	for i := 1; i < len(strengths); i++ {
		if rank[strengths[i]] > rank[strengths[i-1]] {
			t.Errorf("the strongest evidence is not strongest first: %q", strengths)
		}
	}
	if len(strengths) < 4 || strengths[0] != "leak proven" || strengths[1] != "leak proven" {
		t.Errorf("strongest evidence %q", strengths)
	}
	if n := doc.Find("[data-testid=evidence-row]").Length(); n != 6 {
		t.Errorf("%d evidence rows, want 6 (five reports and the run)", n)
	}
	// The dump has no time: it is beside the chart.
	if !strings.Contains(doc.Find("[data-testid=incident-untimed]").Text(), "goprofnotes-snap1-debug2.txt") {
		t.Errorf("the goroutine dump is not listed beside the timeline: %q", doc.Find("[data-testid=incident-untimed]").Text())
	}
	raw, _ := doc.Find("[data-testid=incident-timeline]").Attr("data-timeline")
	var tl struct {
		Series []struct {
			Name, Unit string
			T, V       []float64
		}
		Markers []struct{ Label, Kind string }
	}
	if err := json.Unmarshal([]byte(raw), &tl); err != nil {
		t.Fatalf("data-timeline: %v", err)
	}
	names := map[string]string{}
	for _, s := range tl.Series {
		names[s.Name] = s.Unit
		if len(s.T) == 0 || len(s.T) != len(s.V) {
			t.Errorf("series %q has %d times and %d values", s.Name, len(s.T), len(s.V))
		}
	}
	for name, unit := range map[string]string{"heap series inuse_space": "bytes", "JVM resident set (RSS)": "bytes",
		"JVM native memory NMT does not track": "bytes", "still open: group members": "count",
		"lab run: still open (SAMZA-2785, leaky: checkpoint storm leaky/active, 12 rebalances × 1 task)": "count"} {
		if names[name] != unit {
			t.Errorf("the timeline has no series %q in %s: %v", name, unit, names)
		}
	}
	var kinds []string
	for _, m := range tl.Markers {
		kinds = append(kinds, m.Kind+":"+m.Label)
	}
	if !strings.Contains(strings.Join(kinds, "|"), "annotation:"+hostileNote) || !strings.Contains(strings.Join(kinds, "|"), "event:lab run started") {
		t.Errorf("markers %q", kinds)
	}
	// The annotation's markup is text.
	if doc.Find("[data-testid=incident-annotations] script").Length() != 0 {
		t.Error("the annotation's <script> became an element")
	}
	if got := doc.Find("[data-testid=annotation-text]").First().Text(); got != hostileNote {
		t.Errorf("the first annotation reads %q", got)
	}
	og, _ := doc.Find(`meta[property="og:image"]`).Attr("content")
	if og != ts.URL+"/i/checkout-oom/timeline.png" {
		t.Errorf("og:image is %q", og)
	}

	// The PNG: the size stated, cached by what it draws.
	resp, err := http.Get(og)
	if err != nil {
		t.Fatal(err)
	}
	pngBytes, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if dir := os.Getenv("LEAKUI_SCREENSHOTS"); dir != "" {
		os.WriteFile(filepath.Join(dir, "incident-timeline.png"), pngBytes, 0o644)
	}
	img, err := png.Decode(bytes.NewReader(pngBytes))
	if err != nil || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("timeline.png: %v %s", err, resp.Header.Get("Content-Type"))
	}
	if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 630 {
		t.Errorf("timeline.png is %dx%d, want 1200x630", b.Dx(), b.Dy())
	}
	// A small image draws the series that fit, not an empty frame: colour
	// (a series' line) above the legend.
	code, _, small := ts.get(t, "/i/checkout-oom/timeline.png?w=600&h=300")
	simg, err := png.Decode(bytes.NewReader(small))
	if code != 200 || err != nil || simg.Bounds().Dx() != 600 || simg.Bounds().Dy() != 300 {
		t.Fatalf("the 600×300 timeline: %d %v", code, err)
	}
	coloured := 0
	for y := 0; y < 240; y++ {
		for x := 0; x < 600; x++ {
			r, g, b, _ := simg.At(x, y).RGBA()
			if max(r, g, b)-min(r, g, b) > 0x4000 {
				coloured++
			}
		}
	}
	if coloured < 50 {
		t.Errorf("the 600×300 timeline draws %d coloured pixels above its legend: no series", coloured)
	}
	etag := resp.Header.Get("ETag")
	if code, _, _ := ts.get(t, "/i/checkout-oom/timeline.png", "If-None-Match", etag); etag == "" || code != http.StatusNotModified {
		t.Errorf("timeline.png again with its ETag %q: %d, want 304", etag, code)
	}

	// The JSON twin says the same.
	code, _, js := ts.get(t, "/i/checkout-oom.json")
	var doc2 struct {
		Verdict struct {
			Strength, Headline string
		}
		Evidence    []struct{ Strength, Link string }
		Annotations []struct{ Text string }
	}
	if code != 200 || json.Unmarshal(js, &doc2) != nil || doc2.Verdict.Strength != "leak proven" || doc2.Verdict.Headline != headline ||
		len(doc2.Evidence) != 6 || len(doc2.Annotations) != 2 {
		t.Errorf("the JSON twin: %d %s", code, js)
	}
	checkMarkdownLinks(t, ts, "/i/checkout-oom.md", 6)

	// The run's page offers the form; search finds the incident by a verdict
	// inside it.
	if action, _ := incidentDoc(t, ts, "/runs/"+f.run).Find("[data-testid=attach-to-incident]").Attr("action"); action != "/runs/"+f.run+"/incident" {
		t.Errorf("the run page's attach form posts to %q", action)
	}
	for q, want := range map[string]int{"leak": 1, "inc-4711": 1, "oom": 1, "no-such-thing": 0} {
		if n := incidentDoc(t, ts, "/i?q="+q).Find("[data-testid=incident-item]").Length(); n != want {
			t.Errorf("searching %q finds %d incidents, want %d", q, n, want)
		}
	}
}

// checkMarkdownLinks parses an incident's Markdown with goldmark (GitHub's
// tables) and GETs every link and image on the server: each answers 200, and
// each image is a PNG of 1200×630. It wants at least evidence evidence links.
func checkMarkdownLinks(t *testing.T, ts *testServer, path string, evidence int) {
	t.Helper()
	code, ct, md := ts.get(t, path)
	if code != 200 || !strings.HasPrefix(ct, "text/markdown") {
		t.Fatalf("GET %s: %d %s", path, code, ct)
	}
	doc := goldmark.New(goldmark.WithExtensions(extension.Table)).Parser().Parse(text.NewReader(md))
	var links, images []string
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			links = append(links, string(n.Destination))
		case *ast.Image:
			images = append(images, string(n.Destination))
		}
		return ast.WalkContinue, nil
	})
	if len(images) != 1 || len(links) < evidence+2 {
		t.Fatalf("%s: %d images, %d links:\n%s", path, len(images), len(links), md)
	}
	for _, l := range append(links, images...) {
		if strings.HasPrefix(l, "https://tickets.example.com/") {
			continue // the ticket is not ours
		}
		if !strings.HasPrefix(l, ts.URL+"/") {
			t.Errorf("%s links %q, not an absolute link to the server", path, l)
			continue
		}
		code, _, body := ts.get(t, l)
		if code != 200 {
			t.Errorf("%s links %s: %d", path, l, code)
		}
		if strings.HasSuffix(l, ".png") {
			img, err := png.Decode(bytes.NewReader(body))
			if err != nil || img.Bounds().Dx() != 1200 || img.Bounds().Dy() != 630 {
				t.Errorf("%s: image %s is not a 1200×630 PNG: %v", path, l, err)
			}
		}
	}
}

// TestIncidentAttachFromPages checks the incident parts of the root's pages:
// without an open incident a report's page is as it was and the dashboard
// offers the form that creates one, which does; with one, the dashboard lists it and the report's page offers the
// form that attaches the report to it, which does; a resolved incident
// leaves the dashboard.
func TestIncidentAttachFromPages(t *testing.T) {
	ts := newTestServer(t, Config{})
	up := ts.mustUpload(t, nil, fixtureFile(t, "goroutines", "goprofnotes-snap1-debug2.txt"))
	if doc := incidentDoc(t, ts, "/r/"+up.ReportID); doc.Find("[data-testid=attach-to-incident]").Length() != 0 {
		t.Error("a report's page offers to attach it with no incident open")
	}
	// The dashboard's form creates one.
	create := incidentDoc(t, ts, "/").Find("[data-testid=dashboard-incident-create]")
	createAction, _ := create.Attr("action")
	if create.Find("input[name=slug]").Length() != 1 || create.Find("input[name=title]").Length() != 1 || createAction != "/i" {
		t.Fatalf("the dashboard's create form posts to %q with %d fields", createAction, create.Find("input").Length())
	}
	if resp, b := ts.postForm(t, createAction, "slug", "api-latency", "title", "API latency"); resp.StatusCode != http.StatusSeeOther ||
		resp.Header.Get("Location") != "/i/api-latency" {
		t.Fatalf("create from the form: %d %s", resp.StatusCode, b)
	}
	if got := incidentDoc(t, ts, "/").Find("[data-testid=open-incident]").Text(); !strings.Contains(got, "api-latency") {
		t.Errorf("the dashboard lists the open incidents as %q", got)
	}
	form := incidentDoc(t, ts, "/r/"+up.ReportID).Find("[data-testid=attach-to-incident]")
	action, _ := form.Attr("action")
	slug, _ := form.Find("option").Attr("value")
	if action != "/r/"+up.ReportID+"/incident" || slug != "api-latency" {
		t.Fatalf("the report page's form posts to %q offering %q", action, slug)
	}
	if resp, b := ts.postForm(t, action, "slug", slug); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("attach from the report page: %d %s", resp.StatusCode, b)
	}
	doc := incidentDoc(t, ts, "/i/api-latency")
	if id, _ := doc.Find("[data-testid=evidence-row]").Attr("data-id"); id != up.ReportID {
		t.Errorf("the incident's evidence is %q, want the report", id)
	}
	// Detach it again from the incident page, then attach it by its link.
	if resp, b := ts.postForm(t, "/i/api-latency/evidence/detach", "kind", "report", "id", up.ReportID); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("detach: %d %s", resp.StatusCode, b)
	}
	if n := incidentDoc(t, ts, "/i/api-latency").Find("[data-testid=evidence-row]").Length(); n != 0 {
		t.Errorf("%d rows after detaching", n)
	}
	if resp, b := ts.postForm(t, "/i/api-latency/evidence", "ref", up.ReportURL+".md"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("attach by link: %d %s", resp.StatusCode, b)
	}
	if n := incidentDoc(t, ts, "/i/api-latency").Find("[data-testid=evidence-row]").Length(); n != 1 {
		t.Errorf("%d rows after attaching by link", n)
	}
	if resp, b := ts.postForm(t, "/i/api-latency/state", "state", "resolved"); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("resolve: %d %s", resp.StatusCode, b)
	}
	if incidentDoc(t, ts, "/").Find("[data-testid=open-incidents]").Length() != 0 {
		t.Error("the dashboard lists a resolved incident as open")
	}
	if got, _ := incidentDoc(t, ts, "/i?q=api").Find("[data-testid=incident-item]").Attr("data-state"); got != "resolved" {
		t.Errorf("searching api finds state %q", got)
	}
}
