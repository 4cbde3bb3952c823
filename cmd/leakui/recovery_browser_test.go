package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/internal/browser"
)

// TestBrowserRecoveryRunNamesTheJVMFigure runs a gzip recovery in message format
// v0 with 0.10.0.0's iterator and opens its page at 1400 px and 390 px: the
// verdict is visible without scrolling, the callout sets the figure that came
// from the JVM beside the model's, and the phone page does not scroll sideways.
func TestBrowserRecoveryRunNamesTheJVMFigure(t *testing.T) {
	ctx := browser.New(t, 4*time.Minute)
	s := startServer(t, t.TempDir())
	// 30 segments, so that RSS − heap in use grows past the 16 MiB below which
	// the page keeps the callout quiet (as in TestLabRecoveryEndToEnd).
	code, out := s.post(t, "/api/runs", `{"workload":"recovery","variant":"leaky","codec":"gzip","format":"v0","partitions":1,"segments":30,"batches":300}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST /api/runs: %d %v", code, out)
	}
	run := s.waitRun(t, out["id"], 3*time.Minute)
	if run.Verdict != "leak" {
		t.Fatalf("run: %+v", run)
	}
	for _, width := range []int64{1400, 390} {
		browser.Do(t, ctx, chromedp.EmulateViewport(width, 900),
			chromedp.Navigate(s.base+"/runs/"+run.ID), chromedp.WaitVisible(`[data-testid=verdict-banner]`),
			chromedp.Click(`[data-testid=run-details] summary`)) // the callout is folded with the verdict's details
		callout := browser.Text(t, ctx, `[data-testid=run-callout]`)
		if !strings.Contains(callout, "the figure that came from the JVM (GzipLeak.java") || !strings.Contains(callout, "resident in this run (the Go model") {
			t.Errorf("%d px: callout %q", width, callout)
		}
		bottom := browser.Get(t, ctx, chromedp.Evaluate[float64](`document.querySelector("[data-testid=verdict-banner]").getBoundingClientRect().bottom`))
		scrollWidth := browser.Get(t, ctx, chromedp.Evaluate[int64](`document.documentElement.scrollWidth`))
		if bottom > 900 || scrollWidth > width {
			t.Errorf("%d px: verdict ends at %.0f px, page %d px wide", width, bottom, scrollWidth)
		}
		browser.Screenshot(t, ctx, "run-recovery-"+map[int64]string{1400: "wide", 390: "phone"}[width]+".png")
	}
}
