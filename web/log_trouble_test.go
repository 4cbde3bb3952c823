package web

import (
	"encoding/json"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
)

// TestLogErrorsAndWarningsFirst: a log report's page opens with its errors and
// warnings, before the files and the most frequent (mostly INFO) messages.
// On the loghub Zookeeper log each ERROR and WARN template's count is
// `grep -cE` of its regexp and its first and last lines are the first and
// last that `grep -nE` prints, with those lines' own times; the level cards
// count what grep counts in the layout's level column.
func TestLogErrorsAndWarningsFirst(t *testing.T) {
	ts := newTestServer(t, Config{UploadsPerMinute: -1})
	name := "loghub-Zookeeper_2k.log"
	path := fixtures.Path(t, "logs", name)
	up := ts.mustUpload(t, nil, fixture(t, "logs", name))
	doc, body := logGetPage(t, ts, up.ReportURL)

	sec := doc.Find("[data-testid=log-trouble]")
	if sec.Length() != 1 {
		t.Fatal("no errors and warnings section")
	}
	html := string(body)
	if at := strings.Index(html, `data-testid="log-trouble"`); at < 0 || at > strings.Index(html, `data-testid="files"`) ||
		at > strings.Index(html, `data-testid="log-overview"`) {
		t.Error("the errors and warnings section does not come first")
	}
	// grep -c ' ERROR ' and ' WARN ' of the file: 13 and 1,318.
	if got := sec.Find("[data-testid=trouble-summary]").Text(); !strings.HasPrefix(got, "13 ERROR, 1,318 WARN lines in ") {
		t.Errorf("summary %q", got)
	}
	sec.Find("[data-testid=level]").Each(func(_ int, s *goquery.Selection) {
		level := s.AttrOr("data-level", "")
		if level == "none" {
			return
		}
		want := greptest.Count(t, `^[^ ]+ [^ ]+ - `+level+` `, true, path)
		if n := greptest.Int(t, s.AttrOr("data-count", "")); n != want {
			t.Errorf("level %s: the card says %d lines, grep %d", level, n, want)
		}
		href, _ := s.Attr("href")
		if u, err := url.Parse(href); err != nil || u.Query().Get("level") != level || !strings.Contains(s.AttrOr("class", ""), "lvl-") {
			t.Errorf("level card %s links to %q, class %q", level, href, s.AttrOr("class", ""))
		}
	})
	rows := sec.Find("[data-testid=trouble]")
	if rows.Length() < 5 {
		t.Fatalf("%d errors and warnings listed", rows.Length())
	}
	levels := map[string]bool{}
	rows.Each(func(i int, s *goquery.Selection) {
		level, re := s.AttrOr("data-level", ""), s.AttrOr("data-regexp", "")
		levels[level] = true
		if level != "ERROR" && level != "WARN" || s.Find("[data-testid=trouble-level]").AttrOr("class", "") != "lvlbadge lvl-"+strings.ToLower(level) {
			t.Errorf("row %d: level %q, badge %q", i, level, s.Find("[data-testid=trouble-level]").AttrOr("class", ""))
		}
		hits := greptest.Output(t, "-nE", re, path)
		if n := greptest.Int(t, s.AttrOr("data-count", "")); n != int64(len(hits)) || n == 0 {
			t.Errorf("row %d %q: %d lines, grep -cE says %d", i, s.Find("[data-testid=trouble-template]").Text(), n, len(hits))
			return
		}
		for _, c := range []struct{ what, hit string }{{"first", hits[0]}, {"last", hits[len(hits)-1]}} {
			n, text, _ := strings.Cut(c.hit, ":")
			// The line's own time: "2015-07-29 19:04:12,394" as the page writes it.
			want := strings.Replace(text[:23], ",", ".", 1)
			if got := s.Find("[data-testid=trouble-" + c.what + "]").Text(); got != want {
				t.Errorf("row %d: %s seen %q, grep -n's line %s says %q", i, c.what, got, n, want)
			}
			if got := s.Find("[data-testid=trouble-" + c.what + "] + .place").Text(); got != "("+name+":"+n+")" {
				t.Errorf("row %d: %s line %q, grep -n says %s", i, c.what, got, n)
			}
		}
	})
	if !levels["ERROR"] || !levels["WARN"] {
		t.Errorf("levels listed: %v", levels)
	}
	// The worst first: every ERROR template before the first WARN one.
	order := strings.Join(rows.Map(func(_ int, s *goquery.Selection) string { return s.AttrOr("data-level", "") }), " ")
	if !regexp.MustCompile(`^(ERROR )+(WARN ?)+$`).MatchString(order) {
		t.Errorf("rows in the order %s, want ERROR before WARN", order)
	}
	// The Markdown for a ticket has them too, with the first and last times
	// of the most frequent (grep -n: lines 4 and 1,917 of the file).
	md, _ := doc.Find("[data-testid=link-Markdown]").Attr("href")
	if _, _, text := ts.get(t, md); !strings.Contains(string(text), "**Errors and warnings**") ||
		!regexp.MustCompile(`\| 314 \| WARN \| .*Interrupted while waiting for message on queue.* 19:04:29\.079 \| .* 19:37:09\.092 \|`).Match(text) {
		t.Errorf("the Markdown lacks the errors and warnings:\n%s", text)
	}
	if more := sec.Find("[data-testid=trouble-more]").Text(); rows.Length() != 10 || !strings.HasPrefix(more, "… and 3 more templates") {
		t.Errorf("%d rows, then %q; want 10 of 13", rows.Length(), more)
	}
}

// TestLogLevelFilter: a level card filters the page to its level through the
// URL alone: the errors, the templates and the chart keep that level's lines
// only, the active card has aria-current and links back to every level, and
// the JSON twin (linked from the filtered page) filters the same way. An
// unknown level is a 400.
func TestLogLevelFilter(t *testing.T) {
	ts := newTestServer(t, Config{UploadsPerMinute: -1})
	name := "loghub-Zookeeper_2k.log"
	path := fixtures.Path(t, "logs", name)
	up := ts.mustUpload(t, nil, fixture(t, "logs", name))
	doc, _ := logGetPage(t, ts, up.ReportURL)
	card := doc.Find("[data-testid=log-trouble] [data-testid=level][data-level=ERROR]")
	href, ok := card.Attr("href")
	if !ok || card.AttrOr("aria-current", "") != "" {
		t.Fatalf("the ERROR card is no link (%q) or already current", href)
	}
	errors := greptest.Count(t, `^[^ ]+ [^ ]+ - ERROR `, true, path) // 13

	doc, _ = logGetPage(t, ts, href)
	if cur := doc.Find("[data-testid=level][aria-current=page]"); cur.Length() != 1 || cur.AttrOr("data-level", "") != "ERROR" {
		t.Errorf("aria-current on %d cards (%q)", cur.Length(), cur.AttrOr("data-level", ""))
	}
	if all, ok := doc.Find("[data-testid=level-all]").Attr("href"); !ok || strings.Contains(all, "level=") {
		t.Errorf("the way back to every level is %q", all)
	}
	var listed int64
	doc.Find("[data-testid=trouble]").Each(func(_ int, s *goquery.Selection) {
		if s.AttrOr("data-level", "") != "ERROR" {
			t.Errorf("a %s row on the ERROR page", s.AttrOr("data-level", ""))
		}
		listed += greptest.Int(t, s.AttrOr("data-count", ""))
	})
	tpl := doc.Find("[data-testid=log-template]")
	if tpl.Length() == 0 {
		t.Fatal("no ERROR template listed")
	}
	tpl.Each(func(_ int, s *goquery.Selection) {
		if s.AttrOr("data-level", "") != "ERROR" {
			t.Errorf("a %s template on the ERROR page", s.AttrOr("data-level", ""))
		}
	})
	var inBars int64
	doc.Find("[data-testid=level-timeline] [data-testid=timeline-bar]").Each(func(_ int, s *goquery.Selection) {
		inBars += greptest.Int(t, s.AttrOr("data-total", ""))
	})
	if inBars != errors || listed > errors || listed == 0 {
		t.Errorf("the chart holds %d lines and the rows %d; grep counts %d ERROR lines", inBars, listed, errors)
	}

	jsonURL, _ := doc.Find("[data-testid=link-JSON]").Attr("href")
	if !strings.Contains(jsonURL, "level=ERROR") {
		t.Fatalf("the JSON link %q loses the filter", jsonURL)
	}
	_, raw := logGetJSON(t, ts, jsonURL)
	var js struct {
		Analysis struct {
			Level  string `json:"level"`
			Report struct {
				Overview struct {
					Templates, Trouble []struct {
						Level string `json:"level"`
						Count int64  `json:"count"`
					}
				} `json:"overview"`
			} `json:"report"`
		} `json:"analysis"`
	}
	if err := json.Unmarshal(raw, &js); err != nil {
		t.Fatal(err)
	}
	ov := js.Analysis.Report.Overview
	if js.Analysis.Level != "ERROR" || len(ov.Trouble) == 0 || len(ov.Templates) == 0 {
		t.Fatalf("JSON level %q, %d trouble, %d templates", js.Analysis.Level, len(ov.Trouble), len(ov.Templates))
	}
	for _, tp := range append(ov.Trouble, ov.Templates...) {
		if tp.Level != "ERROR" {
			t.Errorf("a %s template in the ERROR JSON", tp.Level)
		}
	}
	// The Markdown link carries the filter too.
	md, _ := doc.Find("[data-testid=link-Markdown]").Attr("href")
	if _, _, text := ts.get(t, md); !strings.Contains(string(text), "- Level: ERROR") || strings.Contains(string(text), "| WARN |") ||
		!strings.Contains(string(text), "| ERROR |") {
		t.Errorf("the ERROR Markdown (%s):\n%s", md, text)
	}
	// INFO hides the errors in one line; lower case reaches the same page.
	doc, _ = logGetPage(t, ts, up.ReportURL+"?level=info")
	if doc.Find("[data-testid=trouble]").Length() != 0 || !strings.Contains(doc.Find("[data-testid=trouble-none]").Text(), "filtered to INFO") {
		t.Errorf("the INFO page lists errors: %q", doc.Find("[data-testid=trouble-none]").Text())
	}
	if code, _, body := ts.get(t, up.ReportURL+"?level=LOUD"); code != 400 || !strings.Contains(string(body), "unknown level") {
		t.Errorf("an unknown level: %d", code)
	}
}

// TestLogWithoutErrorsSaysSoInOneLine: a Kafka broker log with no FATAL,
// ERROR or WARN line (grep finds none) says so in one line.
func TestLogWithoutErrorsSaysSoInOneLine(t *testing.T) {
	ts := newTestServer(t, Config{UploadsPerMinute: -1})
	name := "kafka-2.1.1-broker-server.log.2020-02-13-23"
	path := fixtures.Path(t, "logs", name)
	if n := greptest.Count(t, `\b(FATAL|ERROR|WARN)\b`, true, path); n != 0 {
		t.Fatalf("grep finds %d errors and warnings", n)
	}
	up := ts.mustUpload(t, nil, fixture(t, "logs", name))
	doc, _ := logGetPage(t, ts, up.ReportURL)
	want := "None: no FATAL, ERROR or WARN line in " + strconv.FormatInt(greptest.Lines(t, path), 10) + " lines."
	if got := doc.Find("[data-testid=trouble-none]").Text(); got != want || doc.Find("[data-testid=trouble]").Length() != 0 {
		t.Errorf("%q, want %q", got, want)
	}
}

// TestLogChartAxes: the bars of lines by level over time have a y axis of
// counts from 0 to above the tallest bar and an x axis of distinct clock
// times inside the plot.
func TestLogChartAxes(t *testing.T) {
	ts := newTestServer(t, Config{UploadsPerMinute: -1})
	up := ts.mustUpload(t, nil, fixture(t, "logs", "kafka-3.6.2-broker-server.log"))
	doc, _ := logGetPage(t, ts, up.ReportURL)
	ch := doc.Find("[data-testid=level-timeline]")
	var ys []int64
	ch.Find("[data-testid=timeline-ytick]").Each(func(_ int, s *goquery.Selection) {
		ys = append(ys, greptest.Int(t, strings.ReplaceAll(s.Text(), ",", "")))
	})
	ymax := greptest.Int(t, strings.ReplaceAll(ch.Find("[data-testid=timeline-ymax]").Text(), ",", ""))
	if len(ys) < 3 || ys[0] != 0 || ys[len(ys)-1] <= ymax {
		t.Errorf("y ticks %v for a tallest bar of %d", ys, ymax)
	}
	for i := 1; i < len(ys); i++ {
		if ys[i]-ys[i-1] != ys[1]-ys[0] {
			t.Errorf("y ticks %v are not evenly spaced", ys)
		}
	}
	seen := map[string]bool{}
	clock := regexp.MustCompile(`^\d\d:\d\d(:\d\d)?(\.\d{3})?$|^[A-Z][a-z]{2} \d+ \d\d:\d\d$`)
	xs := ch.Find("[data-testid=timeline-xtick]")
	xs.Each(func(_ int, s *goquery.Selection) {
		label := s.Text()
		x, _ := strconv.ParseFloat(s.AttrOr("x", ""), 64)
		if seen[label] || !clock.MatchString(label) || x < 60 || x > 900 {
			t.Errorf("x tick %q at %v", label, x)
		}
		seen[label] = true
	})
	if xs.Length() < 2 || xs.Length() > 8 {
		t.Errorf("%d x ticks", xs.Length())
	}
}

// TestLogColoursLevelsApartFromPatterns: levels have fixed colours (ERROR
// red, WARN amber, INFO grey), and no pattern colour is a level's.
func TestLogColoursLevelsApartFromPatterns(t *testing.T) {
	css, err := os.ReadFile("../static/app.css")
	if err != nil {
		t.Fatal(err)
	}
	fills := func(prefix string) map[string]string {
		out := map[string]string{}
		for _, m := range regexp.MustCompile(`\.(`+prefix+`[a-z0-9]+) \{ fill: (#[0-9a-f]{6});`).FindAllStringSubmatch(string(css), -1) {
			out[m[1]] = m[2]
		}
		return out
	}
	levels, patterns := fills("lvl-"), fills("logc")
	if len(levels) != 7 || len(patterns) != 8 {
		t.Fatalf("%d level colours, %d pattern colours", len(levels), len(patterns))
	}
	if levels["lvl-error"] != "#d32f2f" || levels["lvl-warn"] != "#e69100" || levels["lvl-info"] != "#7d8799" {
		t.Errorf("level colours %v", levels)
	}
	taken := map[string]string{}
	for k, v := range levels {
		taken[v] = k
	}
	for k, v := range patterns {
		r, _ := strconv.ParseUint(v[1:3], 16, 8)
		g, _ := strconv.ParseUint(v[3:5], 16, 8)
		b, _ := strconv.ParseUint(v[5:7], 16, 8)
		grey := max(r, g, b)-min(r, g, b) < 40
		reddish := r > g+60 && r > b+60 // red, amber, orange
		if taken[v] != "" || grey || reddish {
			t.Errorf("pattern colour %s %s looks like a level's (%s)", k, v, taken[v])
		}
	}
}
