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

// TestBrowserSeriesChart opens the three-snapshot Parca series (27 s) and
// checks its totals chart: y tick labels in bytes from zero, x ticks as
// snapshot numbers (the span is under a minute), and a hover over the last
// snapshot reading its total and its time, the numbers the series analysis
// gives.
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
	if strings.Join(xs, " ") != "1 2 3" {
		t.Errorf("x ticks %q: want the snapshot numbers 1 2 3", xs)
	}
	readout := hoverPoint(t, ctx, fig, 2)
	wantValue := analyze.FormatValue(last.Total, rep.Unit)
	wantTime := last.Time.UTC().Format("15:04:05")
	if !strings.Contains(readout, wantValue) || !strings.Contains(readout, wantTime) {
		t.Errorf("hovering the last snapshot reads %q; want its total %s and time %s", readout, wantValue, wantTime)
	}
	shot(t, ctx, "series-1400.png")
}

// TestBrowserQuickSeriesAxis opens a series of 12 snapshots 318 ms apart and one
// of 13 snapshots 15 minutes apart at 1400 and 390 px: the quick one's uPlot x
// axis is the snapshot number with at most eight distinct ticks, the long one's
// is clock times in minutes, at most eight, none repeated, as in the static SVG.
func TestBrowserQuickSeriesAxis(t *testing.T) {
	ctx := browser.New(t, 120*time.Second)
	ts := newTestServer(t, Config{})
	start := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	upload := func(n int, step time.Duration) string {
		var files []file
		for i := range n {
			files = append(files, file{name: fmt.Sprintf("heap-%02d.pb.gz", i), data: quickHeapProfile(t, start.Add(time.Duration(i)*step), int64(i+1)<<20)})
		}
		return page.ReportURL(ts.mustUpload(t, nil, files...).ReportID)
	}
	quick, long := upload(12, 318*time.Millisecond), upload(13, 15*time.Minute)
	const fig = `figure[data-chart^="totals-"]`
	for _, width := range []int64{1400, 390} {
		for _, tc := range []struct {
			url, name, axis, first, last string
		}{
			{quick, "quick", "snapshot", "", "12"},
			{long, "long", "time (UTC)", "01:00", "04:00"},
		} {
			browser.Do(t, ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(ts.URL+tc.url))
			xs, _ := chartTicks(t, ctx, fig)
			if len(xs) < 2 || len(xs) > 8 {
				t.Errorf("%s at %d px: %d x ticks %q, want 2 to 8", tc.name, width, len(xs), xs)
			}
			seen := map[string]bool{}
			for _, x := range xs {
				if seen[x] {
					t.Errorf("%s at %d px: x tick %q repeats in %q", tc.name, width, x, xs)
				}
				seen[x] = true
			}
			if (tc.first != "" && xs[0] != tc.first) || xs[len(xs)-1] != tc.last {
				t.Errorf("%s at %d px: x ticks %q, want %q…%q", tc.name, width, xs, tc.first, tc.last)
			}
			// uPlot draws its axis label on the canvas; its options keep it.
			label := browser.Get(t, ctx, chromedp.Evaluate[string](`document.querySelector('`+fig+`').uplot.axes[0].label`))
			if label != tc.axis {
				t.Errorf("%s at %d px: x axis %q, want %q", tc.name, width, label, tc.axis)
			}
			svgTicks := browser.Get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('`+fig+` svg.linechart .xaxis .tick')].map(e => e.textContent)`))
			if strings.Join(svgTicks, "|") != strings.Join(xs, "|") {
				t.Errorf("%s at %d px: static SVG ticks %q, uPlot %q", tc.name, width, svgTicks, xs)
			}
			if tc.name == "quick" {
				if r := hoverPoint(t, ctx, fig, 1); !strings.Contains(r, "snapshot 2 (01:00:00.318 UTC)") {
					t.Errorf("quick at %d px: hovering snapshot 2 reads %q", width, r)
				}
			}
			shot(t, ctx, fmt.Sprintf("series-%s-%d.png", tc.name, width))
		}
	}
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
