package main

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/internal/browser"
)

// fitsPhone fails the test when the page scrolls sideways in a 390 px window.
func fitsPhone(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	scroll := browser.Get(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	if inner := browser.Get(t, ctx, chromedp.Evaluate[int](`window.innerWidth`)); inner != 390 || scroll > inner {
		t.Errorf("%s: %d px wide in a %d px window", what, scroll, inner)
	}
}

// TestBrowserLabRun starts a run from the dashboard's form in the real Chromium,
// watches the progress bar move and the chart gain points over server-sent events,
// waits for the verdict (the live and the finished page fit a 390 px phone too),
// and opens the comparison with a fixed run.
func TestBrowserLabRun(t *testing.T) {
	ctx := browser.New(t, 4*time.Minute)
	s := startServer(t, t.TempDir())
	browser.Do(t, ctx,
		chromedp.EmulateViewport(1400, 1000),
		chromedp.Navigate(s.base+"/"),
		chromedp.WaitVisible(`[data-testid=run-form]`),
		chromedp.SetValue(`[data-testid=run-workload]`, "checkpoint"),
		chromedp.SetValue(`[data-testid=run-variant]`, "leaky"),
		chromedp.SetValue(`[data-testid=run-cycles]`, "600"),
		chromedp.Click(`[data-testid=run-start]`),
		chromedp.WaitVisible(`[data-testid=run][data-status=running]`),
	)
	// Watch the live page: the progress bar and the chart's points must move.
	progress := map[string]bool{}
	maxPoints := 0
	livePhone := false
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		v := browser.Get(t, ctx, chromedp.Evaluate[string](`(() => { const p = document.querySelector("[data-testid=run-progress]"); return p ? String(p.value) : "gone"; })()`))
		progress[v] = true
		pts := browser.Get(t, ctx, chromedp.Evaluate[string](`(() => { const f = document.querySelector("[data-chart=goroutines]"); return f ? (f.getAttribute("data-points") || "0") : "done"; })()`))
		if pts == "done" || v == "gone" {
			break
		}
		n, _ := strconv.Atoi(pts)
		maxPoints = max(maxPoints, n)
		if browser.Get(t, ctx, chromedp.Evaluate[bool](`document.querySelector("[data-testid=run-verdict]") !== null`)) {
			break
		}
		if len(progress) == 2 {
			browser.Screenshot(t, ctx, "run-live.png")
		}
		if len(progress) >= 3 && !livePhone { // the same live page on a phone, once
			livePhone = true
			browser.Do(t, ctx, chromedp.EmulateViewport(390, 900))
			fitsPhone(t, ctx, "the live run page")
			browser.Screenshot(t, ctx, "run-live-390.png")
			browser.Do(t, ctx, chromedp.EmulateViewport(1400, 1000))
		}
		time.Sleep(150 * time.Millisecond)
	}
	if len(progress) < 3 || maxPoints < 5 {
		t.Errorf("the live page showed progress values %v and at most %d chart points", progress, maxPoints)
	}
	browser.Do(t, ctx, chromedp.WaitVisible(`[data-testid=run-verdict]`))
	if v := browser.Text(t, ctx, `[data-testid=run-verdict]`); v != "leak" {
		t.Errorf("verdict %q", v)
	}
	// A storm of 600 rebalances at the default read fraction: 5 containers read.
	if r := browser.Text(t, ctx, `[data-testid=run-reason]`); !strings.Contains(r, "595 were never closed") {
		t.Errorf("reason %q", r)
	}
	leakyURL := browser.Get(t, ctx, chromedp.Location())
	browser.Screenshot(t, ctx, "run-report.png")
	browser.Do(t, ctx, chromedp.EmulateViewport(390, 900))
	fitsPhone(t, ctx, "the run's report page")
	browser.Screenshot(t, ctx, "run-report-390.png")
	browser.Do(t, ctx, chromedp.EmulateViewport(1400, 1000))

	// The same size with the upstream fix, then the comparison.
	browser.Do(t, ctx,
		chromedp.Navigate(s.base+"/"),
		chromedp.SetValue(`[data-testid=run-variant]`, "pr1674"),
		chromedp.SetValue(`[data-testid=run-cycles]`, "600"),
		chromedp.Click(`[data-testid=run-start]`),
		chromedp.WaitVisible(`[data-testid=run-verdict]`),
	)
	fixedURL := browser.Get(t, ctx, chromedp.Location())
	a, b := leakyURL[strings.LastIndex(leakyURL, "/")+1:], fixedURL[strings.LastIndex(fixedURL, "/")+1:]
	browser.Do(t, ctx,
		chromedp.Navigate(s.base+"/runs/compare?a="+a+"&b="+b),
		chromedp.WaitVisible(`[data-testid=compare]`),
	)
	verdicts := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-testid=run-verdict]")).map(e => e.textContent)`))
	if len(verdicts) != 2 || verdicts[0] != "leak" || verdicts[1] != "no leak" {
		t.Errorf("compare verdicts %v", verdicts)
	}
	browser.Do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	browser.Screenshot(t, ctx, "run-compare.png")
	browser.Do(t, ctx, chromedp.EmulateViewport(390, 900), chromedp.Reload(), chromedp.WaitVisible(`[data-testid=compare]`))
	browser.Screenshot(t, ctx, "run-compare-390.png")
}
