package web

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/internal/fixtures"
	"github.com/leakui/leakui/internal/greptest"
)

// TestLogOverviewWithoutPatterns uploads the loghub Zookeeper log with no
// preset and no pattern: the page shows its lines by level (each equal to grep
// over the layout's level column), a chart of lines by level over time, and
// templates whose counts equal `grep -cE` of each template's own regexp; a
// template's link counts it as a pattern, with the same count, and its pair
// buttons carry the regexp. The Markdown has the levels and the templates.
func TestLogOverviewWithoutPatterns(t *testing.T) {
	ts := newTestServer(t, Config{})
	path := fixtures.Path(t, "logs", "loghub-Zookeeper_2k.log")
	up := ts.mustUpload(t, nil, fixture(t, "logs", "loghub-Zookeeper_2k.log"))
	doc, _ := logGetPage(t, ts, up.ReportURL)

	ov := doc.Find("[data-testid=log-overview]")
	if ov.Length() != 1 {
		t.Fatal("no overview on the page")
	}
	levels := doc.Find("[data-testid=log-trouble] [data-testid=level]")
	var sum int64
	levels.Each(func(_ int, s *goquery.Selection) {
		level, n := s.AttrOr("data-level", ""), greptest.Int(t, s.AttrOr("data-count", ""))
		sum += n
		if level == "none" {
			return
		}
		if want := greptest.Count(t, `^[^ ]+ [^ ]+ - `+level+` `, true, path); n != want {
			t.Errorf("level %s: the page says %d lines, grep %d", level, n, want)
		}
	})
	if lines := greptest.Lines(t, path); sum != lines || levels.Length() < 3 {
		t.Errorf("%d levels add up to %d lines, grep counts %d", levels.Length(), sum, lines)
	}
	ch := ov.Find("[data-testid=level-timeline]")
	if ch.Length() != 1 || ch.Find("[data-testid=timeline-bar]").Length() < logs.MinAutoBuckets {
		t.Fatalf("no chart of lines by level over time (%d bars)", ch.Find("[data-testid=timeline-bar]").Length())
	}
	var inBars int64
	ch.Find("[data-testid=timeline-bar]").Each(func(_ int, s *goquery.Selection) {
		inBars += greptest.Int(t, s.AttrOr("data-total", ""))
	})
	if inBars != sum {
		t.Errorf("the bars hold %d lines, want %d", inBars, sum)
	}

	rows := ov.Find("[data-testid=log-template]")
	if rows.Length() < 20 {
		t.Fatalf("%d templates", rows.Length())
	}
	rows.Each(func(i int, s *goquery.Selection) {
		re, n := s.AttrOr("data-regexp", ""), greptest.Int(t, s.AttrOr("data-count", ""))
		if want := greptest.Count(t, re, true, path); n != want {
			t.Errorf("template %d %q: %d lines, grep -cE %q says %d", i+1, s.Find("[data-testid=template-text]").Text(), n, re, want)
		}
		if s.Find("[data-testid=template-regexp]").Text() != re || s.Find("[data-testid=template-start]").AttrOr("data-regexp", "") != re ||
			s.Find("[data-testid=template-close]").AttrOr("data-regexp", "") != re {
			t.Errorf("template %d: the regexp shown or on its buttons differs from %q", i+1, re)
		}
	})
	if top := rows.First().Find("[data-testid=template-text]").Text(); !strings.Contains(top, "<DATE> <NUM>:<NUM>:<NUM>,<NUM> - WARN") {
		t.Errorf("top template %q", top)
	}

	// One click: the third template's link counts it as a pattern.
	third := rows.Eq(2)
	href, ok := third.Find("[data-testid=template-count-link]").Attr("href")
	if !ok {
		t.Fatal("no link to count a template")
	}
	counted, _ := logGetPage(t, ts, href)
	pr := counted.Find("[data-testid=log-pattern]")
	if pr.Length() != 1 || pr.AttrOr("data-count", "") != third.AttrOr("data-count", "") || pr.AttrOr("data-regexp", "") != "true" ||
		pr.Find("[data-testid=pattern-text]").Text() != third.AttrOr("data-regexp", "") {
		t.Errorf("counted as a pattern: %d rows, count %s (want %s)", pr.Length(), pr.AttrOr("data-count", ""), third.AttrOr("data-count", ""))
	}
	if counted.Find("[data-testid=log-pattern-input]").First().AttrOr("value", "") != third.AttrOr("data-regexp", "") {
		t.Error("the form's pattern field is not filled with the template's regexp")
	}

	_, _, md := ts.get(t, up.ReportURL+".md")
	if !bytes.Contains(md, []byte("**Lines by level:** ERROR 13, WARN 1,318, INFO 669")) ||
		!bytes.Contains(md, []byte("| 314 | WARN | `<DATE> <NUM>:<NUM>:<NUM>,<NUM> - WARN  [SendWorker:<NUM>:QuorumCnxManager$SendWorker@<NUM>] - Interrupted while waiting for message on queue` |")) {
		t.Errorf("the Markdown lacks the levels or the top template:\n%s", md)
	}
}

// TestLogPresetThatMatchesNothing counts a Kafka broker log with the Samza
// preset: every pattern counts 0 (as grep says), and the page says so in one
// line instead of drawing an empty chart; the overview still shows the log.
func TestLogPresetThatMatchesNothing(t *testing.T) {
	ts := newTestServer(t, Config{})
	name := "kafka-2.1.1-broker-server.log.2020-02-14-00"
	path := fixtures.Path(t, "logs", name)
	up := ts.mustUpload(t, map[string]string{"preset": "samza-2785"}, fixture(t, "logs", name))
	doc, _ := logGetPage(t, ts, up.ReportURL)
	rows := doc.Find("[data-testid=log-pattern]")
	p, _ := logs.LookupPreset("samza-2785")
	if rows.Length() == 0 || rows.Find("[data-testid=pattern-none]").Length() != rows.Length() {
		t.Fatalf("%d pattern rows, %d say they matched no line", rows.Length(), rows.Find("[data-testid=pattern-none]").Length())
	}
	rows.Each(func(_ int, s *goquery.Selection) {
		pt := logs.Pattern{Text: s.Find("[data-testid=pattern-text]").Text(), Regexp: s.AttrOr("data-regexp", "") == "true"}
		if n := greptest.Count(t, pt.Text, pt.Regexp, path); n != 0 {
			t.Errorf("%v: grep counts %d", pt, n)
		}
	})
	no := doc.Find("[data-testid=no-match]")
	if no.Length() != 1 || !strings.Contains(no.Text(), "Nothing matched") || !strings.Contains(no.Text(), p.Title) {
		t.Errorf("no one-line notice: %q", no.Text())
	}
	if doc.Find("[data-testid=log-timeline]").Length() != 0 || doc.Find("[data-testid=open-charts]").Length() != 0 || doc.Find("[data-testid=pair-chart]").Length() != 0 {
		t.Error("an empty chart is still drawn")
	}
	if n := doc.Find("[data-testid=pair-not-measurable]").Length(); n != len(p.Pairs) || doc.Find("[data-testid=log-pair][data-measurable=true]").Length() != 0 {
		t.Errorf("%d pairs say they are not measurable, want all %d", n, len(p.Pairs))
	}
	// Nothing reads as balanced: no "all closed" verdict, no still-open figure.
	if state := doc.Find("[data-testid=verdict-banner]").AttrOr("data-state", ""); state != "not-measurable" {
		t.Errorf("verdict state %q, want not-measurable", state)
	}
	if n := doc.Find("[data-testid=pair-open-total][data-measurable=true]").Length(); n != 0 {
		t.Errorf("%d still-open totals shown as numbers", n)
	}
	ov := doc.Find("[data-testid=log-overview]")
	if ov.Find("[data-testid=log-template]").Length() == 0 || ov.Find("[data-testid=level-timeline]").Length() != 1 {
		t.Error("the overview is missing beside the preset")
	}
	info := doc.Find("[data-testid=log-trouble] [data-testid=level][data-level=INFO]").AttrOr("data-count", "")
	if want := greptest.Count(t, `(^|[^0-9A-Za-z_.-])INFO($|[^0-9A-Za-z_.-])`, true, path); info != strconv.FormatInt(want, 10) {
		t.Errorf("INFO lines %s, grep %d", info, want)
	}
}

// TestLogKafka3933PresetOnRealBrokerLogs counts each real Kafka broker log of
// testdata with the KAFKA-3933 preset: the page, its JSON and its Markdown give
// the recovery lines grep counts, and say in one line that the deep-iterator pair
// and the recovery time are not measurable (a broker logs no iterator, and these
// brokers recovered nothing), never that everything was closed.
func TestLogKafka3933PresetOnRealBrokerLogs(t *testing.T) {
	ts := newTestServer(t, Config{})
	for _, name := range []string{"kafka-2.1.1-broker-server.log.2020-02-13-23", "kafka-2.1.1-broker-server.log.2020-02-14-00", "kafka-3.6.2-broker-server.log"} {
		t.Run(name, func(t *testing.T) {
			path := fixtures.Path(t, "logs", name)
			up := ts.mustUpload(t, map[string]string{"preset": "kafka-3933"}, fixture(t, "logs", name))
			doc, _ := logGetPage(t, ts, up.ReportURL)
			doc.Find("[data-testid=log-pattern]").Each(func(_ int, s *goquery.Selection) {
				pt := logs.Pattern{Text: s.Find("[data-testid=pattern-text]").Text(), Regexp: s.AttrOr("data-regexp", "") == "true"}
				if n := greptest.Count(t, pt.Text, pt.Regexp, path); strconv.FormatInt(n, 10) != s.AttrOr("data-count", "") {
					t.Errorf("%v: %s lines on the page, grep -c %d", pt, s.AttrOr("data-count", ""), n)
				}
			})
			pair := doc.Find("[data-testid=log-pair][data-pair='deep iterators']")
			if nm := pair.Find("[data-testid=pair-not-measurable]"); pair.AttrOr("data-measurable", "") != "false" || !strings.Contains(nm.Text(), "leakui.recovery.model") ||
				pair.Find("[data-testid=pair-open]").Text() != "not measurable" {
				t.Errorf("deep iterators: measurable %q, notice %q", pair.AttrOr("data-measurable", ""), nm.Text())
			}
			span := doc.Find("[data-testid=log-span]")
			if span.Length() != 1 || span.AttrOr("data-measurable", "") != "false" || !strings.Contains(span.Find("[data-testid=span-not-measurable]").Text(), "unclean shutdown") {
				t.Errorf("recovery time: %q", span.Text())
			}
			if b := doc.Find("[data-testid=verdict-banner]"); b.AttrOr("data-state", "") != "not-measurable" || strings.Contains(b.Text(), "all closed") {
				t.Errorf("verdict %q: %q", b.AttrOr("data-state", ""), b.Text())
			}
			js, raw := logGetJSON(t, ts, "/api/reports/"+up.ReportID)
			if p, ok := js.Analysis.Report.Pair("deep iterators"); !ok || p.Measurable || p.Basis != logs.BasisNone || !regexp.MustCompile(`"measurable":\s*false`).Match(raw) {
				t.Errorf("JSON pair %+v", p)
			}
			if sp := js.Analysis.Report.Spans; len(sp) != 1 || sp[0].Measurable {
				t.Errorf("JSON spans %+v", sp)
			}
			_, _, md := ts.get(t, up.ReportURL+".md")
			if !bytes.Contains(md, []byte("\n- Not measurable: no line matches “Opened deep iterator (” or “Closed deep iterator (”")) ||
				!bytes.Contains(md, []byte("\n- recovery time: Not measurable: no line matches “Recovering unflushed segment”.")) ||
				bytes.Contains(md, []byte("still open")) {
				t.Errorf("the Markdown does not say not measurable in one line each:\n%s", md)
			}
		})
	}
}
