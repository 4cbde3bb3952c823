package web

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	weblogs "github.com/leakui/leakui/web/logs"

	"github.com/PuerkitoBio/goquery"
	"github.com/klauspost/compress/zstd"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/web/page"
)

// logFixturePatterns are literals and regexps that hit every layout of the
// fixture logs (and some that hit nothing).
var logFixturePatterns = []logs.Pattern{
	logs.Literal("INFO"), logs.Literal("WARN"), logs.Literal("ERROR"), logs.Literal("Exception"),
	logs.Literal("kafka"), logs.Literal("Adding new member"), logs.Literal("removing member"),
	logs.Literal("PacketResponder"), logs.Literal("]: "), logs.Literal("no such text anywhere"),
	logs.Regexp(`[0-9]{4}-[0-9]{2}-[0-9]{2}`), logs.Regexp(`(WARN|ERROR)`), logs.Regexp(`^\[`),
	logs.Regexp(`blk_-?[0-9]+`), logs.Regexp(`member consumer-[0-9]+-[0-9a-f-]+`), logs.Regexp(`size [0-9]+$`),
}

// TestLogFixturesMatchGrep uploads every fixture log in one report with
// literals and regexps, and checks every count on the page and in the JSON,
// summed and per file, and every file's line count, against grep -c run on
// the same files.
func TestLogFixturesMatchGrep(t *testing.T) {
	ts := newTestServer(t, Config{})
	paths := fixtures.Glob(t, "logs", "*")
	if len(paths) < 9 {
		t.Fatalf("%d fixture logs, want the 9 of PROVENANCE.md", len(paths))
	}
	var files []file
	for _, p := range paths {
		files = append(files, fixture(t, "logs", filepath.Base(p)))
	}
	up := ts.mustUpload(t, logFields(logFixturePatterns, nil), files...)
	doc, _ := logGetJSON(t, ts, "/api/reports/"+up.ReportID)
	pg, _ := logGetPage(t, ts, up.ReportURL)
	rep := doc.Analysis.Report
	if doc.Kind != weblogs.ReportKind || !doc.Analysis.Own || len(rep.Files) != len(paths) || len(rep.Patterns) != len(logFixturePatterns) {
		t.Fatalf("kind %s own %v, %d files and %d patterns in the JSON", doc.Kind, doc.Analysis.Own, len(rep.Files), len(rep.Patterns))
	}
	var lines int64
	for j, path := range paths {
		want := logGrepLines(t, path)
		lines += want
		if rep.Files[j].Lines != want || rep.Files[j].Name != filepath.Base(path) {
			t.Errorf("%s: JSON says %d lines (%s), grep -c '' says %d", path, rep.Files[j].Lines, rep.Files[j].Name, want)
		}
		if got := pg.Find("[data-testid=file-lines]").Eq(j).Text(); got != analyze.FormatCount(want) {
			t.Errorf("%s: the page says %s lines, grep %d", path, got, want)
		}
	}
	if rep.Lines != lines || pg.Find("[data-testid=log-lines]").Text() != analyze.FormatCount(lines) {
		t.Errorf("total lines: JSON %d, page %s, grep %d", rep.Lines, pg.Find("[data-testid=log-lines]").Text(), lines)
	}
	rows := pg.Find("[data-testid=log-pattern]")
	if rows.Length() != len(logFixturePatterns) {
		t.Fatalf("%d pattern rows on the page", rows.Length())
	}
	for i, p := range logFixturePatterns {
		var sum int64
		perFile := make([]int64, len(paths))
		for j, path := range paths {
			perFile[j] = logGrepCount(t, p, path)
			sum += perFile[j]
		}
		got := rep.Patterns[i]
		if got.Pattern != p.Text || got.Regexp != p.Regexp || got.Count != sum {
			t.Errorf("JSON: %v counted %d, grep says %d", p, got.Count, sum)
		}
		for j := range paths {
			if got.Files[j] != perFile[j] {
				t.Errorf("JSON: %v in %s: %d, grep says %d", p, filepath.Base(paths[j]), got.Files[j], perFile[j])
			}
		}
		row := rows.Eq(i)
		if row.AttrOr("data-count", "") != strconv.FormatInt(sum, 10) || row.Find("[data-testid=pattern-count]").Text() != analyze.FormatCount(sum) {
			t.Errorf("page: %v shows %s (%s), grep says %d", p, row.AttrOr("data-count", ""), row.Find("[data-testid=pattern-count]").Text(), sum)
		}
		cells := row.Find("[data-testid=pattern-file-count]")
		for j := range paths {
			if cells.Eq(j).Text() != analyze.FormatCount(perFile[j]) {
				t.Errorf("page: %v in %s shows %s, grep says %d", p, filepath.Base(paths[j]), cells.Eq(j).Text(), perFile[j])
			}
		}
	}
	// The fixtures mix yearless timestamps (erigon) with dated ones: the dated
	// ones make the time axis, the yearless lines are counted as untimed, and
	// the page and the JSON say so.
	if len(rep.Buckets) == 0 || !rep.YearlessUntimed || len(doc.Analysis.Notices) != 1 || pg.Find("[data-testid=log-timeline]").Length() != 1 ||
		!strings.Contains(pg.Find("[data-testid=notice]").Text(), "left off the time axis") {
		t.Errorf("mixed yearless and dated files: %d buckets, notices %v", len(rep.Buckets), doc.Analysis.Notices)
	}
	// The upload's patterns are the report's own, stored with it.
	var stored weblogs.Params
	if err := json.Unmarshal(doc.Params, &stored); err != nil || stored.Key() != (weblogs.Params{Patterns: logFixturePatterns}).Key() {
		t.Errorf("stored params %s (%v)", doc.Params, err)
	}
}

// TestLogYearlessTimeline counts the erigon log, whose timestamps have no
// year ([02-21|11:55:36.680]): the chart spans its own times, shown without a
// year, and its bars add up to the pattern's count minus the lines before the
// first timestamp.
func TestLogYearlessTimeline(t *testing.T) {
	ts := newTestServer(t, Config{})
	name := "erigon-node.log"
	p := logs.Literal("INFO")
	up := ts.mustUpload(t, logFields([]logs.Pattern{p}, nil), fixture(t, "logs", name))
	doc, _ := logGetJSON(t, ts, "/api/reports/"+up.ReportID)
	pg, _ := logGetPage(t, ts, up.ReportURL)
	rep := doc.Analysis.Report
	if !rep.Yearless || len(rep.Buckets) < logs.MinAutoBuckets || len(doc.Analysis.Notices) != 0 {
		t.Fatalf("yearless %v, %d buckets, notices %v", rep.Yearless, len(rep.Buckets), doc.Analysis.Notices)
	}
	tl := pg.Find("[data-testid=log-timeline]")
	if tl.Length() != 1 || !strings.HasPrefix(tl.Find("figcaption").Text(), "Lines per ") || !strings.Contains(tl.Find("figcaption").Text(), "02-21 ") {
		t.Fatalf("timeline caption %q", tl.Find("figcaption").Text())
	}
	var total int64
	tl.Find("[data-testid=timeline-bar]").Each(func(_ int, s *goquery.Selection) {
		n, _ := strconv.ParseInt(s.AttrOr("data-total", ""), 10, 64)
		total += n
	})
	var untimed int64
	if len(rep.Untimed) > 0 {
		untimed = rep.Untimed[0]
	}
	if want := logGrepCount(t, p, fixtures.Path(t, "logs", name)); total+untimed != want || total == 0 {
		t.Errorf("the bars add up to %d (+%d before any timestamp); grep counts %d", total, untimed, want)
	}
}

// TestLogCompressedInputs uploads one log plain, gzipped and zstd-compressed:
// all three count what grep counts on the plain file.
func TestLogCompressedInputs(t *testing.T) {
	ts := newTestServer(t, Config{})
	name := "kafka-2.1.1-broker-server.log.2020-02-14-00"
	path := fixtures.Path(t, "logs", name)
	plain := fixture(t, "logs", name)
	var zbuf bytes.Buffer
	zw, err := zstd.NewWriter(&zbuf)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(plain.data)
	zw.Close()
	patterns := []logs.Pattern{logs.Literal("Adding new member"), logs.Regexp(`removing member \S+ on LeaveGroup`)}
	up := ts.mustUpload(t, logFields(patterns, nil),
		plain, file{name: name + ".gz", data: logGzip(t, plain.data)}, file{name: name + ".zst", data: zbuf.Bytes()})
	doc, _ := logGetJSON(t, ts, "/api/reports/"+up.ReportID)
	pg, _ := logGetPage(t, ts, up.ReportURL)
	for i, want := range []string{"none", "gzip", "zstd"} {
		if got := pg.Find("[data-testid=file-compression]").Eq(i).Text(); got != want {
			t.Errorf("file %d: compression %q, want %q", i, got, want)
		}
		if doc.Analysis.Report.Files[i].Bytes != int64(len(plain.data)) {
			t.Errorf("file %d: %d bytes read, want %d", i, doc.Analysis.Report.Files[i].Bytes, len(plain.data))
		}
	}
	for i, p := range patterns {
		want := logGrepCount(t, p, path)
		if want == 0 {
			t.Fatalf("%v: grep finds nothing; the test needs a pattern that matches", p)
		}
		got := doc.Analysis.Report.Patterns[i]
		if got.Count != 3*want || got.Files[0] != want || got.Files[1] != want || got.Files[2] != want {
			t.Errorf("%v: %d (%v), grep says %d per file", p, got.Count, got.Files, want)
		}
	}
}

// TestLogSamzaPreset counts a built container log with the SAMZA-2785 preset:
// the page, the JSON, the Markdown and the CSV give the known answers, which
// grep confirms on the same bytes.
func TestLogSamzaPreset(t *testing.T) {
	ts := newTestServer(t, Config{})
	s := buildSamzaLog()
	path := filepath.Join(t.TempDir(), "samza-container.log")
	if err := os.WriteFile(path, s.text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The anchor: grep on the bytes the test built.
	starts := logGrepCount(t, logs.Literal("Starting the checkpoint SystemConsumer from oldest offset"), path)
	stops := logGrepCount(t, logs.Literal("Stopping system consumer"), path)
	kafkaStarts := logGrepCount(t, logs.Literal(": Consumer started"), path)
	kafkaStops := logGrepCount(t, logs.Literal("Stopping Samza kafkaConsumer"), path)
	if starts != samzaCheckpointStarts || stops != samzaCheckpointStops || kafkaStarts != samzaKafkaKeys*samzaKafkaStartsPer || kafkaStops != samzaKafkaClosedKeys {
		t.Fatalf("the built log holds %d/%d checkpoint and %d/%d kafka starts/stops", starts, stops, kafkaStarts, kafkaStops)
	}
	up := ts.mustUpload(t, map[string]string{"preset": "samza-2785", "label": "container 7"},
		file{name: "samza-container.log.gz", data: logGzip(t, s.text.Bytes())})
	unclosed := samzaKafkaKeys // every key started more often than closed

	t.Run("page", func(t *testing.T) {
		doc, _ := logGetPage(t, ts, up.ReportURL)
		pairs := doc.Find("[data-testid=log-pair]")
		if pairs.Length() != 3 {
			t.Fatalf("%d pairs on the page", pairs.Length())
		}
		for i, want := range [][4]string{
			{"checkpoint consumers", "1,741", "14", "1,727"},
			{"kafka consumers", "168", "3", "165"},
			{"consumer poll threads", "0", "0", "not measurable"},
		} {
			p := pairs.Eq(i)
			got := [4]string{p.Find("[data-testid=pair-name]").Text(), p.Find("[data-testid=pair-starts]").Text(),
				p.Find("[data-testid=pair-closes]").Text(), p.Find("[data-testid=pair-open]").Text()}
			if got != want {
				t.Errorf("pair %d: %v, want %v", i, got, want)
			}
		}
		// The built log has no poll thread line: that pair is not measurable, in
		// one line, with no bars, no chart and no "still open" figure.
		threads := pairs.Eq(2)
		if nm := threads.Find("[data-testid=pair-not-measurable]"); threads.AttrOr("data-measurable", "") != "false" || nm.Length() != 1 ||
			!strings.HasPrefix(nm.Text(), "Not measurable: no line matches") || threads.Find("[data-testid=pair-chart]").Length() != 0 ||
			doc.Find("[data-testid=chart-open-3]").Length() != 0 {
			t.Errorf("the poll-thread pair: measurable %q, notice %q, %d bar charts", threads.AttrOr("data-measurable", ""), nm.Text(), threads.Find("[data-testid=pair-chart]").Length())
		}
		if total := doc.Find("[data-testid=pair-open-total][data-pair='consumer poll threads']"); total.AttrOr("data-measurable", "") != "false" || total.Text() != "—" {
			t.Errorf("the poll threads' total reads %q (measurable %q)", total.Text(), total.AttrOr("data-measurable", ""))
		}
		kafka := pairs.Eq(1)
		// Each Kafka consumer key is started three times before any close: keys
		// name several consumers at once, so the pair says its balance rests on the counts.
		if fb := kafka.Find("[data-testid=pair-fallback]"); fb.Length() != 1 || !strings.Contains(fb.Text(), "was started again while still open (3 open at once)") ||
			!strings.Contains(fb.Text(), "KafkaSystemFactory.scala:45") || pairs.Eq(0).Find("[data-testid=pair-fallback]").Length() != 0 {
			t.Errorf("the fall-back notice: %q", fb.Text())
		}
		if kafka.AttrOr("data-starts", "") != strconv.FormatInt(kafkaStarts, 10) || kafka.AttrOr("data-closes", "") != strconv.FormatInt(kafkaStops, 10) {
			t.Errorf("kafka pair attributes %s/%s, grep %d/%d", kafka.AttrOr("data-starts", ""), kafka.AttrOr("data-closes", ""), kafkaStarts, kafkaStops)
		}
		if w1, w2 := kafka.Find("[data-testid=pair-bar-start]").AttrOr("width", ""), kafka.Find("[data-testid=pair-bar-close]").AttrOr("width", ""); w1 != "400" || w2 != "7" {
			t.Errorf("bars %s and %s; want 400 and 3×400/168 = 7", w1, w2)
		}
		if got := [3]string{kafka.Find("[data-testid=keys-started]").Text(), kafka.Find("[data-testid=keys-closed]").Text(), kafka.Find("[data-testid=keys-unclosed]").Text()}; got != [3]string{"56", "3", "56"} {
			t.Errorf("keys started/closed/unclosed %v", got)
		}
		keys := kafka.Find("[data-testid=open-key]")
		if keys.Length() != weblogs.DefaultKeyRows {
			t.Errorf("%d key rows, want the first %d", keys.Length(), weblogs.DefaultKeyRows)
		}
		// Most open first, ties in first-seen order: keys 3… (3 open), then 0–2 (2 open).
		first := keys.First()
		if first.Find("[data-testid=open-key-name]").Text() != samzaKey(3) || first.Find("[data-testid=open-key-open]").Text() != "3" {
			t.Errorf("first key %s open %s", first.Find("[data-testid=open-key-name]").Text(), first.Find("[data-testid=open-key-open]").Text())
		}
		wantFirst := fmt.Sprintf("samza-container.log.gz:%d", s.firstStart[samzaKey(3)])
		if got := first.Find("[data-testid=open-key-first]").Text(); !strings.HasPrefix(got, wantFirst+" 2020-02-25 ") {
			t.Errorf("first start of key 3: %q, want %s and its time", got, wantFirst)
		}
		if got := kafka.Find("[data-testid=open-keys-count]").Text(); !strings.Contains(got, "Showing 50 of 56 keys") {
			t.Errorf("count line %q", got)
		}
		all, _ := kafka.Find("[data-testid=show-all]").Attr("href")
		full, _ := logGetPage(t, ts, all)
		rows := full.Find("[data-testid=log-pair]").Eq(1).Find("[data-testid=open-key]")
		if rows.Length() != unclosed || rows.Last().Find("[data-testid=open-key-name]").Text() != samzaKey(2) || rows.Last().AttrOr("data-open", "") != "2" {
			t.Errorf("?n=all: %d rows, last %s", rows.Length(), rows.Last().Find("[data-testid=open-key-name]").Text())
		}
		if doc.Find("[data-testid=log-timeline]").Length() != 1 || doc.Find("[data-testid=chart-open-1]").Length() != 1 || doc.Find("[data-testid=chart-open-2]").Length() != 1 {
			t.Error("the counts over time or the still-open charts are missing")
		}
		if doc.Find("[data-testid=report-label]").Text() != "container 7" {
			t.Error("the label is missing")
		}
		if sel := doc.Find("[data-testid=log-preset] option[selected]"); sel.AttrOr("value", "") != "samza-2785" {
			t.Errorf("the form's preset is %q", sel.AttrOr("value", ""))
		}
	})

	t.Run("json", func(t *testing.T) {
		doc, _ := logGetJSON(t, ts, "/api/reports/"+up.ReportID)
		rep := doc.Analysis.Report
		cp, ok1 := rep.Pair("checkpoint consumers")
		kc, ok2 := rep.Pair("kafka consumers")
		if !ok1 || !ok2 || cp.Starts != starts || cp.Closes != stops || cp.Open != starts-stops || kc.Starts != kafkaStarts || kc.Closes != kafkaStops {
			t.Fatalf("pairs %+v %+v", cp, kc)
		}
		if kc.KeysStarted != samzaKafkaKeys || kc.KeysClosed != samzaKafkaClosedKeys || len(kc.UnclosedKeys) != unclosed {
			t.Errorf("keys %d started, %d closed, %d unclosed", kc.KeysStarted, kc.KeysClosed, len(kc.UnclosedKeys))
		}
		for _, k := range kc.UnclosedKeys {
			if k.First.Line != s.firstStart[k.Key] || k.Last.Line != s.lastStart[k.Key] || k.Starts != samzaKafkaStartsPer {
				t.Errorf("key %s: first %d last %d starts %d; built %d %d %d", k.Key, k.First.Line, k.Last.Line, k.Starts,
					s.firstStart[k.Key], s.lastStart[k.Key], samzaKafkaStartsPer)
			}
		}
		if len(rep.Buckets) < logs.MinAutoBuckets || len(rep.Buckets) > logs.MaxAutoBuckets {
			t.Errorf("%d buckets; automatic widths make 50–300", len(rep.Buckets))
		}
		if last := rep.Buckets[len(rep.Buckets)-1]; last.Open[0] != starts-stops || last.Open[1] != kafkaStarts-kafkaStops {
			t.Errorf("still open at the end of the last bucket: %v", last.Open)
		}
		if doc.Analysis.CSVURL != "/r/"+up.ReportID+"/keys.csv" {
			t.Errorf("csv_url %q", doc.Analysis.CSVURL)
		}
	})

	t.Run("markdown", func(t *testing.T) {
		code, ct, md := ts.get(t, up.ReportURL+".md")
		if code != 200 || !strings.HasPrefix(ct, "text/markdown") {
			t.Fatalf("GET .md: %d %s", code, ct)
		}
		for _, want := range []string{
			"- `Starting the checkpoint SystemConsumer from oldest offset`: 1741\n",
			"- `Stopping system consumer`: 14\n",
			"- still open: 1727\n",
			"- `: Consumer started`: 168\n",
			"- still open: 165\n",
			"- The balance rests on the counts: key “kafka:consumer-0” was started again while still open (3 open at once) (and 55 other keys)",
			"| `kafka:consumer-3` | 3 | 0 |",
			"**consumer poll threads**\n\n- `Starting consumer poll thread`: 0\n- `Shutting down KafkaConsumerProxy poll thread`: 0\n- Not measurable: no line matches",
			"- Preset: SAMZA-2785 checkpoint consumers\n",
			ts.URL + "/r/" + up.ReportID + "\n",
		} {
			if !strings.Contains(string(md), want) {
				t.Errorf("the Markdown lacks %q:\n%s", want, md)
			}
		}
	})

	t.Run("dashboard", func(t *testing.T) {
		_, _, home := ts.get(t, "/")
		if want := "checkpoint consumers: 1,741 started, 14 closed, 1,727 still open; kafka consumers: 168 started, 3 closed, 165 still open; consumer poll threads: not measurable"; !bytes.Contains(home, []byte(want)) {
			t.Errorf("the dashboard does not list the report with %q", want)
		}
	})

	t.Run("csv", func(t *testing.T) {
		resp, err := http.Get(ts.URL + "/r/" + up.ReportID + "/keys.csv")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
			resp.Header.Get("Content-Disposition") != `attachment; filename="leakui-`+up.ReportID+`-open-keys.csv"` {
			t.Fatalf("%d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"))
		}
		records, err := csv.NewReader(resp.Body).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(records[0], ",") != strings.Join(logs.CSVHeader, ",") {
			t.Errorf("header %v", records[0])
		}
		if len(records) != 1+unclosed {
			t.Fatalf("%d rows, want %d keys", len(records)-1, unclosed)
		}
		row := records[1]
		want := []string{"kafka consumers", samzaKey(3), "3", "0", "3", "samza-container.log.gz", strconv.FormatInt(s.firstStart[samzaKey(3)], 10)}
		if strings.Join(row[:7], ",") != strings.Join(want, ",") || !strings.HasPrefix(row[7], "2020-02-25T") {
			t.Errorf("first row %v, want %v and a time", row, want)
		}
		if last := records[len(records)-1]; last[1] != samzaKey(2) || last[3] != "1" || last[4] != "2" {
			t.Errorf("last row %v", last)
		}
	})
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// TestLogParametersInTheURL counts another set of patterns over a stored
// report: a form's query is redirected to its canonical URL, the page and the
// JSON count what the URL says, and the report's own parameters stay.
func TestLogParametersInTheURL(t *testing.T) {
	ts := newTestServer(t, Config{})
	name := "kafka-2.1.1-broker-server.log.2020-02-14-00"
	path := fixtures.Path(t, "logs", name)
	up := ts.mustUpload(t, map[string]string{"preset": "kafka-group-members"}, fixture(t, "logs", name))
	base := "/r/" + up.ReportID

	// A submitted form: blank rows, an unticked box, a pair with a key.
	form := url.Values{"p1": {"INFO"}, "p2": {""}, "p3": {`Member \S+ in group`}, "re3": {"1"}, "pair1": {`members=Adding new member ,removing member`},
		"key1": {`(?:Adding new|removing) member (\S+)`}, "pair2": {""}, "key2": {""}, "preset": {""}, "bucket": {"10m"}}
	resp, err := noRedirect.Get(ts.URL + base + "?" + form.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	want := url.Values{"p1": {"INFO"}, "p2": {`Member \S+ in group`}, "re2": {"1"}, "pair1": {`members=Adding new member ,removing member`},
		"key1": {`(?:Adding new|removing) member (\S+)`}, "preset": {""}, "bucket": {"10m"}}
	if resp.StatusCode != http.StatusSeeOther || loc != base+"?"+want.Encode() {
		t.Fatalf("GET with a form's query: %d to %q, want 303 to %q", resp.StatusCode, loc, base+"?"+want.Encode())
	}
	// The canonical URL is a fixed point.
	if resp, err := noRedirect.Get(ts.URL + loc); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET the canonical URL: %v %v", resp.StatusCode, err)
	} else {
		resp.Body.Close()
	}
	doc, _ := logGetPage(t, ts, loc)
	counts := logPageCounts(doc)
	for _, p := range []logs.Pattern{logs.Literal("INFO"), logs.Regexp(`Member \S+ in group`), logs.Literal("Adding new member "), logs.Literal("removing member")} {
		if got, want := counts[p.String()][0], strconv.FormatInt(logGrepCount(t, p, path), 10); got != want {
			t.Errorf("%v: page %s, grep %s", p, got, want)
		}
	}
	if doc.Find("[data-testid=custom-params]").Length() != 1 || doc.Find("[data-testid=own-params]").AttrOr("href", "") != base {
		t.Error("the page does not say it counts the URL's patterns, with a way back")
	}
	if doc.Find("[data-testid=log-pair]").Length() != 1 || doc.Find("[data-testid=open-keys]").Length() != 1 {
		t.Error("the URL's keyed pair is not shown with its open keys")
	}
	if got := doc.Find("[data-testid=log-timeline]").AttrOr("data-bucket-width", ""); got != "10m" {
		t.Errorf("bucket width %q, want 10m", got)
	}
	if doc.Find("[data-testid=log-pattern-input]").First().AttrOr("value", "") != "INFO" || doc.Find("[data-testid=log-pattern-re]").Eq(1).AttrOr("checked", "x") == "x" {
		t.Error("the form does not show the URL's patterns")
	}
	js, _ := logGetJSON(t, ts, "/api/reports/"+up.ReportID+strings.TrimPrefix(loc, base))
	if js.Analysis.Own || len(js.Analysis.Params.Patterns) != 2 || js.Analysis.Params.Bucket != "10m" || js.Analysis.URL != loc {
		t.Errorf("JSON of the URL's parameters: own %v params %+v url %q", js.Analysis.Own, js.Analysis.Params, js.Analysis.URL)
	}
	members, ok := js.Analysis.Report.Pair("members")
	if !ok || members.Starts != logGrepCount(t, logs.Literal("Adding new member "), path) {
		t.Errorf("members pair %+v", members)
	}

	// The report's own parameters are unchanged, and asking for them by name
	// leads back to the plain URL.
	own, _ := logGetJSON(t, ts, "/api/reports/"+up.ReportID)
	if !own.Analysis.Own || own.Analysis.Params.Preset != "kafka-group-members" || len(own.Analysis.Report.Pairs) != 1 || own.Analysis.Report.Pairs[0].Name != "group members" {
		t.Errorf("own parameters: %+v", own.Analysis.Params)
	}
	resp, err = noRedirect.Get(ts.URL + base + "?preset=kafka-group-members&bucket=auto&p1=")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != base {
		t.Errorf("the report's own parameters in the URL: %d to %q, want 303 to %s", resp.StatusCode, resp.Header.Get("Location"), base)
	}
}

// TestLogErrors checks that bad parameters are a clear 400 naming the pattern
// and the error, that a broken compressed file is a 422, and that nothing is
// stored for a refused upload.
func TestLogErrors(t *testing.T) {
	ts := newTestServer(t, Config{})
	ctx := context.Background()
	log := []byte("2020-02-25 03:21:00.001 INFO start a\n2020-02-25 03:21:00.002 INFO close a\n")
	var vb bytes.Buffer
	for i := 0; vb.Len() < 2<<20; i++ {
		fmt.Fprintf(&vb, "2020-02-25 03:21:%02d.%03d INFO worker %d hash %x\n", i/1000%60, i%1000, i, uint32(i)*2654435761)
	}
	varied := vb.Bytes()
	stored := func() int {
		a, c, r, err := ts.db.Counts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return a + c + r
	}
	for _, tc := range []struct {
		name   string
		fields map[string]string
		file   []byte
		status int
		want   []string
	}{
		{"invalid regexp", map[string]string{"p1": "start", "p2": "(unclosed", "re2": "1"}, log, 400, []string{`regexp "(unclosed"`, "missing closing )"}},
		{"invalid key", map[string]string{"pair1": "x=start,close", "key1": "no group"}, log, 400, []string{`key regexp "no group" has no capture group`}},
		{"unknown preset", map[string]string{"preset": "samza-9999"}, log, 400, []string{`unknown preset "samza-9999"`, "samza-2785"}},
		{"bad bucket", map[string]string{"bucket": "fortnight"}, log, 400, []string{`bucket width "fortnight"`}},
		{"formula pair name", map[string]string{"pair1": "@cmd=start,close"}, log, 400, []string{`pair name "@cmd"`}},
		{"pair without close", map[string]string{"pair1": "x=start"}, log, 400, []string{`pair "x=start"`}},
		{"too many patterns", func() map[string]string {
			f := map[string]string{}
			for i := 1; i <= logs.MaxPatterns+1; i++ {
				f["p"+strconv.Itoa(i)] = "pattern " + strconv.Itoa(i)
			}
			return f
		}(), log, 400, []string{fmt.Sprintf("more than %d patterns", logs.MaxPatterns)}},
		// Cut at three quarters: the head is fine (the upload's kind is
		// detected), the stream breaks further on, where only a count that
		// reads to the end finds it.
		{"truncated gzip", nil, func() []byte { gz := logGzip(t, varied); return gz[:len(gz)*3/4] }(), 422, []string{"gzip", "unexpected EOF"}},
		{"truncated zstd", nil, func() []byte {
			var b bytes.Buffer
			zw, _ := zstd.NewWriter(&b)
			zw.Write(varied)
			zw.Close()
			return b.Bytes()[:b.Len()*3/4]
		}(), 422, []string{"zstd"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, raw := ts.uploadFields(t, tc.fields, file{name: "x.log", data: tc.file})
			if code != tc.status {
				t.Fatalf("%d %s, want %d", code, raw, tc.status)
			}
			var e map[string]string
			json.Unmarshal([]byte(raw), &e)
			for _, w := range tc.want {
				if !strings.Contains(e["error"], w) {
					t.Errorf("error %q does not say %q", e["error"], w)
				}
			}
			if n := stored(); n != 0 {
				t.Errorf("%d rows stored after a refused upload", n)
			}
		})
	}

	// The same checks on a stored report's URL: the page shows the form again
	// with the message; the JSON, Markdown and CSV are plain 400s.
	up := ts.mustUpload(t, nil, file{name: "x.log", data: log})
	bad := "?p1=start&p2=%28unclosed&re2=1"
	code, ct, body := ts.get(t, up.ReportURL+bad)
	doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if code != 400 || !strings.HasPrefix(ct, "text/html") || !strings.Contains(doc.Find("[data-testid=log-error]").Text(), `regexp "(unclosed": error parsing regexp: missing closing )`) {
		t.Errorf("page: %d %s %q", code, ct, doc.Find("[data-testid=log-error]").Text())
	}
	if doc.Find("[data-testid=log-pattern-input]").Eq(1).AttrOr("value", "") != "(unclosed" || doc.Find("[data-testid=log-pattern]").Length() != 0 {
		t.Error("the error page does not offer the pattern to fix (or shows counts)")
	}
	for _, path := range []string{"/api/reports/" + up.ReportID + bad, up.ReportURL + ".md" + bad, up.ReportURL + "/keys.csv" + bad} {
		code, _, body := ts.get(t, path, "Accept", "application/json")
		if code != 400 || !strings.Contains(string(body), "missing closing )") {
			t.Errorf("GET %s: %d %s", path, code, body)
		}
	}
	if code, _, _ := ts.get(t, up.ReportURL+"?n=0"); code != 400 {
		t.Errorf("?n=0: %d", code)
	}
}

// TestLogHostileContent counts a log whose keys are markup, quotes, line
// separators, invalid UTF-8, NUL bytes and spreadsheet formulas: the page
// shows them as text, the JSON escapes them, the CSV defuses the formulas.
func TestLogHostileContent(t *testing.T) {
	ts := newTestServer(t, Config{})
	keys := []string{`<script>alert(1)</script>`, `"quoted'key`, "line\u2028sep", "bad\xff\xfeutf8", "nul\x00byte",
		"=HYPERLINK(\"http://x\")", "+1+2", "@SUM(A1)", "-2-3", `<img/src=x/onerror=alert(1)>`}
	var b bytes.Buffer
	for i, k := range keys {
		fmt.Fprintf(&b, "2020-02-25 03:21:%02d.000 open %s\n", i, k)
	}
	fmt.Fprintf(&b, "2020-02-25 03:22:00.000 close %s\n", keys[1])
	fields := map[string]string{"pair1": "things=open ,close ", "key1": `(?:open|close) (\S+)`, "p1": "<script>", "p2": "\"", "p3": "\u2028"}
	up := ts.mustUpload(t, fields, file{name: `<b>"log".txt`, data: b.Bytes()})

	doc, body := logGetPage(t, ts, up.ReportURL)
	doc.Find("script").Each(func(_ int, sc *goquery.Selection) {
		if src, _ := sc.Attr("src"); !strings.HasPrefix(src, "/static/") || strings.TrimSpace(sc.Text()) != "" {
			t.Errorf("script element %q (src %q): only the layout's scripts from /static/ may exist", sc.Text(), src)
		}
	})
	if doc.Find("[onerror]").Length() != 0 || doc.Find("img").Length() != 0 || bytes.Contains(body, []byte("<script>alert")) {
		t.Error("log content became markup")
	}
	shown := map[string]bool{}
	doc.Find("[data-testid=open-key-name]").Each(func(_ int, s *goquery.Selection) { shown[s.Text()] = true })
	for i, k := range keys {
		if i == 1 {
			continue // closed
		}
		if want := page.Display(k); !shown[want] {
			t.Errorf("key %q is not shown as %q (shown: %v)", k, want, shown)
		}
	}
	if !shown["nul\u2400byte"] || !shown["bad\ufffd\ufffdutf8"] {
		t.Error("NUL and invalid UTF-8 are not shown visibly")
	}
	counts := logPageCounts(doc)
	if counts["<script>"][0] != "1" || counts[`"`][0] != "3" || counts["\u2028"][0] != "1" {
		t.Errorf("hostile pattern counts %v", counts)
	}

	js, raw := logGetJSON(t, ts, "/api/reports/"+up.ReportID)
	if bytes.Contains(raw, []byte("<script>")) || bytes.Contains(raw, []byte("\u2028")) || bytes.Contains(raw, []byte{0}) {
		t.Error("the JSON carries raw markup, U+2028 or NUL")
	}
	pr, _ := js.Analysis.Report.Pair("things")
	got := map[string]bool{}
	for _, k := range pr.UnclosedKeys {
		got[k.Key] = true
	}
	for i, k := range keys {
		want := string([]rune(k)) // JSON writes each invalid byte as U+FFFD
		if i != 1 && !got[want] {
			t.Errorf("JSON lacks key %q", k)
		}
	}

	code, ct, csvBody := ts.get(t, "/r/"+up.ReportID+"/keys.csv")
	if code != 200 || ct != "text/csv; charset=utf-8" {
		t.Fatalf("CSV: %d %s", code, ct)
	}
	records, err := csv.NewReader(bytes.NewReader(csvBody)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records[1:] {
		for _, cell := range r {
			if cell != "" && strings.ContainsAny(cell[:1], "=+-@") {
				t.Errorf("CSV cell %q would be read as a formula", cell)
			}
		}
	}
	if len(records) != len(keys) { // header + every key but the closed one
		t.Errorf("%d CSV rows", len(records)-1)
	}

	_, _, md := ts.get(t, up.ReportURL+".md")
	outside := regexp.MustCompile("`[^`\n]*`").ReplaceAll(md, nil) // the text outside code spans
	if !bytes.Contains(md, []byte("| `<script>alert(1)</script>` |")) || bytes.Contains(outside, []byte("<script>")) || bytes.Contains(outside, []byte("<img")) {
		t.Errorf("the Markdown has markup outside code spans:\n%s", md)
	}
}
