package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/internal/browser"
)

// TestBrowserTemplateToPair drives the real Chromium over a Kafka broker log
// uploaded without patterns: the "pair start" button of one template and the
// "pair close" button of another fill the form's pair row, Count counts the
// pair, and its starts and closes equal the two templates' counts. At 390 px
// the page does not scroll sideways. Both widths are screenshot.
func TestBrowserTemplateToPair(t *testing.T) {
	ctx := browser.New(t, 90*time.Second)
	ts := newTestServer(t, Config{})
	name := "kafka-2.1.1-broker-server.log.2020-02-14-00"
	up := ts.mustUpload(t, nil, fixture(t, "logs", name))
	doc, _ := logGetPage(t, ts, up.ReportURL)
	find := func(text string) (int, string) {
		idx, count := -1, ""
		doc.Find("[data-testid=log-template]").EachWithBreak(func(i int, s *goquery.Selection) bool {
			if strings.Contains(s.Find("[data-testid=template-text]").Text(), text) {
				idx, count = i+1, s.AttrOr("data-count", "")
				return false
			}
			return true
		})
		if idx < 0 {
			t.Fatalf("no template with %q", text)
		}
		return idx, count
	}
	start, starts := find("Scheduling loading of offsets")
	closing, closes := find("Finished loading offsets")

	browser.Do(t, ctx,
		chromedp.EmulateViewport(1400, 1000),
		chromedp.Navigate(ts.URL+up.ReportURL),
		chromedp.WaitVisible(`[data-testid=level-timeline]`),
	)
	browser.Screenshot(t, ctx, "log-overview.png")
	browser.Do(t, ctx,
		chromedp.Click(fmt.Sprintf(`[data-testid=log-template]:nth-child(%d) [data-testid=template-start]`, start)),
		chromedp.Click(fmt.Sprintf(`[data-testid=log-template]:nth-child(%d) [data-testid=template-close]`, closing)),
	)
	pair := browser.Get(t, ctx, chromedp.Value(`[data-testid=log-pair-input]`))
	if !strings.HasPrefix(pair, fmt.Sprintf("t%d=^", start)) || !strings.Contains(pair, "Scheduling loading") || !strings.Contains(pair, ",^") {
		t.Fatalf("the pair field holds %q", pair)
	}
	browser.Do(t, ctx,
		chromedp.Click(`[data-testid=log-count]`),
		chromedp.WaitVisible(`[data-testid=log-pair]`),
	)
	if got := browser.Attr(t, ctx, `[data-testid=log-pair]`, "data-starts"); got != starts {
		t.Errorf("the pair started %s times; the start template counts %s", got, starts)
	}
	if got := browser.Attr(t, ctx, `[data-testid=log-pair]`, "data-closes"); got != closes {
		t.Errorf("the pair closed %s times; the close template counts %s", got, closes)
	}

	browser.Do(t, ctx,
		chromedp.EmulateViewport(390, 900),
		chromedp.Navigate(ts.URL+up.ReportURL),
		chromedp.WaitVisible(`[data-testid=log-levels]`),
	)
	widths := browser.Get(t, ctx, chromedp.Evaluate[[]int](`[window.innerWidth, document.documentElement.scrollWidth]`))
	if len(widths) != 2 || widths[0] != 390 || widths[1] > widths[0] {
		t.Errorf("at 390 px the page is %v wide (inner, scroll)", widths)
	}
	browser.Screenshot(t, ctx, "log-overview-narrow.png")
}
