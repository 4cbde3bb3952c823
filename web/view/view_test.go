package view

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
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
	if err := Layout(Page{Title: "t", CSS: "/static/x/app.css", Scripts: []string{"/static/x/app.js"}}).Render(ctx, &buf); err != nil {
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
		ID: "abc", Title: hostile, Permalink: "/r/abc",
		Files: []FileInfo{{Name: hostile, Kind: "pprof profile (profile.proto)", SHA256: "d4b7", Download: "/a/d4b7"}},
		Types: []Link{
			{Label: "alloc_space", URL: "/r/abc?si=alloc_space", Key: "1", Value: "142.4 MB"},
			{Label: "inuse_space", URL: "/r/abc?si=inuse_space", Key: "2", Value: "137.0 MB", Current: true},
		},
		Filter:  FilterForm{Action: "/r/abc", Focus: hostile, Keep: []Pair{{"si", "inuse_space"}}, Active: true, Clear: "/r/abc"},
		Notices: []string{"The focus filter matched nothing."},
		Top: &TopTable{SampleType: "inuse_space", Total: "137.0 MB", All: 3, Count: 2, ShowAll: "/r/abc?n=all", Rows: []TopRow{
			{Rank: 1, Name: "github.com/dgraph-io/badger/v3/skl.newArena", Flat: "83.2 MB", FlatValue: 87244800, CumValue: 87244800},
			{Rank: 2, Name: hostile, Flat: "1 B", FlatValue: 1, CumValue: 2},
		}},
	}
	doc := render(t, ProfileReportPage(page))
	if got := doc.Find("[data-testid=report-title]").Text(); got != hostile {
		t.Errorf("title = %q, want the hostile name as text", got)
	}
	if got := doc.Find("[data-testid=file-name]").Text(); got != hostile {
		t.Errorf("file name = %q", got)
	}
	if got, _ := doc.Find("[data-testid=filter-focus]").Attr("value"); got != hostile {
		t.Errorf("the focus input holds %q", got)
	}
	if n := doc.Find("script").Length(); n != 1 {
		t.Errorf("%d script elements; only the layout's own may exist", n)
	}
	if doc.Find("[onmouseover]").Length() != 0 {
		t.Error("an element got an onmouseover attribute from a name")
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
	if doc.Find("[data-testid=notice]").Text() != "The focus filter matched nothing." {
		t.Error("the notice is missing")
	}
	if v, _ := doc.Find("[data-testid=filter-form] input[type=hidden][name=si]").Attr("value"); v != "inuse_space" {
		t.Errorf("the filter form does not keep the sample type: %q", v)
	}
}

func TestFlameGraphComponent(t *testing.T) {
	f := Flame{ID: "flame-data", Width: 1200, Height: 36,
		Boxes: slices.Values([]FlameBox{{X: "0", Y: "0", W: "1200", Name: "root", Label: "root", Title: "root"}, {X: "0", Y: "18", W: "600", Name: hostile, Label: hostile, Title: hostile}}),
		Data:  FlameData{Total: 10, Unit: "bytes"},
		Nodes: slices.Values([]FlameDataNode{{Name: "root", Value: 10}, {Name: hostile, Value: 5, Depth: 1}, {Name: "root", Value: 3, Depth: 2}}),
	}
	doc := render(t, FlameGraph(f))
	if n := doc.Find("[data-testid=flame-box]").Length(); n != 2 {
		t.Fatalf("%d boxes", n)
	}
	if got := doc.Find("[data-testid=flame-box]").Eq(1).Find("title").Text(); got != hostile {
		t.Errorf("SVG title = %q", got)
	}
	data := doc.Find("script#flame-data")
	if data.AttrOr("type", "") != "application/json" {
		t.Fatal("the flame data is not a JSON data block")
	}
	raw, _ := data.Html()
	if strings.Contains(raw, "</script") || strings.Contains(raw, "<script") {
		t.Errorf("the JSON block lets a name close or open a script: %s", raw)
	}
	var back FlameData
	if err := json.Unmarshal([]byte(data.Text()), &back); err != nil || len(back.Names) != 2 || back.Names[1] != hostile {
		t.Fatalf("the JSON block does not round-trip the names: %v %q", err, back.Names)
	}
	if want := [][4]int64{{0, 10, 0, 0}, {1, 5, 0, 1}, {0, 3, 0, 2}}; !slices.Equal(back.Nodes, want) || back.Total != 10 || back.Unit != "bytes" {
		t.Errorf("the JSON block holds nodes %v, total %d %s; want %v, 10 bytes", back.Nodes, back.Total, back.Unit, want)
	}
}

func TestDiffTableView(t *testing.T) {
	doc := render(t, DiffTableView(DiffTable{SampleType: "inuse_space", Base: "47.8 MB", Target: "137.0 MB", Change: "+89.2 MB", Grew: true,
		Rows: []DiffRow{{Rank: 1, Name: "skl.newArena", Flat: "+83.2 MB", FlatValue: 87244800, Grew: true}}, Count: 1, All: 1}))
	if doc.Find("[data-testid=diff-change].grow").Text() != "+89.2 MB" {
		t.Error("the change is not shown as growth")
	}
	if doc.Find("[data-testid=diff-row] [data-testid=name]").Text() != "skl.newArena" {
		t.Error("the diff row is missing")
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
	doc = render(t, DashboardPage(Dashboard{Reports: ReportList{Items: []ReportListItem{{URL: "/r/x", Title: hostile, Kind: "profile", Label: hostile}}}}))
	if got := doc.Find("[data-testid=recent-reports] [data-testid=report-link]").Text(); got != hostile {
		t.Errorf("listing title = %q", got)
	}
	if got := doc.Find("[data-testid=report-label]").Text(); got != hostile {
		t.Errorf("listing label = %q", got)
	}
}

func TestErrorPage(t *testing.T) {
	doc := render(t, ErrorPage(415, "Unsupported Media Type", hostile, ""))
	if doc.Find("[data-testid=error-message]").Text() != hostile || doc.Find("[data-testid=error-status]").Text() != "Unsupported Media Type" {
		t.Error("the error page does not show the message as text")
	}
}
