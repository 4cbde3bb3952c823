package watch_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/web"
)

// noSidewaysScroll fails the test when the page is wider than the window.
func noSidewaysScroll(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	scroll := browser.Get(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	inner := browser.Get(t, ctx, chromedp.Evaluate[int](`window.innerWidth`))
	if scroll > inner {
		t.Errorf("%s: the page is %d px wide in a %d px window: it scrolls sideways", what, scroll, inner)
	}
}

// verdictTop is how far down the page the first verdict badge starts.
func verdictTop(t *testing.T, ctx context.Context) float64 {
	t.Helper()
	return browser.Get(t, ctx, chromedp.Evaluate[float64](`document.querySelector("[data-testid=watch-verdict]").getBoundingClientRect().top + window.scrollY`))
}

// TestBrowserWatchPages opens the watch pages of real watches in Chromium at
// 1400 and 390 px: the verdicts show within the first 400 px, nothing scrolls
// sideways, the chart is drawn; then, with the watch's page open, the watch
// ticks again and the page shows the new snapshot by itself, its chart still
// drawn; its pause button works from the keyboard. Screenshots go to
// docs/screenshots/ (LEAKUI_SCREENSHOTS).
func TestBrowserWatchPages(t *testing.T) {
	ctx := browser.New(t, 180*time.Second)
	f := newFixture(t)
	ts := f.server(t, web.Config{})
	for _, width := range []int64{1400, 390} {
		browser.Do(t, ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(ts.URL+"/watch"),
			chromedp.WaitVisible(`[data-testid=watch-row][data-name=leaky] [data-testid=watch-spark]`))
		noSidewaysScroll(t, ctx, fmt.Sprintf("/watch at %d px", width))
		if top := verdictTop(t, ctx); top > 400 {
			t.Errorf("/watch at %d px: the first verdict starts %.0f px down, below the first 400 px", width, top)
		}
		if c := browser.Attr(t, ctx, `[data-testid=watch-row][data-name=leaky] [data-testid=watch-verdict]`, "class"); !strings.Contains(c, "bad") {
			t.Errorf("/watch at %d px: leaky's verdict is %q, want red", width, c)
		}
		browser.Screenshot(t, ctx, fmt.Sprintf("watch-list-%d.png", width))

		browser.Do(t, ctx, chromedp.Navigate(ts.URL+"/watch/leaky"), chromedp.WaitVisible(`figure.js-chart .uplot`))
		noSidewaysScroll(t, ctx, fmt.Sprintf("/watch/leaky at %d px", width))
		if top := verdictTop(t, ctx); top > 400 {
			t.Errorf("/watch/leaky at %d px: the verdict starts %.0f px down, below the first 400 px", width, top)
		}
		browser.Screenshot(t, ctx, fmt.Sprintf("watch-page-%d.png", width))
	}

	// Live: one more tick while the page is open.
	ctxb := context.Background()
	before, err := f.db.Watch(ctxb, "leaky")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.w.Tick(ctxb, "leaky", before.LastScrape.Truncate(time.Second).Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	want := strconv.Itoa(before.Snapshots+1) + " of 24"
	browser.Do(t, ctx, chromedp.Poll[chromedp.Void](`document.querySelector("[data-testid=watch-summary] [data-testid=watch-snapshots]").textContent.trim() === `+strconv.Quote(want),
		chromedp.WithPollingTimeout(30*time.Second)))
	if n := browser.Get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("figure.js-chart .uplot").length`)); n == 0 {
		t.Error("after the update the chart is no longer drawn")
	}
	if s := browser.Text(t, ctx, `[data-watch-updated]`); !strings.HasPrefix(s, "Updated at") {
		t.Errorf("the live status reads %q", s)
	}
	// The pause button, from the keyboard.
	browser.Do(t, ctx, chromedp.Focus(`[data-watch-pause]`), chromedp.KeyEvent("\r"))
	if p := browser.Attr(t, ctx, `[data-watch-pause]`, "aria-pressed"); p != "true" {
		t.Errorf("after Enter on the pause button aria-pressed is %q", p)
	}
}

// TestBrowserJVMWatchPage opens a JVM watch's page, fed by two real pushed
// bundles, in Chromium at 1400 and 390 px: its leak verdict shows within the
// first 400 px in red and nothing scrolls sideways. Screenshots go to
// docs/screenshots/ (LEAKUI_SCREENSHOTS).
func TestBrowserJVMWatchPage(t *testing.T) {
	ctx := browser.New(t, 120*time.Second)
	ts, _ := jvmWatchServer(t)
	for _, width := range []int64{1400, 390} {
		browser.Do(t, ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(ts.URL+"/watch/broker"),
			chromedp.WaitVisible(`[data-testid=watch-verdict]`))
		noSidewaysScroll(t, ctx, fmt.Sprintf("/watch/broker at %d px", width))
		if top := verdictTop(t, ctx); top > 400 {
			t.Errorf("/watch/broker at %d px: the verdict starts %.0f px down, below the first 400 px", width, top)
		}
		if c := browser.Attr(t, ctx, `[data-testid=watch-verdict]`, "class"); !strings.Contains(c, "bad") {
			t.Errorf("/watch/broker at %d px: the verdict is %q, want red", width, c)
		}
		browser.Screenshot(t, ctx, fmt.Sprintf("watch-jvm-%d.png", width))
	}
}
