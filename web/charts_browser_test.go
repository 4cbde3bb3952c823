package web

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/web/page"
)

// parcaSeries are the three heap profiles of one Parca process (testdata/pprof).
func parcaSeries(t *testing.T) []file {
	return []file{fixture(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz"), fixture(t, "pprof", "parca-self-heap-t6-1644509290.pb.gz"),
		fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")}
}

// chartTicks reads the tick labels uPlot drew on a chart (static/charts.js keeps
// them on the figure).
func chartTicks(t *testing.T, ctx context.Context, fig string) (x, y []string) {
	t.Helper()
	browser.Do(t, ctx, chromedp.WaitVisible(fig+`.js-chart .uplot`))
	xs := browser.Attr(t, ctx, fig, "data-xticks")
	ys := browser.Attr(t, ctx, fig, "data-yticks")
	return strings.Split(xs, "|"), strings.Split(ys, "|")
}

// hoverPoint moves the mouse over point i of a uPlot chart's first series and
// returns the readout's text.
func hoverPoint(t *testing.T, ctx context.Context, fig string, i int) string {
	t.Helper()
	at := browser.Get(t, ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => {
		const f = document.querySelector(%q), u = f.uplot;
		f.scrollIntoView({block: "center"});
		const r = u.over.getBoundingClientRect();
		const x = Math.min(Math.max(u.valToPos(u.data[0][%d], "x"), 1), r.width - 1);
		return [r.left + x, r.top + u.valToPos(u.data[1][%d], "y")];
	})()`, fig, i, i)))
	browser.Do(t, ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at[0], at[1]))
	return browser.Text(t, ctx, fig+` [data-testid=chart-readout]`)
}

// TestBrowserSeriesChart opens the three-snapshot Parca series and checks its
// totals chart: y tick labels in bytes from zero, x ticks as clock times, and a
// hover over the last snapshot reading its total and its time, the numbers the
// series analysis gives.
func TestBrowserSeriesChart(t *testing.T) {
	ctx := browser.New(t, 120*time.Second)
	ts := newTestServer(t, Config{})
	files := parcaSeries(t)
	up := ts.mustUpload(t, nil, files...)
	var snaps []pprof.Snapshot
	for _, f := range files {
		snaps = append(snaps, pprof.Snapshot{Name: f.name, Profile: loadProfileBytes(t, f.data)})
	}
	rep, err := pprof.Series(snaps, series.Options{})
	if err != nil {
		t.Fatal(err)
	}
	last := rep.Snapshots[len(rep.Snapshots)-1]

	browser.Do(t, ctx, chromedp.EmulateViewport(1400, 1000), chromedp.Navigate(ts.URL+page.ReportURL(up.ReportID)))
	const fig = `figure[data-chart^="totals-"]`
	xs, ys := chartTicks(t, ctx, fig)
	if len(ys) < 3 || ys[0] != "0 B" || !strings.HasSuffix(ys[len(ys)-1], "MB") {
		t.Errorf("y ticks %q: want bytes from 0 B up to MB", ys)
	}
	if len(xs) < 2 || !strings.Contains(xs[0], ":") {
		t.Errorf("x ticks %q: want clock times", xs)
	}
	readout := hoverPoint(t, ctx, fig, 2)
	wantValue := analyze.FormatValue(last.Total, rep.Unit)
	wantTime := last.Time.UTC().Format("15:04:05")
	if !strings.Contains(readout, wantValue) || !strings.Contains(readout, wantTime) {
		t.Errorf("hovering the last snapshot reads %q; want its total %s and time %s", readout, wantValue, wantTime)
	}
	shot(t, ctx, "series-1400.png")
}

// bannerBottom is how far down the page the first line of the verdict banner
// (its state badge, or the first line of its sentence) ends, in CSS pixels (1e9
// without a banner).
func bannerBottom(t *testing.T, ctx context.Context) float64 {
	t.Helper()
	return browser.Get(t, ctx, chromedp.Evaluate[float64](`(() => {
		const e = document.querySelector("[data-testid=verdict-banner] .badge, [data-testid=verdict-banner] .verdict-line > *");
		const r = e && e.getClientRects()[0];
		return r ? r.bottom + window.scrollY : 1e9;
	})()`))
}

// shot scrolls back to the top (sticky table headers otherwise land mid-page in
// a full-page screenshot) and takes the screenshot.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	browser.Do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	browser.Screenshot(t, ctx, name)
}
