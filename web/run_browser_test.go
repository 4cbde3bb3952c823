package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/lab"
)

// noSidewaysScroll checks that the page in the tab is no wider than the window.
func noSidewaysScroll(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	scroll := browser.Get(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	inner := browser.Get(t, ctx, chromedp.Evaluate[int](`window.innerWidth`))
	if scroll > inner {
		t.Errorf("%s: the page is %d px wide in a %d px window: it scrolls sideways", what, scroll, inner)
	}
}

// TestBrowserRunAndCompare runs a leaky and a fixed SAMZA-2785 reproduction (the
// test binary as workload) and opens their pages at 1400 and 390 px: the verdict
// banner is inside the first 400 px, the goroutine chart has tick labels and a
// hover over its last point reads the goroutines, the cycle and its time, the run page
// offers "Compare with…", and the compare page lists the differences before the
// charts and draws both goroutine charts on one y maximum.
func TestBrowserRunAndCompare(t *testing.T) {
	ts := labServer(t, "5ms", lab.Config{Snapshots: 4})
	ids := map[string]string{}
	for _, variant := range []string{"leaky", "pr1674"} {
		code, out := postJSON(t, ts.URL+"/api/runs", `{"workload":"checkpoint","variant":"`+variant+`","mode":"active","cycles":30,"tasks":1}`)
		if code != http.StatusAccepted {
			t.Fatalf("POST %s: %d %v", variant, code, out)
		}
		r := waitRun(t, ts, out["id"])
		if r.Status != lab.StatusDone {
			t.Fatalf("%s run: %+v", variant, r)
		}
		ids[variant] = r.ID
	}
	leaky := waitRun(t, ts, ids["leaky"])
	ctx := browser.New(t, 120*time.Second)
	const fig = `figure[data-chart=goroutines]`
	for _, width := range []int64{1400, 390} {
		browser.Do(t, ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(ts.URL+"/runs/"+ids["leaky"]), chromedp.WaitVisible(`[data-testid=verdict-banner]`))
		if bottom := bannerBottom(t, ctx); bottom > 400 {
			t.Errorf("run page at %d px: the verdict ends %.0f px down", width, bottom)
		}
		noSidewaysScroll(t, ctx, "run page")
		xs, ys := chartTicks(t, ctx, fig)
		if len(xs) < 2 || len(ys) < 3 || ys[0] != "0" {
			t.Errorf("goroutine chart ticks x %q y %q", xs, ys)
		}
		pts := leaky.Progress.Points
		last := pts[len(pts)-1]
		readout := hoverPoint(t, ctx, fig, len(pts)-1)
		at := time.UnixMilli(last.At).UTC().Format("15:04:05")
		if !strings.Contains(readout, "goroutines "+strconv.FormatInt(last.Goroutines, 10)) || !strings.HasPrefix(readout, "cycle "+strconv.FormatInt(last.Step, 10)+" ("+at+" UTC):") {
			t.Errorf("hovering the last point reads %q; want goroutines %d at cycle %d, %s UTC", readout, last.Goroutines, last.Step, at)
		}
		shot(t, ctx, "run-"+strconv.FormatInt(width, 10)+".png")
	}
	if n := browser.Get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-testid=compare-with-run] option").length`)); n != 1 {
		t.Errorf("Compare with… offers %d runs, want the other 1", n)
	}

	compare := ts.URL + "/runs/compare?a=" + ids["leaky"] + "&b=" + ids["pr1674"]
	for _, width := range []int64{1400, 390} {
		browser.Do(t, ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(compare), chromedp.WaitVisible(`[data-testid=compare-diffs]`))
		noSidewaysScroll(t, ctx, "compare page")
		browser.Do(t, ctx, chromedp.WaitVisible(`[data-testid=compare-chart-goroutines] figure.js-chart .uplot`))
		scales := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-testid=compare-chart-goroutines] figure")).map(f => f.getAttribute("data-ymax-scale"))`))
		if len(scales) != 2 || scales[0] == "" || scales[0] != scales[1] {
			t.Errorf("compare at %d px: the goroutine charts' y maxima %q differ", width, scales)
		}
		order := browser.Get(t, ctx, chromedp.Evaluate[bool](`document.querySelector("[data-testid=compare-diffs]").getBoundingClientRect().top < document.querySelector("[data-testid=compare-charts]").getBoundingClientRect().top`))
		if !order {
			t.Errorf("compare at %d px: the differences are not above the charts", width)
		}
		shot(t, ctx, "compare-"+strconv.FormatInt(width, 10)+".png")
	}
	verdicts := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-testid=compare-diff][data-key=verdict] td")).map(e => e.textContent)`))
	if len(verdicts) < 2 || verdicts[0] != "leak" || verdicts[1] != "no leak" {
		t.Errorf("compare verdict row %q", verdicts)
	}
}
