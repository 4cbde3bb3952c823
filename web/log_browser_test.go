package web

import (
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	weblogs "github.com/leakui/leakui/web/logs"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/logs"
	"github.com/leakui/leakui/internal/browser"
)

// TestBrowserLogReport drives the real Chromium: pick the SAMZA-2785 preset in
// the dashboard's log options, upload a built container log through the file
// input, and read the counts and the open-keys table from the report; then add
// pattern rows with the page's form and count them (a new URL), against grep.
func TestBrowserLogReport(t *testing.T) {
	ctx := browser.New(t, 90*time.Second)
	ts := newTestServer(t, Config{})
	s := buildSamzaLog()
	path := filepath.Join(t.TempDir(), "samza-container.log")
	if err := os.WriteFile(path, s.text.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	starts := logGrepCount(t, logs.Literal("Starting the checkpoint SystemConsumer from oldest offset"), path)
	stops := logGrepCount(t, logs.Literal("Stopping system consumer"), path)

	const cp = `[data-testid=log-pair][data-pair='checkpoint consumers']`
	const kafka = `[data-testid=log-pair][data-pair='kafka consumers']`
	browser.Do(t, ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(`[data-testid=dropzone]`),
		chromedp.Click(`[data-testid=log-options] summary`),
		chromedp.WaitVisible(`[data-testid=log-preset]`),
		chromedp.SetValue(`[data-testid=log-preset]`, "samza-2785"),
		chromedp.SetUploadFiles(`[data-testid=file-input]`, []string{path}),
		chromedp.WaitVisible(cp),
	)
	loc := browser.Get(t, ctx, chromedp.Location())
	if !strings.Contains(loc, "/r/") {
		t.Fatalf("the upload did not land on a report: %s", loc)
	}
	if got := browser.Text(t, ctx, cp+` [data-testid=pair-starts]`); got != analyze.FormatCount(starts) {
		t.Errorf("the page says %s checkpoint consumers started; grep says %d", got, starts)
	}
	if got := browser.Text(t, ctx, cp+` [data-testid=pair-closes]`); got != analyze.FormatCount(stops) {
		t.Errorf("the page says %s stopped; grep says %d", got, stops)
	}
	if got := browser.Text(t, ctx, cp+` [data-testid=pair-open]`); got != analyze.FormatCount(starts-stops) {
		t.Errorf("the page says %s still open; want %d", got, starts-stops)
	}
	if got := browser.Text(t, ctx, kafka+` [data-testid=open-key]:first-child [data-testid=open-key-name]`); got != samzaKey(3) {
		t.Errorf("the most open key is %s, want %s", got, samzaKey(3))
	}
	first := browser.Text(t, ctx, kafka+` [data-testid=open-key]:first-child [data-testid=open-key-first]`)
	if want := "samza-container.log:" + strconv.FormatInt(s.firstStart[samzaKey(3)], 10); !strings.HasPrefix(first, want) {
		t.Errorf("its first start is %q, want %s", first, want)
	}
	rows := browser.Get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("`+kafka+` [data-testid=open-key]").length`))
	if rows != weblogs.DefaultKeyRows {
		t.Errorf("%d open keys listed, want the first %d", rows, weblogs.DefaultKeyRows)
	}
	// A short page for the README's picture.
	browser.Do(t, ctx,
		chromedp.Navigate(loc+"?n=6"),
		chromedp.WaitVisible(kafka),
	)
	browser.Screenshot(t, ctx, "log.png")

	// The pattern form: type a literal into the blank row, add a row for a
	// regexp, count.
	lit, re := logs.Literal("Reading checkpoints for the first time"), logs.Regexp(`oldest offset [0-9]*7$`)
	browser.Do(t, ctx,
		chromedp.SendKeys(`input[name=p1]`, lit.Text),
		chromedp.Click(`[data-testid=log-add-pattern]`),
		chromedp.WaitVisible(`input[name=p2]`),
		chromedp.SendKeys(`input[name=p2]`, re.Text),
		chromedp.Click(`input[name=re2]`),
		chromedp.Click(`[data-testid=log-count]`),
		chromedp.WaitVisible(`[data-testid=custom-params]`),
	)
	loc2 := browser.Get(t, ctx, chromedp.Location())
	u, err := url.Parse(loc2)
	if err != nil {
		t.Fatal(err)
	}
	if q := u.Query(); q.Get("p1") != lit.Text || q.Get("p2") != re.Text || q.Get("re2") != "1" || q.Get("preset") != "samza-2785" {
		t.Errorf("the form made %s", loc2)
	}
	for i, p := range []logs.Pattern{lit, re} {
		sel := `[data-testid=log-pattern]:nth-child(` + strconv.Itoa(i+1) + `)`
		if got, want := browser.Attr(t, ctx, sel, "data-count"), strconv.FormatInt(logGrepCount(t, p, path), 10); got != want {
			t.Errorf("%v: the page counts %s, grep %s", p, got, want)
		}
	}
}

// TestBrowserLogNotMeasurable opens a real Kafka broker log counted with the
// KAFKA-3933 preset at 1400 and 390 px: the verdict says "not measurable" inside
// the first screen, the deep-iterator pair and the recovery time say so in one
// line each, and the page does not scroll sideways.
func TestBrowserLogNotMeasurable(t *testing.T) {
	ctx := browser.New(t, 90*time.Second)
	ts := newTestServer(t, Config{})
	up := ts.mustUpload(t, map[string]string{"preset": "kafka-3933"}, fixture(t, "logs", "kafka-2.1.1-broker-server.log.2020-02-14-00"))
	for _, width := range []int64{1400, 390} {
		w := strconv.FormatInt(width, 10)
		browser.Do(t, ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(ts.URL+up.ReportURL),
			chromedp.WaitVisible(`[data-testid=pair-not-measurable]`))
		if state := browser.Text(t, ctx, `[data-testid=verdict-state]`); state != "not measurable" {
			t.Errorf("%s px: verdict %q, want not measurable", w, state)
		}
		if bottom := browser.Get(t, ctx, chromedp.Evaluate[float64](`document.querySelector("[data-testid=verdict-banner]").getBoundingClientRect().bottom`)); bottom > 900 {
			t.Errorf("%s px: the verdict ends at %.0f px, below the first screen", w, bottom)
		}
		notice := browser.Text(t, ctx, `[data-testid=log-pair][data-pair='deep iterators'] [data-testid=pair-not-measurable]`)
		span := browser.Text(t, ctx, `[data-testid=span-not-measurable]`)
		if !strings.HasPrefix(notice, "Not measurable:") || !strings.HasPrefix(span, "Not measurable:") {
			t.Errorf("%s px: pair %q, span %q", w, notice, span)
		}
		noSidewaysScroll(t, ctx, "log report at "+w+" px")
		browser.Screenshot(t, ctx, "log-not-measurable-"+w+".png")
	}
}
