package web

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/leakui/leakui/internal/browser"
)

// logTroubleFit is what TestBrowserLogTroubleFirst measures of a log page.
type logTroubleFit struct {
	ScrollWidth, InnerWidth, InnerHeight int
	// SectionTop and FirstRowBottom place the errors and warnings section and
	// its first template; Ticks counts the chart's axis labels.
	SectionTop, FirstRowBottom, Ticks int
}

const measureLogTrouble = `(() => {
	const r = s => { const e = document.querySelector(s); return e ? e.getBoundingClientRect() : {top: -1, bottom: 1e9}; };
	return {ScrollWidth: document.documentElement.scrollWidth, InnerWidth: window.innerWidth, InnerHeight: window.innerHeight,
		SectionTop: Math.round(r("[data-testid=log-trouble]").top), FirstRowBottom: Math.round(r("[data-testid=trouble]").bottom),
		Ticks: document.querySelectorAll("[data-testid=level-timeline] [data-testid=timeline-xtick], [data-testid=level-timeline] [data-testid=timeline-ytick]").length};
})()`

// TestBrowserLogTroubleFirst opens the loghub Zookeeper log's report in the
// real Chromium at 1400 and 390 px: the page does not scroll sideways, and
// the errors and warnings section with its first template is inside the
// first viewport, before any scrolling; the chart of lines by level has its
// axis labels. From the keyboard alone, Tab reaches a level card and Enter
// filters the page to its level, the card then marked aria-current. Both
// widths are screenshot (docs/screenshots/log-trouble-*.png).
func TestBrowserLogTroubleFirst(t *testing.T) {
	ctx := browser.New(t, 120*time.Second)
	ts := newTestServer(t, Config{})
	up := ts.mustUpload(t, nil, fixture(t, "logs", "loghub-Zookeeper_2k.log"))
	for _, width := range []int64{1400, 390} {
		w := strconv.FormatInt(width, 10)
		browser.Do(t, ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(ts.URL+up.ReportURL), chromedp.WaitVisible(`[data-testid=log-trouble]`))
		fit := browser.Get(t, ctx, chromedp.Evaluate[logTroubleFit](measureLogTrouble))
		if fit.ScrollWidth > fit.InnerWidth {
			t.Errorf("at %s px the page is %d px wide: it scrolls sideways", w, fit.ScrollWidth)
		}
		if fit.SectionTop < 0 || fit.FirstRowBottom > fit.InnerHeight {
			t.Errorf("at %s px the errors and warnings start at %d px and their first template ends at %d px, below the %d px viewport",
				w, fit.SectionTop, fit.FirstRowBottom, fit.InnerHeight)
		}
		if fit.Ticks < 5 {
			t.Errorf("at %s px the chart has %d axis labels", w, fit.Ticks)
		}
		shot(t, ctx, "log-trouble-"+w+".png")
	}

	// Keyboard only: Tab to the first level card, Enter.
	browser.Do(t, ctx, chromedp.EmulateViewport(1400, 900), chromedp.Navigate(ts.URL+up.ReportURL), chromedp.WaitVisible(`[data-testid=log-trouble]`))
	level := ""
	for range 40 {
		browser.Do(t, ctx, chromedp.KeyEvent(kb.Tab))
		level = browser.Get(t, ctx, chromedp.Evaluate[string](`document.activeElement.dataset.testid == "level" ? document.activeElement.dataset.level : ""`))
		if level != "" {
			break
		}
	}
	if level == "" {
		t.Fatal("40 presses of Tab never reach a level card")
	}
	browser.Do(t, ctx, chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(`[data-testid=level][aria-current=page]`))
	if got := browser.Attr(t, ctx, `[data-testid=level][aria-current=page]`, "data-level"); got != level {
		t.Errorf("Enter on the %s card made %s current", level, got)
	}
	if got := browser.Attr(t, ctx, `[data-testid=log-trouble]`, "data-filter"); got != level {
		t.Errorf("the page is filtered to %q, want %s", got, level)
	}
}
