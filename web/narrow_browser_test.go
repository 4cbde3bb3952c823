package web

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/internal/browser"
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
		pages[name] = reportURL(ts.mustUpload(t, nil, f...).ReportID)
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
