package view

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// hostileLogPage is a log report whose every string from a log or a URL is
// hostile.
func hostileLogPage() LogReportPage {
	return LogReportPage{
		ID: "abc", Title: hostile, Label: hostile, Created: "2026-01-01", Permalink: "/r/abc?p1=x",
		Files: []LogFileRow{{Name: hostile, Size: "1 kB", Lines: "3", Bytes: "1 kB", Compression: "gzip", SHA256: "d4b7", Download: "/a/d4b7"}},
		Links: []Link{{Label: "JSON", URL: "/api/reports/abc"}, {Label: "CSV", URL: "/r/abc/keys.csv"}},
		Own:   false, OwnURL: "/r/abc", Lines: "3", Bytes: "1 kB", Notices: []string{hostile},
		Patterns: []LogPatternRow{
			{Pattern: hostile, Count: "1,741", CountValue: 1741, BarPct: 100, Class: "logc1", Role: "starts " + hostile},
			{Pattern: `a"b`, Regexp: true, Count: "14", CountValue: 14, BarPct: 1, Class: "logc2"},
		},
		Pairs: []LogPairView{{
			Name: hostile, Start: hostile, Close: "Stopping", Starts: "1,741", Closes: "14", Open: "1,727",
			StartsValue: 1741, ClosesValue: 14, OpenValue: 1727, StartW: 400, CloseW: 3, BarMax: 400,
			Keyed: true, Key: hostile, KeysStarted: "2", KeysClosed: "1", UnclosedCount: "2", UnkeyedStarts: "0", UnkeyedClose: "1",
			Truncated: true, Count: 1, All: 2, ShowAll: "/r/abc?n=all", CSV: "/r/abc/keys.csv",
			Keys:       []LogOpenKeyRow{{Rank: 1, Key: hostile, Open: "5", Starts: "5", Closes: "0", OpenValue: 5, FirstFile: hostile, FirstLine: "7", FirstAt: "2020-02-25 03:21:00.001", LastFile: "x.log", LastLine: "99"}},
			Measurable: true, Fallback: hostile,
		}, {
			Name: "deep iterators", Start: "Opened deep iterator (", Close: "Closed deep iterator (", Starts: "0", Closes: "0", Open: "0",
			BarMax: 400, Keyed: true, Key: hostile, NotMeasurable: hostile,
		}},
		Spans: []LogSpanView{
			{Name: hostile, From: hostile, Until: hostile, NotMeasurable: hostile},
			{Name: "recovery", From: "Recovering unflushed segment", Until: "the OOM", Measurable: true, Duration: "30.85s", Millis: 30850,
				Start: hostile, End: "server.log:67 2016-07-05 10:00:31.950", EndedBy: hostile},
		},
		Timeline: &LogTimeline{Width: 900, Height: 200, BucketWidth: "1m", Buckets: 2, From: "a", To: "b", YMax: "3",
			Bars: []LogBar{
				{Start: "2020-02-25T03:21:00Z", Title: hostile, Total: 3, Rects: []LogRect{{X: "0", Y: "100", W: "10", H: "100", Class: "logc1"}, {X: "0", Y: "0", W: "10", H: "100", Class: "logc2"}}},
				{Start: "2020-02-25T03:22:00Z", Title: "none", Total: 0},
			},
			Legend: []LogLegend{{Label: hostile, Class: "logc1"}}},
		Form: LogPatternForm{Action: "/r/abc", Patterns: []LogFormRow{{Text: hostile, Regexp: true}, {}}, Pairs: []LogFormRow{{Text: hostile, Key: hostile}},
			Presets: []LogPresetOption{{Name: "samza-2785", Title: "SAMZA", Description: hostile}}, Preset: "samza-2785", Bucket: hostile,
			Hidden: []Pair{{Label: "n", Value: "all"}}},
	}
}

func TestLogReportPageEscapesEverything(t *testing.T) {
	doc := render(t, LogReportPageView(hostileLogPage()))
	if n := doc.Find("script").Length(); n != 1 {
		t.Errorf("%d script elements; only the layout's own may exist", n)
	}
	if doc.Find("[onmouseover]").Length() != 0 || doc.Find("[style]").Length() != 0 {
		t.Error("an element got an event handler or an inline style")
	}
	for sel, want := range map[string]string{
		"[data-testid=report-title]":        hostile,
		"[data-testid=file-name]":           hostile,
		"[data-testid=pattern-text]":        hostile,
		"[data-testid=pair-name]":           hostile,
		"[data-testid=open-key-name]":       hostile,
		"[data-testid=notice]":              hostile,
		"[data-testid=pair-fallback]":       hostile,
		"[data-testid=pair-not-measurable]": hostile,
		"[data-testid=span-not-measurable]": hostile,
	} {
		if got := doc.Find(sel).First().Text(); got != want {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	if got := doc.Find("[data-testid=timeline-bar] title").First().Text(); got != hostile {
		t.Errorf("bar tooltip %q", got)
	}
	if got := doc.Find("[data-testid=log-pattern-input]").First().AttrOr("value", ""); got != hostile {
		t.Errorf("the form's first pattern holds %q", got)
	}
	if got := doc.Find("[data-testid=log-pair-key]").First().AttrOr("value", ""); got != hostile {
		t.Errorf("the form's key holds %q", got)
	}
	if got := doc.Find("[data-testid=log-preset] option[value=samza-2785]").AttrOr("title", ""); got != hostile {
		t.Errorf("preset description %q", got)
	}
	if !strings.ContainsRune(doc.Find("[data-testid=open-key-name]").Text(), '\u2028') {
		t.Error("the line separator was lost")
	}
}

func TestLogReportPageStructure(t *testing.T) {
	doc := render(t, LogReportPageView(hostileLogPage()))
	rows := doc.Find("[data-testid=log-pattern]")
	if rows.Length() != 2 || rows.Eq(0).AttrOr("data-count", "") != "1741" || rows.Eq(1).AttrOr("data-regexp", "") != "true" {
		t.Errorf("pattern rows: %d", rows.Length())
	}
	pair := doc.Find("[data-testid=log-pair]").First()
	if pair.AttrOr("data-starts", "") != "1741" || pair.AttrOr("data-closes", "") != "14" || pair.AttrOr("data-open", "") != "1727" {
		t.Error("the pair's numbers are not in its attributes")
	}
	if pair.Find("[data-testid=pair-open]").Text() != "1,727" || !pair.Find("[data-testid=pair-open]").HasClass("grow") {
		t.Error("still open is not shown as growth")
	}
	if w := pair.Find("[data-testid=pair-bar-start]").AttrOr("width", ""); w != "400" {
		t.Errorf("start bar width %s", w)
	}
	if pair.Find("[data-testid=keys-truncated]").Length() != 1 || pair.Find("[data-testid=show-all]").AttrOr("href", "") != "/r/abc?n=all" ||
		pair.Find("[data-testid=keys-csv]").AttrOr("href", "") != "/r/abc/keys.csv" {
		t.Error("the truncation notice, the show-all link or the CSV link is missing")
	}
	if got := pair.Find("[data-testid=open-key-first]").Text(); !strings.Contains(got, ":7 2020-02-25 03:21:00.001") {
		t.Errorf("first start %q", got)
	}
	// A pair without a line: "not measurable" in one line, no bars, no keys, no
	// still-open figure; its total says so too.
	none := doc.Find("[data-testid=log-pair]").Eq(1)
	if none.AttrOr("data-measurable", "") != "false" || none.Find("[data-testid=pair-open]").Text() != "not measurable" ||
		none.Find("[data-testid=pair-not-measurable]").Length() != 1 || none.Find("[data-testid=pair-chart]").Length() != 0 ||
		none.Find("[data-testid=pair-keys]").Length() != 0 || pair.Find("[data-testid=pair-not-measurable]").Length() != 0 {
		t.Error("the pair without lines does not read as not measurable, or the one with lines does")
	}
	totals := doc.Find("[data-testid=pair-open-total]")
	if totals.Eq(0).Text() != "1,727" || totals.Eq(1).Text() != "—" || totals.Eq(1).AttrOr("data-measurable", "") != "false" {
		t.Errorf("still-open totals %q and %q", totals.Eq(0).Text(), totals.Eq(1).Text())
	}
	spans := doc.Find("[data-testid=log-span]")
	if spans.Length() != 2 || spans.Eq(0).AttrOr("data-measurable", "") != "false" || spans.Eq(1).Find("[data-testid=span-duration]").Text() != "30.85s" ||
		doc.Find("[data-testid=span-total][data-ms='30850']").Text() != "30.85s" {
		t.Errorf("%d spans; the measured one reads %q", spans.Length(), spans.Eq(1).Find("[data-testid=span-duration]").Text())
	}
	bars := doc.Find("[data-testid=timeline-bar]")
	if bars.Length() != 2 || bars.First().Find("rect").Length() != 2 || bars.Eq(1).Find("rect").Length() != 0 {
		t.Errorf("timeline bars: %d", bars.Length())
	}
	if doc.Find("[data-testid=custom-params]").Length() != 1 || doc.Find("[data-testid=own-params]").AttrOr("href", "") != "/r/abc" {
		t.Error("the page does not say it shows the URL's parameters")
	}
	form := doc.Find("form[data-testid=log-form]")
	if form.AttrOr("method", "") != "get" || form.AttrOr("action", "") != "/r/abc" {
		t.Errorf("form method %q action %q", form.AttrOr("method", ""), form.AttrOr("action", ""))
	}
	// Rows are numbered from 1; the template row is inert and unnumbered.
	names := []string{}
	form.Find("[data-testid=log-pattern-rows] > [data-log-row] input").Each(func(_ int, s *goquery.Selection) { names = append(names, s.AttrOr("name", "")) })
	if strings.Join(names, " ") != "p1 re1 p2 re2" {
		t.Errorf("pattern fields %v", names)
	}
	if _, checked := form.Find("input[name=re1]").Attr("checked"); !checked {
		t.Error("the regexp row is not ticked")
	}
	if _, checked := form.Find("input[name=re2]").Attr("checked"); checked {
		t.Error("the blank row is ticked")
	}
	if form.Find("input[name=pair1]").Length() != 1 || form.Find("input[name=key1]").Length() != 1 || form.Find("input[type=hidden][name=n]").AttrOr("value", "") != "all" {
		t.Error("the pair row or the kept n is missing")
	}
	if form.Find("[data-upload-field]").Length() != 0 {
		t.Error("the report page's form has upload fields")
	}
	if sel := form.Find("[data-testid=log-preset] option[selected]"); sel.Length() != 1 || sel.AttrOr("value", "") != "samza-2785" {
		t.Error("the preset is not selected")
	}
}

// TestLogErrorPage shows only the form and the message when the URL's
// parameters are invalid.
func TestLogErrorPage(t *testing.T) {
	p := hostileLogPage()
	p.Error = hostile
	doc := render(t, LogReportPageView(p))
	if doc.Find("[data-testid=log-error]").Text() != hostile || doc.Find("[data-testid=log-pattern]").Length() != 0 || doc.Find("[data-testid=log-form]").Length() != 1 {
		t.Error("the error page shows counts or lacks the message or the form")
	}
}

// TestLogUploadFields is the pattern form inside the upload form: no form of
// its own, every field sent with the files.
func TestLogUploadFields(t *testing.T) {
	f := LogPatternForm{Upload: true, Presets: []LogPresetOption{{Name: "samza-2785", Title: "SAMZA"}}, Patterns: []LogFormRow{{}}, Pairs: []LogFormRow{{}}}
	doc := render(t, LogPatternFormView(f))
	if doc.Find("form").Length() != 0 {
		t.Error("the upload fields bring a form of their own")
	}
	fields := doc.Find("[data-testid=log-options] input, [data-testid=log-options] select")
	fields.Each(func(_ int, s *goquery.Selection) {
		if _, ok := s.Attr("data-upload-field"); !ok && s.Closest("template").Length() == 0 {
			t.Errorf("field %s is not sent with the upload", s.AttrOr("name", "?"))
		}
	})
	if doc.Find("[data-testid=log-preset] option").Length() != 2 {
		t.Error("the presets are not offered")
	}
}

func TestRunLogSection(t *testing.T) {
	v := RunLogView{Name: hostile, Size: "1 kB", Download: "/a/x", Preset: "samza-2785", PresetTitle: "SAMZA", Lines: "12",
		Pairs: []LogPairView{{Name: hostile, Starts: "12", Closes: "0", Open: "12", StartsValue: 12, OpenValue: 12, Measurable: true},
			{Name: "consumer poll threads", Starts: "0", Closes: "0", Open: "0", NotMeasurable: hostile}},
		Patterns: []LogPatternRow{{Pattern: hostile, Count: "3", CountValue: 3}}, Action: "/runs/r1/log"}
	doc := render(t, RunLogSection(v))
	row := doc.Find("[data-testid=run-log-pair]").First()
	if row.AttrOr("data-starts", "") != "12" || row.AttrOr("data-pair", "") != hostile || doc.Find("[data-testid=run-log-form]").AttrOr("action", "") != "/runs/r1/log" {
		t.Error("the run log section lacks its numbers or its form")
	}
	if nm := doc.Find("[data-testid=run-log-pair]").Eq(1).Find("[data-testid=run-log-not-measurable]"); nm.Text() != "not measurable" || nm.AttrOr("title", "") != hostile ||
		row.Find("[data-testid=run-log-not-measurable]").Length() != 0 {
		t.Errorf("the pair without lines reads %q", nm.Text())
	}
	if doc.Find("[data-testid=run-log-form]").AttrOr("method", "") != "post" {
		t.Error("Count this log is not a POST")
	}
	v.Error = hostile
	doc = render(t, RunLogSection(v))
	if doc.Find("[data-testid=run-log-error]").Text() != hostile || doc.Find("[data-testid=run-log-form]").Length() != 0 {
		t.Error("a failed count shows no error or still offers the form")
	}
}
