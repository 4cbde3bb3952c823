package web

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/browser"
)

// TestBrowserLogReportChartAndVerdict opens the SAMZA-2785 log report (1,741
// checkpoint consumers started, 14 stopped) at 1400 and 390 px: the verdict
// banner names the 1,727 never closed inside the first 400 px, the page does not
// scroll sideways, the still-open chart has count and clock-time ticks, and a
// hover over its last bucket reads that bucket's count and time, as the report's
// JSON has them (at 1400 px, where the buckets are apart).
func TestBrowserLogReportChartAndVerdict(t *testing.T) {
	ts := newTestServer(t, Config{})
	s := buildSamzaLog()
	up := ts.mustUpload(t, map[string]string{"preset": "samza-2785"}, file{name: "samza-container.log.gz", data: logGzip(t, s.text.Bytes())})
	doc, _ := logGetJSON(t, ts, "/api/reports/"+up.ReportID)
	buckets := doc.Analysis.Report.Buckets
	last := buckets[len(buckets)-1]
	ctx := browser.New(t, 120*time.Second)
	const fig = `figure[data-chart=open-1]`
	for _, width := range []int64{1400, 390} {
		browser.Do(t, ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(ts.URL+up.ReportURL), chromedp.WaitVisible(`[data-testid=verdict-banner]`))
		if bottom := bannerBottom(t, ctx); bottom > 400 {
			t.Errorf("at %d px the verdict ends %.0f px down", width, bottom)
		}
		if state := browser.Text(t, ctx, `[data-testid=verdict-state]`); state != "1,727 never closed" {
			t.Errorf("verdict %q, want 1,727 never closed", state)
		}
		noSidewaysScroll(t, ctx, "log report")
		xs, ys := chartTicks(t, ctx, fig)
		if len(ys) < 3 || ys[0] != "0" || len(xs) < 2 || !strings.Contains(xs[0], ":") {
			t.Errorf("still-open chart ticks x %q y %q", xs, ys)
		}
		if width < 1400 {
			// Hundreds of buckets in 300 px: a pixel holds several; hover at 1400.
			shot(t, ctx, "log-390.png")
			continue
		}
		readout := hoverPoint(t, ctx, fig, len(buckets)-1)
		wantValue := analyze.FormatCount(last.Open[0])
		wantTime := last.Start.UTC().Format("15:04:05")
		if !strings.Contains(readout, wantValue) || !strings.Contains(readout, wantTime) {
			t.Errorf("hovering the last bucket reads %q; want %s at %s", readout, wantValue, wantTime)
		}
		shot(t, ctx, "log-1400.png")
	}
}
