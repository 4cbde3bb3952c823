package web

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/internal/fixtures"
)

// TestBrowserCaptureReport drives the real Chromium: choose the two bundles of
// a real JVM at once in the dashboard's file input, land on their capture
// report, and read the verdict, which is on screen without scrolling at 1400
// and at 390 px, where the page never scrolls sideways (its tables scroll in
// their own box).
func TestBrowserCaptureReport(t *testing.T) {
	ctx := browser.New(t, 90*time.Second)
	ts := newTestServer(t, Config{})
	before := fixtures.Path(t, "capture", "jvm-unclosed-gzip-before.tar.gz")
	after := fixtures.Path(t, "capture", "jvm-unclosed-gzip-after.tar.gz")
	browser.Do(t, ctx,
		chromedp.EmulateViewport(1400, 900),
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(`[data-testid=dropzone]`),
		chromedp.SetUploadFiles(`[data-testid=file-input]`, []string{after, before}),
		chromedp.WaitVisible(`[data-testid=capture-jvm]`),
	)
	url := browser.Get(t, ctx, chromedp.Location())
	if !strings.Contains(url, "/r/") {
		t.Fatalf("the upload did not land on a report: %s", url)
	}
	if got := browser.Text(t, ctx, `[data-testid=headline]`); !strings.Contains(got, "20,000 java.util.zip.Inflater alive") || !strings.Contains(got, "KAFKA-3933") {
		t.Errorf("the verdict reads %q", got)
	}
	for _, width := range []int64{1400, 390} {
		browser.Do(t, ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(url), chromedp.WaitVisible(`[data-testid=capture-jvm]`))
		box := browser.Get(t, ctx, chromedp.Evaluate[[]float64](`(() => { const r = document.querySelector("[data-testid=verdict-banner]").getBoundingClientRect();
			return [r.bottom, window.innerHeight, document.documentElement.scrollWidth, window.innerWidth]; })()`))
		if box[0] > box[1] || box[2] > box[3] {
			t.Errorf("at %d px: the verdict ends at %.0f px of a %.0f px window; the page is %.0f px wide in %.0f", width, box[0], box[1], box[2], box[3])
		}
		browser.Screenshot(t, ctx, "capture-report-"+strconv.FormatInt(width, 10)+".png")
	}
}
