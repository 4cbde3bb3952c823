package web

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// dashboardList reads the dashboard's report list at path: the report URLs, the
// labels and the next and first page links.
func dashboardList(t *testing.T, ts *testServer, path string) (urls, labels []string, next, first string) {
	t.Helper()
	code, _, pg := ts.get(t, path)
	if code != 200 {
		t.Fatalf("GET %s: %d", path, code)
	}
	doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(pg))
	doc.Find("[data-testid=report-item]").Each(func(_ int, s *goquery.Selection) {
		href, _ := s.Find("[data-testid=report-link]").Attr("href")
		urls = append(urls, href)
		labels = append(labels, s.Find("[data-testid=report-label]").Text())
	})
	next, _ = doc.Find("[data-testid=reports-next]").Attr("href")
	first, _ = doc.Find("[data-testid=reports-first]").Attr("href")
	return urls, labels, next, first
}

// TestDashboardSearchesAndPages: the dashboard's list finds reports by label,
// SHA-256 prefix, kind, name and verdict, shows the labels, and pages with a
// cursor in the URL; the Markdown names the label.
func TestDashboardSearchesAndPages(t *testing.T) {
	ts := newTestServer(t, Config{UploadsPerMinute: -1})
	const label = "INC-1234 checkout OOM"
	heap := ts.mustUpload(t, map[string]string{"label": label}, fixture(t, "pprof", "flameshow-heap.pb.gz"))
	dump := ts.mustUpload(t, nil, fixture(t, "goroutines", "goprofnotes-snap1-debug2.txt"))
	var series []file
	for _, name := range []string{"parca-self-heap-t0-1644509272.pb.gz", "parca-self-heap-t6-1644509290.pb.gz", "parca-self-heap-t9-1644509299.pb.gz"} {
		series = append(series, fixture(t, "pprof", name))
	}
	ser := ts.mustUpload(t, nil, series...)
	if ser.Verdict == "" {
		t.Fatal("the series has no verdict")
	}
	for _, c := range []struct {
		q    string
		want string
	}{
		{"inc-1234", heap.ReportURL},
		{heap.Artifacts[0].SHA256[:12], heap.ReportURL},
		{"goroutine", dump.ReportURL},
		{"snap1-debug2", dump.ReportURL},
		{ser.Verdict, ser.ReportURL},
	} {
		urls, _, _, _ := dashboardList(t, ts, "/?q="+c.q)
		found := false
		for _, u := range urls {
			found = found || u == c.want
		}
		if !found || (c.q != ser.Verdict && len(urls) != 1) {
			t.Errorf("search %q: %v; want %s", c.q, urls, c.want)
		}
	}
	urls, labels, _, _ := dashboardList(t, ts, "/")
	if len(urls) != 3 || labels[2] != label {
		t.Errorf("list %v labels %q; want the label on the oldest", urls, labels)
	}
	_, _, md := ts.get(t, heap.ReportURL+".md")
	if !bytes.Contains(md, []byte("Label: **"+label+"**")) {
		t.Errorf("the Markdown does not name the label:\n%s", md)
	}
	if code, _, _ := ts.get(t, "/?source=nope"); code != 400 {
		t.Errorf("source=nope: %d", code)
	}
	if urls, _, _, _ := dashboardList(t, ts, "/?source=run"); len(urls) != 0 {
		t.Errorf("source=run lists uploads: %v", urls)
	}
	// Paging: 23 more reports make two pages with the search kept.
	for i := range 23 {
		ts.mustUpload(t, map[string]string{"label": "paged"}, file{name: fmt.Sprintf("app-%02d.log", i), data: []byte(fmt.Sprintf("2024-01-01 INFO line %d\n", i))})
	}
	first, _, next, back := dashboardList(t, ts, "/?q=paged")
	if len(first) != reportsPerPage || next == "" || back != "" || !strings.Contains(next, "q=paged") || !strings.Contains(next, "after=") {
		t.Fatalf("page 1: %d items, next %q, first %q", len(first), next, back)
	}
	second, _, next2, back2 := dashboardList(t, ts, next)
	if len(second) != 23-reportsPerPage || next2 != "" || back2 == "" {
		t.Fatalf("page 2: %d items, next %q, first %q", len(second), next2, back2)
	}
	seen := map[string]bool{}
	for _, u := range append(first, second...) {
		if seen[u] {
			t.Errorf("%s listed twice", u)
		}
		seen[u] = true
	}
	if code, _, _ := ts.get(t, "/?after=garbage"); code != 400 {
		t.Errorf("a bad cursor: %d, want 400", code)
	}
}
