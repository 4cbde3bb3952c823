package web

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/web/internal/webtest"
	"github.com/leakui/leakui/web/page"
)

// pageFit and measurePageFit measure how a page fits its window (webtest).
type pageFit = webtest.PageFit

const measurePageFit = webtest.MeasurePageFit

// TestBrowserPagesFit opens a report of each kind it can make without a lab run
// (a heap profile, a 12-snapshot series taken 300 ms apart, a goroutine dump, a
// JVM histogram, threads and NMT, a heap dump, a log, a profile's labels and call
// graph) at 1400 and 390 px, and
// checks each: no sideways scroll, no table cell squeezed below eight characters,
// and the verdict within the first 400 px; then the dashboard that lists them. Its screenshots are the pages'
// pictures in docs/screenshots (LEAKUI_SCREENSHOTS).
func TestBrowserPagesFit(t *testing.T) {
	ctx := browser.New(t, 240*time.Second)
	ts := newTestServer(t, Config{UploadsPerMinute: -1})
	start := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	var quick []file
	for i := range 12 {
		quick = append(quick, file{name: fmt.Sprintf("heap-%02d.pb.gz", i), data: quickHeapProfile(t, start.Add(time.Duration(i)*300*time.Millisecond), int64(i+1)<<20)})
	}
	pages := []struct{ name, path string }{
		{"heap-profile", page.ReportURL(ts.mustUpload(t, nil, fixture(t, "pprof", "erigon-integration-heap.pb.gz")).ReportID)},
		{"series", page.ReportURL(ts.mustUpload(t, nil, quick...).ReportID)},
		{"goroutines", page.ReportURL(ts.mustUpload(t, nil, fixture(t, "goroutines", "erigon-debug1-20161-goroutines.txt")).ReportID)},
		{"jvm-histogram", page.ReportURL(ts.mustUpload(t, nil, fixture(t, "leakshape", "leakshape-6-class-histogram.txt")).ReportID)},
		{"jvm-threads", page.ReportURL(ts.mustUpload(t, nil, fixture(t, "leakshape", "leakshape-6-thread-dump.txt")).ReportID)},
		{"jvm-nmt", page.ReportURL(ts.mustUpload(t, nil, fixture(t, "leakshape", "leakshape-6-nmt-summary.txt")).ReportID)},
		{"heap-dump", page.ReportURL(ts.mustUploadHeapDump(t, fixture(t, "leakshape", "heapleak.hprof.gz")).ReportID)},
		{"log", page.ReportURL(ts.mustUpload(t, nil, fixture(t, "logs", "loghub-Zookeeper_2k.log")).ReportID)},
		{"labels", page.ReportURL(ts.mustUpload(t, nil, fixture(t, "pprof", "goprofnotes-goroutine-snap1-debug0.pb.gz")).ReportID) + "?view=labels"},
		{"callgraph", page.ReportURL(ts.mustUpload(t, nil, fixture(t, "pprof", "goprofnotes-block-net.pb.gz")).ReportID) + "?view=callgraph"},
		{"dashboard", "/"}, // lists them all, the series by what it is; no verdict of its own
	}
	for _, width := range []int64{1400, 390} {
		w := strconv.FormatInt(width, 10)
		browser.Do(t, ctx, chromedp.EmulateViewport(width, 900))
		for _, pg := range pages {
			browser.Do(t, ctx, chromedp.Navigate(ts.URL+pg.path), chromedp.WaitReady(`body`), chromedp.Sleep(300*time.Millisecond))
			// The layout settles after the page loads (fonts, charts drawn to
			// the width): measured again for up to 2 s while it scrolls sideways.
			fit := browser.Get(t, ctx, chromedp.Evaluate[pageFit](measurePageFit))
			for i := 0; i < 10 && fit.ScrollWidth > fit.InnerWidth; i++ {
				browser.Do(t, ctx, chromedp.Sleep(200*time.Millisecond))
				fit = browser.Get(t, ctx, chromedp.Evaluate[pageFit](measurePageFit))
			}
			if fit.ScrollWidth > fit.InnerWidth {
				wide := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("body *")).filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && e.parentElement.getBoundingClientRect().right <= window.innerWidth + 1).slice(0, 8).map(e => e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined ? "." + e.className : "") + (e.dataset.testid ? "[" + e.dataset.testid + "]" : "") + " " + Math.round(e.getBoundingClientRect().right))`))
				t.Errorf("%s at %s px: the page is %d px wide: it scrolls sideways; too wide: %v", pg.name, w, fit.ScrollWidth, wide)
			}
			if len(fit.Squeezed) > 0 {
				t.Errorf("%s at %s px: table cells squeezed below eight characters:\n  %s", pg.name, w, strings.Join(fit.Squeezed, "\n  "))
			}
			if pg.name != "dashboard" && (fit.VerdictTop < 0 || fit.VerdictTop > 400) {
				t.Errorf("%s at %s px: the verdict starts at %d px, not within the first 400", pg.name, w, fit.VerdictTop)
			}
			browser.Screenshot(t, ctx, "pagefit-"+pg.name+"-"+w+".png")
		}
	}
}
