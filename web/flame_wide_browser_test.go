package web

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/web/page"
)

// TestBrowserFlameGraphFullWidth opens a heap profile's flame graph at 1400
// px beside its top table, switches it to the page's width with the key "w"
// (the layout lives in the URL), and back with "w": wide, the graph is at
// least 1.5 times as wide, its labels keep more names whole, the verdict
// banner stays above it and nothing scrolls sideways. Every label, in both
// layouts and at 390 px, is what pprof's flame graph draws for the frame: the
// first of its display names that fits, or the last cut from the left.
func TestBrowserFlameGraphFullWidth(t *testing.T) {
	ctx := browser.New(t, 120*time.Second)
	ts := newTestServer(t, Config{})
	heap := page.ReportURL(ts.mustUpload(t, nil, fixture(t, "pprof", "erigon-integration-heap.pb.gz")).ReportID)
	const drawn = `[data-testid=flame].interactive [data-testid=flame-svg]`

	browser.Do(t, ctx, chromedp.EmulateViewport(1400, 900), chromedp.Navigate(ts.URL+heap+"?view=flame"), chromedp.WaitVisible(drawn))
	split := flameWidthAndWholeLabels(t, ctx, "beside the table")
	browser.Do(t, ctx, chromedp.KeyEvent("w"), chromedp.WaitVisible(`[data-testid=top-flame-wide] `+drawn))
	if url := browser.Get(t, ctx, chromedp.Location()); !strings.Contains(url, "layout=wide") {
		t.Errorf("after w the page is %s", url)
	}
	wide := flameWidthAndWholeLabels(t, ctx, "full width")
	t.Logf("beside the table: %d px, %d labels whole; full width: %d px, %d whole", split[0], split[1], wide[0], wide[1])
	if wide[0] < 1100 || wide[0] < split[0]*3/2 || wide[1] <= split[1] {
		t.Errorf("full width: %d px, %d labels whole; beside the table: %d px, %d whole", wide[0], wide[1], split[0], split[1])
	}
	above := browser.Get(t, ctx, chromedp.Evaluate[bool](`document.querySelector("[data-testid=verdict-banner]").getBoundingClientRect().bottom <= document.querySelector("[data-testid=flame]").getBoundingClientRect().top`))
	if !above {
		t.Error("the verdict banner is not above the wide flame graph")
	}
	noSidewaysScroll(t, ctx, "wide flame graph at 1400 px")
	if got := browser.Text(t, ctx, `[data-testid=flame-layout]`); !strings.HasPrefix(got, "beside the table") {
		t.Errorf("the wide layout's link reads %q", got)
	}
	browser.Screenshot(t, ctx, "profile-flame-wide-1400.png")

	browser.Do(t, ctx, chromedp.EmulateViewport(390, 900), chromedp.Reload(), chromedp.WaitVisible(drawn))
	flameWidthAndWholeLabels(t, ctx, "full width at 390 px")
	noSidewaysScroll(t, ctx, "wide flame graph at 390 px")
	browser.Screenshot(t, ctx, "profile-flame-wide-390.png")

	browser.Do(t, ctx, chromedp.EmulateViewport(1400, 900), chromedp.KeyEvent("w"), chromedp.WaitVisible(`[data-testid=top-flame-split] `+drawn))
	if url := browser.Get(t, ctx, chromedp.Location()); strings.Contains(url, "layout=") {
		t.Errorf("after w again the page is %s", url)
	}
}

// flameWidthAndWholeLabels checks every label of the drawn flame graph against
// pprof's display names of its frame and returns the graph's width in pixels
// and how many labels are a display name whole.
func flameWidthAndWholeLabels(t *testing.T, ctx context.Context, what string) [2]int {
	t.Helper()
	boxes := browser.Get(t, ctx, chromedp.Evaluate[[][2]string](`Array.from(document.querySelectorAll("[data-testid=flame].interactive [data-testid=flame-box]")).filter(g => g.querySelector("text")).map(g => [g.getAttribute("data-name"), g.querySelector("text").textContent])`))
	whole := 0
	for _, b := range boxes {
		names := pprof.DisplayNames(b[0])
		switch {
		case slices.Contains(names, b[1]):
			whole++
		case b[1] == "" || (strings.HasPrefix(b[1], "…") && strings.HasSuffix(names[len(names)-1], strings.TrimPrefix(b[1], "…"))):
		default:
			t.Errorf("%s: %q is labelled %q; pprof tries %q", what, b[0], b[1], names)
		}
	}
	width := browser.Get(t, ctx, chromedp.Evaluate[int](`Math.round(document.querySelector("[data-testid=flame].interactive [data-testid=flame-svg]").getBoundingClientRect().width)`))
	if len(boxes) < 20 || whole < 10 {
		t.Errorf("%s: %d labels, %d of them whole", what, len(boxes), whole)
	}
	return [2]int{width, whole}
}
