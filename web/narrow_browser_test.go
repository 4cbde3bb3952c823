package web

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/web/page"
)

// TestBrowserNoSidewaysScrollOnAPhone opens the dashboard and a report of each
// kind of evidence in a 390 px wide viewport, as on a phone during an incident,
// and checks that no page is wider than the screen: tables may scroll inside their
// own box, the page itself never sideways.
func TestBrowserNoSidewaysScrollOnAPhone(t *testing.T) {
	ctx := browser.New(t, 120*time.Second)
	ts := newTestServer(t, Config{})
	pages := map[string]string{"dashboard": "/"}
	for name, f := range map[string][]file{
		"heap profile":  {fixture(t, "pprof", "erigon-integration-heap.pb.gz")},
		"profile diff":  {fixture(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz"), fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")},
		"goroutines":    {fixture(t, "goroutines", "erigon-debug1-20161-goroutines.txt")},
		"jvm threads":   {fixture(t, "jvm", "sjk-jstack-jdk8-hazelcast-160threads.txt")},
		"jvm histogram": {fixture(t, "jvm", "tda-jdk15-threaddump-with-class-histogram.log")},
		"jvm nmt":       {fixture(t, "jvm", "nmt-summary-jdk17-bytes.txt")},
		"log":           {fixture(t, "logs", "kafka-2.1.1-broker-server.log.2020-02-14-00")},
	} {
		pages[name] = page.ReportURL(ts.mustUpload(t, nil, f...).ReportID)
	}
	browser.Do(t, ctx, chromedp.EmulateViewport(390, 900))
	for name, path := range pages {
		browser.Do(t, ctx, chromedp.Navigate(ts.URL+path), chromedp.WaitReady(`body`))
		scrollWidth := browser.Get(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
		innerWidth := browser.Get(t, ctx, chromedp.Evaluate[int](`window.innerWidth`))
		if innerWidth != 390 || scrollWidth > innerWidth {
			wide := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("main *")).filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest("table.data") && e.parentElement.getBoundingClientRect().right <= window.innerWidth + 1).slice(0, 8).map(e => e.tagName.toLowerCase() + (e.className ? "." + e.className : "") + (e.dataset.testid ? "[" + e.dataset.testid + "]" : ""))`))
			t.Errorf("%s (%s): the page is %d px wide in a %d px window: it scrolls sideways; too wide: %v", name, path, scrollWidth, innerWidth, wide)
		}
	}
}

// TestBrowserProfileTablesFitAPhone opens a heap profile's top table, its
// sandwich view and a diff's table at 390 px: each table fits the screen without
// scrolling inside its own box (flat%, sum% and cum% are dropped), and its
// function column is at least 150 px wide, so long Go names wrap at their
// separators instead of one letter per line. Then it shows the top table and the
// flame graph at 390 and 1400 px, which do not scroll sideways either.
func TestBrowserProfileTablesFitAPhone(t *testing.T) {
	ctx := browser.New(t, 120*time.Second)
	ts := newTestServer(t, Config{})
	heap := page.ReportURL(ts.mustUpload(t, nil, fixture(t, "pprof", "erigon-integration-heap.pb.gz")).ReportID)
	diff := page.ReportURL(ts.mustUpload(t, nil, fixture(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz"), fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")).ReportID)
	browser.Do(t, ctx, chromedp.EmulateViewport(390, 900), chromedp.Navigate(ts.URL+heap), chromedp.WaitReady(`[data-testid=top-table]`))
	sandwich := browser.Attr(t, ctx, `[data-testid=top-row]:first-child a[data-testid=name]`, "href")
	for _, pg := range []struct{ name, path, table string }{
		{"top table", heap, `[data-testid=top-table]`},
		{"sandwich", sandwich, `[data-testid=sandwich-self]`},
		{"sandwich callers", sandwich, `[data-testid=sandwich-callers]`},
		{"diff table", diff, `[data-testid=diff-table]`},
	} {
		browser.Do(t, ctx, chromedp.Navigate(ts.URL+pg.path), chromedp.WaitReady(pg.table))
		noSidewaysScroll(t, ctx, pg.name)
		fit := browser.Get(t, ctx, chromedp.Evaluate[[]int](`(() => { const t = document.querySelector(`+"`"+pg.table+"`"+`);
			const widths = Array.from(t.querySelectorAll("td.name")).map(td => Math.round(td.getBoundingClientRect().width));
			return [t.scrollWidth, t.clientWidth, widths.length ? Math.min(...widths) : 0, t.querySelectorAll(".secondary").length,
				Array.from(t.querySelectorAll(".secondary")).filter(e => getComputedStyle(e).display != "none").length]; })()`))
		if scroll, client, name, secondary, shown := fit[0], fit[1], fit[2], fit[3], fit[4]; scroll > client+1 || name < 150 || secondary == 0 || shown != 0 {
			t.Errorf("%s at 390 px: table %d px wide in a %d px box, narrowest function cell %d px, %d of %d secondary cells shown",
				pg.name, scroll, client, name, shown, secondary)
		}
	}
	// The heap profile's top table and flame graph on a phone and on a laptop
	// (the README's pictures): neither scrolls sideways.
	for _, width := range []int64{390, 1400} {
		w := strconv.FormatInt(width, 10)
		browser.Do(t, ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(ts.URL+heap), chromedp.WaitVisible(`[data-testid=top-table]`))
		noSidewaysScroll(t, ctx, "top table at "+w+" px")
		browser.Screenshot(t, ctx, "profile-top-"+w+".png")
		browser.Do(t, ctx, chromedp.Navigate(ts.URL+heap+"?view=flame"), chromedp.WaitVisible(`[data-testid=flame] canvas, [data-testid=flame] svg`))
		noSidewaysScroll(t, ctx, "flame graph at "+w+" px")
		browser.Screenshot(t, ctx, "profile-flame-"+w+".png")
	}
}
