package web

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/watch"
	"github.com/leakui/leakui/watch/watcher"
)

// TestBrowserOpsPage opens /ops, with two watches whose targets refuse
// their scrapes (long errors), in real Chromium at 1400 and 390 px: no
// sideways scroll, of the page or of a table, no table cell squeezed below
// eight characters; the
// keyboard reaches the section links first after the top bar, and one
// followed moves the focus's section into view.
func TestBrowserOpsPage(t *testing.T) {
	ctx := browser.New(t, 120*time.Second)
	db0 := newTestServer(t, Config{})
	var decl []watch.Declaration
	for _, s := range []string{"payments=http://127.0.0.1:1,every=5s", "checkout-service-with-a-long-name=http://127.0.0.1:1/some/prefix,every=10s"} {
		d, err := watch.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		decl = append(decl, d)
	}
	w := watcher.New(watcher.Config{Store: db0.db, Timeout: 2 * time.Second}, decl)
	t.Cleanup(w.CloseIdleConnections)
	if err := w.Declare(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, d := range decl {
		if err := w.Tick(context.Background(), d.Name, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	ts := newTestServer(t, Config{Watches: opsWatches{w, db0.db}})
	for _, width := range []int64{1400, 390} {
		px := strconv.FormatInt(width, 10)
		browser.Do(t, ctx, chromedp.EmulateViewport(width, 900))
		browser.Do(t, ctx, chromedp.Navigate(ts.URL+OpsURL), chromedp.WaitReady(`body`), chromedp.Sleep(200*time.Millisecond))
		fit := browser.Get(t, ctx, chromedp.Evaluate[pageFit](measurePageFit))
		if fit.ScrollWidth > fit.InnerWidth {
			t.Errorf("/ops at %s px is %d px wide: it scrolls sideways", px, fit.ScrollWidth)
		}
		if len(fit.Squeezed) > 0 {
			t.Errorf("/ops at %s px: table cells squeezed below eight characters:\n  %s", px, strings.Join(fit.Squeezed, "\n  "))
		}
		// Nor does a table scroll sideways inside its card.
		if wide := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("main table")).filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.dataset.testid + " " + e.scrollWidth + " > " + e.clientWidth)`)); len(wide) > 0 {
			t.Errorf("/ops at %s px: tables scroll sideways: %v", px, wide)
		}
		if n := browser.Get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-testid=ops-watch]").length`)); n != 2 {
			t.Errorf("/ops at %s px lists %d watches, want 2", px, n)
		}
		browser.Screenshot(t, ctx, "ops-"+px+".png")
	}
	// The keyboard: the links of the top bar, the one to /readyz, then the
	// sections'.
	links := browser.Get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("header.top a").length`))
	for range links + 3 {
		browser.Do(t, ctx, chromedp.KeyEvent("\t"))
	}
	if got := browser.Get(t, ctx, chromedp.Evaluate[string](`document.activeElement.getAttribute("href")`)); got != "#ops-queues" {
		t.Fatalf("the focus is on %q after the top bar's %d links and three tabs, want the second section link #ops-queues", got, links)
	}
	browser.Do(t, ctx, chromedp.KeyEvent("\r"), chromedp.Sleep(200*time.Millisecond))
	if top := browser.Get(t, ctx, chromedp.Evaluate[int](`Math.round(document.getElementById("ops-queues").getBoundingClientRect().top)`)); top < -2 || top > 100 {
		t.Errorf("the job queues' section starts at %d px after its link was followed, want at the top", top)
	}
}
