package web

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze/pprof"
	webprofiles "github.com/leakui/leakui/web/profiles"

	"github.com/PuerkitoBio/goquery"
	"github.com/leakui/leakui/web/page"
)

// topRows reads the top table's rows: name, flat and cum, and the row's links.
type topRowSeen struct {
	name, sandwich, focus string
	flat, cum             int64
}

func readTopRows(t *testing.T, ts *testServer, path string) []topRowSeen {
	t.Helper()
	code, _, pg := ts.get(t, path)
	if code != 200 {
		t.Fatalf("GET %s: %d", path, code)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(pg))
	if err != nil {
		t.Fatal(err)
	}
	var rows []topRowSeen
	doc.Find("[data-testid=top-row]").Each(func(_ int, s *goquery.Selection) {
		var r topRowSeen
		r.name = s.Find("[data-testid=name]").Text()
		r.sandwich, _ = s.Find("a[data-testid=name]").Attr("href")
		r.focus, _ = s.Find("[data-testid=focus-link]").Attr("href")
		fv, _ := s.Attr("data-flat")
		cv, _ := s.Attr("data-cum")
		r.flat, _ = strconv.ParseInt(fv, 10, 64)
		r.cum, _ = strconv.ParseInt(cv, 10, 64)
		rows = append(rows, r)
	})
	if len(rows) < 5 {
		t.Fatalf("%s: %d rows", path, len(rows))
	}
	return rows
}

// TestTopTableSortsAndLinks: ?sort=cum and ?sort=name reorder the rows, every
// function links to its sandwich (whose cum is the row's) and to the profile
// focused on it.
func TestTopTableSortsAndLinks(t *testing.T) {
	ts := newTestServer(t, Config{})
	up := ts.mustUpload(t, nil, fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz"))
	base := page.ReportURL(up.ReportID)
	byFlat := readTopRows(t, ts, base+"?n=all")
	byCum := readTopRows(t, ts, base+"?n=all&sort=cum")
	byName := readTopRows(t, ts, base+"?n=all&sort=name")
	if len(byCum) != len(byFlat) || len(byName) != len(byFlat) {
		t.Fatalf("rows: flat %d, cum %d, name %d", len(byFlat), len(byCum), len(byName))
	}
	for i := 1; i < len(byFlat); i++ {
		if abs(byCum[i].cum) > abs(byCum[i-1].cum) {
			t.Errorf("sort=cum: row %d (%s, %d) after %s (%d)", i, byCum[i].name, byCum[i].cum, byCum[i-1].name, byCum[i-1].cum)
		}
		if byName[i].name < byName[i-1].name {
			t.Errorf("sort=name: %q after %q", byName[i].name, byName[i-1].name)
		}
		if abs(byFlat[i].flat) > abs(byFlat[i-1].flat) {
			t.Errorf("default order: row %d flat %d after %d", i, byFlat[i].flat, byFlat[i-1].flat)
		}
	}
	if byCum[0].name == byFlat[0].name && byCum[1].name == byFlat[1].name && byCum[2].name == byFlat[2].name {
		t.Errorf("sort=cum did not reorder the table's head: %s, %s, %s", byCum[0].name, byCum[1].name, byCum[2].name)
	}
	if code, _, _ := ts.get(t, base+"?sort=size"); code != 400 {
		t.Errorf("sort=size: %d, want 400", code)
	}
	// The column heads link to the orders, and say which one is current.
	_, _, pg := ts.get(t, base+"?sort=cum")
	doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(pg))
	if href, _ := doc.Find("[data-testid=sort-function] a").Attr("href"); !strings.Contains(href, "sort=name") {
		t.Errorf("the function head links to %q", href)
	}
	if sort, _ := doc.Find("[data-testid=sort-cum]").Attr("aria-sort"); sort != "descending" {
		t.Errorf("the cum head's aria-sort is %q", sort)
	}
	// Each of the first rows' sandwiches has the row's flat and cum.
	for _, r := range byCum[:8] {
		code, _, pg := ts.get(t, r.sandwich)
		doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(pg))
		self := doc.Find("[data-testid=sandwich-self] tbody tr")
		cum, _ := self.Attr("data-cum")
		flat, _ := self.Attr("data-flat")
		if code != 200 || doc.Find("[data-testid=sandwich-name]").Text() != r.name ||
			cum != strconv.FormatInt(r.cum, 10) || flat != strconv.FormatInt(r.flat, 10) {
			t.Errorf("%s: sandwich %d %q flat %s cum %s; the top table says %d %d", r.name, code,
				doc.Find("[data-testid=sandwich-name]").Text(), flat, cum, r.flat, r.cum)
		}
		// The JSON twin says the same.
		_, _, raw := ts.get(t, strings.Replace(r.sandwich, "/r/", "/api/reports/", 1))
		var js struct {
			Analysis struct {
				Name      string `json:"name"`
				Flat, Cum int64
			} `json:"analysis"`
		}
		if err := json.Unmarshal(raw, &js); err != nil || js.Analysis.Name != r.name || js.Analysis.Cum != r.cum || js.Analysis.Flat != r.flat {
			t.Errorf("%s: the sandwich's JSON says %+v (%v)", r.name, js.Analysis, err)
		}
		// Callers' values never exceed the function's cum.
		doc.Find("[data-testid=sandwich-callers-row]").Each(func(_ int, s *goquery.Selection) {
			v, _ := s.Attr("data-value")
			if n, _ := strconv.ParseInt(v, 10, 64); n > r.cum {
				t.Errorf("%s: a caller carries %d > cum %d", r.name, n, r.cum)
			}
		})
		// The focus link is ^name$ quoted, and keeps exactly the samples through it.
		u, _ := url.Parse(r.focus)
		if f := u.Query().Get("f"); f != "^"+regexp.QuoteMeta(r.name)+"$" {
			t.Errorf("%s: focus %q", r.name, f)
		}
		focused := readTopRowsAllowFew(t, ts, r.focus)
		for _, fr := range focused {
			if fr.name == r.name && fr.cum != r.cum {
				t.Errorf("%s: focused cum %d, unfocused %d", r.name, fr.cum, r.cum)
			}
		}
	}
	if code, _, _ := ts.get(t, base+"?view=sandwich&fn=no.such.func"); code != 400 {
		t.Errorf("sandwich of an unknown function: %d, want 400", code)
	}
	if code, _, _ := ts.get(t, base+"?view=sandwich"); code != 400 {
		t.Errorf("sandwich without fn: %d, want 400", code)
	}
}

// readTopRowsAllowFew is readTopRows for a focused table, which may hold a
// single row.
func readTopRowsAllowFew(t *testing.T, ts *testServer, path string) []topRowSeen {
	t.Helper()
	code, _, pg := ts.get(t, path)
	if code != 200 {
		t.Fatalf("GET %s: %d", path, code)
	}
	doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(pg))
	var rows []topRowSeen
	doc.Find("[data-testid=top-row]").Each(func(_ int, s *goquery.Selection) {
		cv, _ := s.Attr("data-cum")
		n, _ := strconv.ParseInt(cv, 10, 64)
		rows = append(rows, topRowSeen{name: s.Find("[data-testid=name]").Text(), cum: n})
	})
	return rows
}

// TestFlamePageHasTheTableAndLinks: the flame view shows the top table beside
// it, linked like the top view, names the sandwich and focus URLs for its
// script, and its static labels are pprof's display names (the first that
// fits), else the last cut from the left.
func TestFlamePageHasTheTableAndLinks(t *testing.T) {
	ts := newTestServer(t, Config{})
	up := ts.mustUpload(t, nil, fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz"))
	code, _, pg := ts.get(t, page.ReportURL(up.ReportID)+"?view=flame&sort=cum")
	doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(pg))
	rows := doc.Find("[data-testid=side-table] [data-testid=top-row]")
	if code != 200 || rows.Length() != webprofiles.SideRows {
		t.Fatalf("flame view: %d, %d side rows; want %d", code, rows.Length(), webprofiles.SideRows)
	}
	if href, _ := rows.First().Find("a[data-testid=name]").Attr("href"); !strings.Contains(href, "view=sandwich") || !strings.Contains(href, "sort=cum") {
		t.Errorf("a side row links to %q", href)
	}
	flame := doc.Find("[data-testid=flame]")
	if s, _ := flame.Attr("data-sandwich"); !strings.Contains(s, "view=sandwich") || strings.Contains(s, "fn=") {
		t.Errorf("data-sandwich %q", s)
	}
	if f, _ := flame.Attr("data-focus"); strings.Contains(f, "view=") || f == "" {
		t.Errorf("data-focus %q", f)
	}
	cut := 0
	flame.Find("[data-testid=flame-box]").Each(func(_ int, g *goquery.Selection) {
		name, _ := g.Attr("data-name")
		label := g.Find("text").Text()
		if label == "" || label == name {
			return
		}
		cut++
		names := pprof.DisplayNames(name)
		if !slices.Contains(names, label) && (!strings.HasPrefix(label, "…") || !strings.HasSuffix(names[len(names)-1], strings.TrimPrefix(label, "…"))) {
			t.Errorf("static label %q of %q; pprof tries %q", label, name, names)
		}
	})
	if cut == 0 {
		t.Error("no static label was cut")
	}
	// A diff's flame graph has no sandwich to offer.
	two := ts.mustUpload(t, nil, fixture(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz"), fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz"))
	_, _, pg = ts.get(t, page.ReportURL(two.ReportID)+"?view=flame")
	doc, _ = goquery.NewDocumentFromReader(bytes.NewReader(pg))
	if s, _ := doc.Find("[data-testid=flame]").Attr("data-sandwich"); s != "" {
		t.Errorf("a diff's flame graph offers a sandwich: %q", s)
	}
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
