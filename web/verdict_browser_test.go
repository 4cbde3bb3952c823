package web

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/web/page"
)

// TestBrowserVerdictFirst opens a series, a diff, a profile, a goroutine dump, a JVM thread dump and a log report at
// 1400 px and at 390 px and checks that the verdict banner's state and reason are
// inside the first 400 px of the page, and that the three-snapshot Parca series
// reads "inconclusive" with the 8–12 advice.
func TestBrowserVerdictFirst(t *testing.T) {
	ctx := browser.New(t, 120*time.Second)
	ts := newTestServer(t, Config{})
	pages := map[string]string{}
	series := ts.mustUpload(t, nil, parcaSeries(t)...)
	pages["series"] = page.ReportURL(series.ReportID)
	pages["diff"] = page.ReportURL(ts.mustUpload(t, nil, parcaSeries(t)[0], parcaSeries(t)[2]).ReportID)
	pages["profile"] = page.ReportURL(ts.mustUpload(t, nil, parcaSeries(t)[2]).ReportID)
	pages["goroutines"] = page.ReportURL(ts.mustUpload(t, nil, fixture(t, "goroutines", "erigon-debug1-20161-goroutines.txt")).ReportID)
	pages["jvm threads"] = page.ReportURL(ts.mustUpload(t, nil, fixture(t, "jvm", "sjk-jstack-jdk8-hazelcast-160threads.txt")).ReportID)
	pages["log"] = page.ReportURL(ts.mustUpload(t, nil, fixture(t, "logs", "kafka-2.1.1-broker-server.log.2020-02-14-00")).ReportID)
	for _, width := range []int64{1400, 390} {
		browser.Do(t, ctx, chromedp.EmulateViewport(width, 900))
		for name, path := range pages {
			browser.Do(t, ctx, chromedp.Navigate(ts.URL+path), chromedp.WaitVisible(`[data-testid=verdict-banner]`))
			if bottom := bannerBottom(t, ctx); bottom > 400 {
				t.Errorf("%s at %d px: the verdict banner's first lines end %.0f px down the page, below 400 px", name, width, bottom)
			}
		}
	}
	browser.Do(t, ctx, chromedp.Navigate(ts.URL+pages["series"]), chromedp.WaitVisible(`[data-testid=verdict-banner]`))
	shot(t, ctx, "series-390.png") // the viewport is still 390 px wide
	browser.Do(t, ctx, chromedp.EmulateViewport(1400, 900), chromedp.Navigate(ts.URL+pages["series"]), chromedp.WaitVisible(`[data-testid=verdict-banner]`))
	if state := browser.Attr(t, ctx, `[data-testid=verdict-banner]`, "data-state"); state != "inconclusive" {
		t.Errorf("the three-snapshot Parca series reads %q, want inconclusive", state)
	}
	if reason := browser.Text(t, ctx, `[data-testid=verdict-reason]`); !strings.Contains(reason, "46.7 MB to 137.0 MB") || !strings.Contains(reason, "Take 8–12 snapshots") {
		t.Errorf("reason %q lacks the numbers or the 8–12 advice", reason)
	}
}
