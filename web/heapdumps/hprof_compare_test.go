package heapdumps_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/web"
	"github.com/leakui/leakui/web/heapdumps"
	"github.com/leakui/leakui/web/internal/webtest"
)

// leakShapeRun runs LeakShape with n consumers of b bytes and returns its heap dump
// (named after n) and jcmd's class histogram of the same heap.
func leakShapeRun(t testing.TB, n, b int) (webtest.File, *jvm.Histogram) {
	f, h, _ := webtest.LeakShapeRun(t, n, b)
	return f, h
}

// jcmdInstances is the instance count jcmd's histogram gives a class.
func jcmdInstances(h *jvm.Histogram, name string) int64 {
	for _, c := range h.Classes {
		if c.Name == name {
			return c.Instances
		}
	}
	return 0
}

// TestHeapDumpCompare uploads two real heap dumps of LeakShape, 3 then 7 consumers of
// 1 MiB (in the reverse order: the dumps' own times order them), waits for the
// comparison built in the background, and checks the
// comparison by class as a page, as JSON and as Markdown: the consumers are the
// first suspect with the difference of instances jcmd's histograms give, and their
// retained size grew by 4 × (1 MiB + the buffer's header) and their own sizes.
func TestHeapDumpCompare(t *testing.T) {
	const b = 1 << 20
	ts := newTestServer(t, web.Config{})
	small, hSmall := leakShapeRun(t, 3, b)
	large, hLarge := leakShapeRun(t, 7, b)
	up := ts.MustUploadHeapDumps(t, large, small)
	consumer := "LeakShape$Consumer"
	want := jcmdInstances(hLarge, consumer) - jcmdInstances(hSmall, consumer)
	if want != 4 {
		t.Fatalf("jcmd counts %d → %d consumers", jcmdInstances(hSmall, consumer), jcmdInstances(hLarge, consumer))
	}

	doc, _ := ts.Page(t, up.ReportURL)
	first := doc.Find(`[data-testid="suspects"] [data-testid="change-row"]`).First()
	if first.AttrOr("data-instances", "") != strconv.FormatInt(want, 10) || !strings.Contains(first.Text(), consumer) {
		t.Errorf("first suspect: %q instances %s", first.Text(), first.AttrOr("data-instances", ""))
	}
	if h := doc.Find(`[data-testid="headline"]`).Text(); !strings.Contains(h, consumer) || !strings.Contains(h, ": 3 → 7 instances (+4)") {
		t.Errorf("headline %q", h)
	}
	if got := doc.Find(`[data-testid="report-title"]`).Text(); !strings.Contains(got, "LeakShape-3.hprof → LeakShape-7.hprof") {
		t.Errorf("title %q: the dumps are not oldest first", got)
	}
	row := doc.Find(`[data-testid="retained-row"][data-class="LeakShape$Consumer"]`)
	grew, _ := strconv.ParseInt(row.AttrOr("data-retained", ""), 10, 64)
	if grew < 4*(b+16) || float64(grew) > 1.01*4*(b+16) {
		t.Errorf("the consumers' retained size grew by %d, want 4 × (%d + overheads) within 1%%", grew, b+16)
	}
	if doc.Find(`[data-testid="change-reachable"]`).Length() != 1 {
		t.Errorf("no reachable figure")
	}

	// Every class of the program changed by as many instances as jcmd counts.
	code, _, body := ts.Get(t, "/api/reports/"+up.ReportID+"?n=all")
	if code != http.StatusOK {
		t.Fatalf("JSON: %d %s", code, body)
	}
	var got struct {
		Kind     string `json:"kind"`
		Analysis struct {
			Classes       []jvm.ClassChange          `json:"classes"`
			Suspects      []jvm.ClassChange          `json:"suspects"`
			GrownRetained []heapdumps.RetainedChange `json:"grown_retained"`
			Dumps         []heapdumps.Brief          `json:"dumps"`
		} `json:"analysis"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	a := got.Analysis
	if got.Kind != heapdumps.ReportDiff || len(a.Suspects) == 0 || a.Suspects[0].Instances != want ||
		len(a.Dumps) != 2 || a.Dumps[0].Name != small.Name || a.Dumps[1].Reachable-a.Dumps[0].Reachable < 4*b {
		t.Errorf("JSON: %s", body)
	}
	ours := map[string]jvm.ClassChange{}
	for _, c := range a.Classes {
		ours[c.Name] = c
	}
	checked := 0
	for _, c := range append(hLarge.Classes, hSmall.Classes...) {
		if !strings.HasPrefix(c.Name, "LeakShape") {
			continue
		}
		checked++
		jcmd := jcmdInstances(hLarge, c.Name) - jcmdInstances(hSmall, c.Name)
		if o := ours[c.Name]; o.Instances != jcmd || o.TargetInstances != jcmdInstances(hLarge, c.Name) {
			t.Errorf("%s: %+v, jcmd %d → %d", c.Name, o, jcmdInstances(hSmall, c.Name), jcmdInstances(hLarge, c.Name))
		}
	}
	if checked < 4 {
		t.Errorf("only %d of LeakShape's classes in jcmd's histograms", checked)
	}
	found := false
	for _, c := range a.GrownRetained {
		if c.Name == consumer {
			found = c.Retained == grew && c.Instances == want
		}
	}
	if !found {
		t.Errorf("JSON grown_retained has not the page's %d for %s: %+v", grew, consumer, a.GrownRetained)
	}

	code, _, md := ts.Get(t, up.ReportURL+".md")
	if code != http.StatusOK || !strings.Contains(string(md), "`LeakShape$Consumer`") || !strings.Contains(string(md), "Growth in retained size") {
		t.Errorf("Markdown: %d\n%s", code, md)
	}

	// Each dump's own histogram is a tab of the report.
	doc, _ = ts.Page(t, up.ReportURL+"?snapshot=1&n=all")
	if n := doc.Find(`[data-testid="class-row"]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return strings.Contains(s.Text(), consumer) && !strings.Contains(s.Text(), "Thread") && s.AttrOr("data-instances", "") == "7"
	}).Length(); n != 1 {
		t.Errorf("the second dump's histogram has %d consumer rows", n)
	}
}

// TestHeapDumpSeries uploads seven real heap dumps whose consumers grow, 1 to 7,
// and checks that the histograms' series analysis takes them: the series by
// instances says leak and names the consumers, with the counts jcmd gives.
func TestHeapDumpSeries(t *testing.T) {
	ts := newTestServer(t, web.Config{})
	var files []webtest.File
	var hs []*jvm.Histogram
	for n := 1; n <= 7; n++ {
		f, h := leakShapeRun(t, n, 16<<10)
		files, hs = append(files, f), append(hs, h)
	}
	up := ts.MustUploadHeapDumps(t, files...)
	if rep, err := ts.DB.Report(t.Context(), up.ReportID); err != nil || rep.Headline.Verdict != string(series.Leak) {
		t.Errorf("the report's verdict once compared: %v %q", err, rep.Headline.Verdict)
	}
	code, _, body := ts.Get(t, "/api/reports/"+up.ReportID)
	if code != http.StatusOK {
		t.Fatalf("JSON: %d %s", code, body)
	}
	var got struct {
		Analysis struct {
			Series map[string]*series.Report `json:"series"`
		} `json:"analysis"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	s := got.Analysis.Series["instances"]
	if s == nil || s.Verdict != series.Leak {
		t.Fatalf("the series by instances: %s", body)
	}
	consumer := "LeakShape$Consumer"
	var sus *series.Suspect
	for i := range s.Suspects {
		if s.Suspects[i].Name == consumer {
			sus = &s.Suspects[i]
		}
	}
	if sus == nil {
		t.Fatalf("%s is no suspect: %+v", consumer, s.Suspects)
	}
	for i, h := range hs {
		if sus.Values[i] != jcmdInstances(h, consumer) {
			t.Errorf("dump %d: %d consumers, jcmd %d", i, sus.Values[i], jcmdInstances(h, consumer))
		}
	}
	doc, _ := ts.Page(t, up.ReportURL)
	if !strings.Contains(doc.Find("h2").Text(), "Series of 7 heap dumps") {
		t.Errorf("no series on the page: %q", doc.Find("h2").Text())
	}
	reports, err := ts.DB.RecentReports(t.Context(), 1)
	if err != nil || len(reports) != 1 || !strings.HasPrefix(summaryLine(reports[0].Summary), "7 heap dumps") ||
		!strings.Contains(summaryLine(reports[0].Summary), "series: leak") {
		t.Errorf("dashboard line: %v %q", err, summaryLine(reports[0].Summary))
	}
}
