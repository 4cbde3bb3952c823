package view

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
)

// render renders a component inside the layout and parses the HTML.
func render(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	ctx := templ.WithChildren(context.Background(), c)
	if err := Layout(Page{Title: "t", CSS: "/static/x/app.css", JS: "/static/x/app.js"}).Render(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

const hostile = `<script>alert("x")</script>' onmouseover="alert(1)` + "\u2028"

func TestProfileReportPage(t *testing.T) {
	page := ProfileReport{
		ID: "abc", FileName: hostile, Kind: "pprof profile (profile.proto)", SHA256: "d4b7", Permalink: "/r/abc",
		Types: []Link{
			{Label: "alloc_space", URL: "/r/abc?si=alloc_space", Key: "1", Value: "142.4 MB"},
			{Label: "inuse_space", URL: "/r/abc?si=inuse_space", Key: "2", Value: "137.0 MB", Current: true},
		},
		Top: TopTable{SampleType: "inuse_space", Total: "137.0 MB", All: 3, Shown: 2, ShowAll: "/r/abc?n=all", Rows: []TopRow{
			{Rank: 1, Name: "github.com/dgraph-io/badger/v3/skl.newArena", Flat: "83.2 MB", FlatValue: 87244800, CumValue: 87244800},
			{Rank: 2, Name: hostile, Flat: "1 B", FlatValue: 1, CumValue: 2},
		}},
	}
	doc := render(t, ProfileReportPage(page))
	if got := doc.Find("[data-testid=report-title]").Text(); got != hostile {
		t.Errorf("title = %q, want the hostile name as text", got)
	}
	if n := doc.Find("script").Length(); n != 1 {
		t.Errorf("%d script elements; only the layout's own may exist", n)
	}
	for _, attr := range []string{"onmouseover"} {
		if doc.Find("["+attr+"]").Length() != 0 {
			t.Errorf("an element got an %s attribute from a name", attr)
		}
	}
	rows := doc.Find("[data-testid=top-row]")
	if rows.Length() != 2 {
		t.Fatalf("%d rows", rows.Length())
	}
	first := rows.First()
	if first.Find("[data-testid=name]").Text() != "github.com/dgraph-io/badger/v3/skl.newArena" || first.AttrOr("data-flat", "") != "87244800" {
		t.Errorf("first row: %q flat %q", first.Find("[data-testid=name]").Text(), first.AttrOr("data-flat", ""))
	}
	current := doc.Find("[data-testid=sample-type][aria-current=page]")
	if current.Length() != 1 || current.AttrOr("data-type", "") != "inuse_space" || current.AttrOr("data-key", "") != "2" {
		t.Errorf("the current sample type is not marked: %d", current.Length())
	}
	if href, _ := doc.Find("[data-testid=show-all]").Attr("href"); href != "/r/abc?n=all" {
		t.Errorf("show all links to %q", href)
	}
	if !strings.Contains(doc.Find("[data-testid=top-count]").Text(), "Showing 2 of 3") {
		t.Errorf("count line = %q", doc.Find("[data-testid=top-count]").Text())
	}
}

func TestDashboardPage(t *testing.T) {
	doc := render(t, DashboardPage(Dashboard{MaxUpload: "256.0 MB", Accepted: []string{"pprof profiles"}}))
	if doc.Find("[data-testid=file-input][type=file][multiple]").Length() != 1 {
		t.Error("no multiple file input")
	}
	form := doc.Find("[data-testid=upload-form]")
	if form.AttrOr("action", "") != "/upload" || form.AttrOr("enctype", "") != "multipart/form-data" {
		t.Error("the form does not work without JavaScript")
	}
	if doc.Find("[data-testid=no-reports]").Length() != 1 {
		t.Error("an empty dashboard does not say there are no reports")
	}
	doc = render(t, DashboardPage(Dashboard{Recent: []ReportListItem{{URL: "/r/x", Title: hostile, Kind: "profile"}}}))
	if got := doc.Find("[data-testid=recent-reports] a").Text(); got != hostile {
		t.Errorf("listing title = %q", got)
	}
}

func TestErrorPage(t *testing.T) {
	doc := render(t, ErrorPage(415, "Unsupported Media Type", hostile))
	if doc.Find("[data-testid=error-message]").Text() != hostile || doc.Find("[data-testid=error-status]").Text() != "Unsupported Media Type" {
		t.Error("the error page does not show the message as text")
	}
}
