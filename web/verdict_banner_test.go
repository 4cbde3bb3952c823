package web

import (
	"bytes"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/leakui/leakui/web/page"
)

func pageDoc(t *testing.T, ts *testServer, path string) *goquery.Document {
	t.Helper()
	code, _, body := ts.get(t, path)
	if code != 200 {
		t.Fatalf("GET %s: %d", path, code)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestVerdictBannerAndLinkPreview: the Parca series page opens with the
// inconclusive banner (its numbers and the 8–12 advice), says the verdict once,
// and carries OpenGraph and Twitter tags with the title and the verdict sentence
// for link previews; a diff and a log page have their own banners.
func TestVerdictBannerAndLinkPreview(t *testing.T) {
	ts := newTestServer(t, Config{})
	up := ts.mustUpload(t, nil, parcaSeries(t)...)
	doc := pageDoc(t, ts, page.ReportURL(up.ReportID))
	banner := doc.Find("main [data-testid=verdict-banner]")
	if banner.Length() != 1 || banner.AttrOr("data-state", "") != "inconclusive" || banner.Find("[data-testid=verdict-state]").Text() != "inconclusive" {
		t.Fatalf("banner %q", banner.Text())
	}
	if first := doc.Find("[data-testid=report-title]").NextAll().Not("[data-testid=report-label]").First(); first.AttrOr("data-testid", "") != "verdict-banner" {
		t.Errorf("the element after the title is %q, not the banner", first.AttrOr("data-testid", goquery.NodeName(first)))
	}
	numbers := banner.Find("[data-testid=verdict-numbers]").Text()
	for _, want := range []string{"46.7 MB → 137.0 MB", "+90.4 MB", "3 snapshots over 27 s"} {
		if !strings.Contains(numbers, want) {
			t.Errorf("banner numbers %q lack %q", numbers, want)
		}
	}
	if doc.Find("[data-testid=series-verdict]").Length() != 0 || doc.Find("[data-testid=series-reason]").Length() != 0 {
		t.Error("the series block repeats the verdict the banner gives")
	}
	og := doc.Find(`meta[property="og:description"]`).AttrOr("content", "")
	if !strings.HasPrefix(og, "inconclusive: Too few snapshots to decide: the total went from 46.7 MB to 137.0 MB") ||
		doc.Find(`meta[name="twitter:description"]`).AttrOr("content", "") != og ||
		doc.Find(`meta[property="og:title"]`).AttrOr("content", "") != "leakui — "+doc.Find("[data-testid=report-title]").Text() ||
		doc.Find(`meta[name="twitter:card"]`).AttrOr("content", "") != "summary" {
		t.Errorf("link preview tags: og:description %q", og)
	}

	diff := pageDoc(t, ts, page.ReportURL(ts.mustUpload(t, nil, parcaSeries(t)[0], parcaSeries(t)[2]).ReportID))
	if b := diff.Find("[data-testid=verdict-banner]"); b.AttrOr("data-state", "") != "grew" || !strings.Contains(b.Text(), "46.7 MB") || !strings.Contains(b.Text(), "137.0 MB") {
		t.Errorf("diff banner %q", b.Text())
	}
	one := pageDoc(t, ts, page.ReportURL(ts.mustUpload(t, nil, fixture(t, "goroutines", "erigon-debug1-20161-goroutines.txt")).ReportID))
	if b := one.Find("[data-testid=verdict-banner]"); b.AttrOr("data-state", "") != "dump" || b.Find("[data-testid=verdict-state]").Text() != "20,161 goroutines" {
		t.Errorf("goroutine dump banner %q", b.Text())
	}
	crash := pageDoc(t, ts, page.ReportURL(ts.mustUpload(t, nil, fixture(t, "goroutines", "gin-fatal-error-unexpected-signal-darwin.txt")).ReportID))
	if b := crash.Find("[data-testid=verdict-banner]"); b.AttrOr("data-state", "") != "crash" || !strings.Contains(b.Text(), "The program crashed (fatal error") {
		t.Errorf("crash banner %q", b.Text())
	}
	two := pageDoc(t, ts, page.ReportURL(ts.mustUpload(t, nil, fixture(t, "goroutines", "goprofnotes-snap1-debug2.txt"), fixture(t, "goroutines", "goprofnotes-snap2-debug2.txt")).ReportID))
	if b := two.Find("[data-testid=verdict-banner]"); !strings.Contains(b.Text(), "Goroutines went from") {
		t.Errorf("goroutine comparison banner %q", b.Text())
	}
	home := pageDoc(t, ts, "/")
	if home.Find(`meta[property="og:description"]`).Length() != 0 {
		t.Error("the dashboard has a verdict preview")
	}
}
