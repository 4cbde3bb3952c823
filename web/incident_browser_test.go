package web

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/lab"
)

// readoutValue formats a value as the timeline's readout does (static/
// incident.js): bytes in units of 1024 with one decimal, counts as numbers.
func readoutValue(v float64, unit string) string {
	if unit != "bytes" {
		return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
	}
	units := []string{"B", "kB", "MB", "GB", "TB"}
	a, i := math.Abs(v), 0
	for a >= 1024 && i < len(units)-1 {
		a /= 1024
		i++
	}
	sign := ""
	if v < 0 {
		sign = "-"
	}
	if i == 0 {
		return fmt.Sprintf("%s%d B", sign, int64(math.Round(a)))
	}
	return fmt.Sprintf("%s%.1f %s", sign, a, units[i])
}

// TestBrowserIncidentTimeline opens the incident built from real evidence in
// Chromium at 1400 and 390 px: the verdict ranks the proofs first and shows
// without scrolling, every series is a panel of its own with its own y axis
// in its unit, hovering the latest moment reads every source's last value,
// and nothing scrolls sideways. Screenshots go to docs/screenshots/.
func TestBrowserIncidentTimeline(t *testing.T) {
	ctx := browser.New(t, 180*time.Second)
	ts := labServer(t, "5ms", lab.Config{Snapshots: 4})
	f := buildIncident(t, ts)
	code, _, js := ts.get(t, "/i/"+f.slug+".json")
	var doc struct {
		Timeline struct {
			Series []struct {
				Name, Unit string
				T, V       []float64
			}
		}
	}
	if code != 200 || json.Unmarshal(js, &doc) != nil || len(doc.Timeline.Series) < 5 {
		t.Fatalf("the incident's JSON: %d %s", code, js)
	}
	series := doc.Timeline.Series
	latest := 0.0
	for _, s := range series {
		latest = math.Max(latest, s.T[len(s.T)-1])
	}
	for _, width := range []int64{1400, 390} {
		browser.Do(t, ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(ts.URL+"/i/"+f.slug),
			chromedp.WaitVisible(`[data-testid=timeline-panel] .uplot`))
		noSidewaysScroll(t, ctx, fmt.Sprintf("incident page at %d px", width))
		bottom := browser.Get(t, ctx, chromedp.Evaluate[float64](`document.querySelector("[data-testid=incident-headline]").getBoundingClientRect().bottom + window.scrollY`))
		if bottom > 900 {
			t.Errorf("at %d px the headline ends %.0f px down, below the first screen", width, bottom)
		}
		ranks := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-testid=strongest-item]")).map(e => e.dataset.strength)`))
		if len(ranks) < 4 || ranks[0] != "leak proven" || ranks[1] != "leak proven" || ranks[2] != "leak suspected" {
			t.Errorf("at %d px the strongest evidence reads %q", width, ranks)
		}
		// One panel per series, each with its own y axis labelled in its unit.
		panels := browser.Get(t, ctx, chromedp.Evaluate[[][]string](`Array.from(document.querySelectorAll("[data-testid=timeline-panel]")).map(p => [p.dataset.name, p.dataset.unit, p.dataset.yticks || "", String(p.querySelectorAll(".u-axis").length)])`))
		if len(panels) != len(series) {
			t.Fatalf("at %d px %d panels for %d series", width, len(panels), len(series))
		}
		for i, p := range panels {
			if p[0] != series[i].Name || p[1] != series[i].Unit || p[2] == "" || p[3] != "2" {
				t.Errorf("at %d px panel %d is %q, want series %q in %s with its own axes", width, i, p, series[i].Name, series[i].Unit)
			}
			ticks := strings.Split(p[2], "|")
			if p[1] == "bytes" && !strings.HasSuffix(ticks[len(ticks)-1], "B") {
				t.Errorf("at %d px the bytes panel %q has y ticks %q", width, p[0], ticks)
			}
		}
		// Hover the latest moment on the last panel: every source reads its
		// last value.
		at := browser.Get(t, ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => {
			const ps = document.querySelectorAll("[data-testid=timeline-panel]"), u = ps[ps.length - 1].uplot;
			ps[ps.length - 1].scrollIntoView({block: "center"});
			const r = u.over.getBoundingClientRect();
			return [r.left + Math.min(u.valToPos(%f, "x"), r.width - 1), r.top + r.height / 2];
		})()`, latest)))
		browser.Do(t, ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at[0], at[1]))
		readout := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-testid=readout-value]")).map(e => e.textContent)`))
		if len(readout) != len(series) {
			t.Fatalf("at %d px the readout lists %d values for %d series: %q", width, len(readout), len(series), readout)
		}
		for i, s := range series {
			want := s.Name + ": " + readoutValue(s.V[len(s.V)-1], s.Unit)
			if readout[i] != want {
				t.Errorf("at %d px hovering the latest moment reads %q, want %q", width, readout[i], want)
			}
		}
		// Hover the first annotation: the readout names it, as text.
		at = browser.Get(t, ctx, chromedp.Evaluate[[]float64](`(() => {
			const ps = document.querySelectorAll("[data-testid=timeline-panel]"), u = ps[0].uplot;
			const d = JSON.parse(document.querySelector("[data-timeline]").dataset.timeline);
			const m = d.markers.find(m => m.kind === "annotation" && m.n === 1);
			ps[0].scrollIntoView({block: "center"});
			const r = u.over.getBoundingClientRect();
			return [r.left + u.valToPos(m.t, "x"), r.top + r.height / 2];
		})()`))
		browser.Do(t, ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, at[0], at[1]))
		notes := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-testid=readout-marker]")).map(e => e.textContent)`))
		if len(notes) == 0 || !strings.HasSuffix(notes[0], hostileNote) || !strings.HasPrefix(notes[0], "note 1 (2026-12-02 10:32:00 UTC)") {
			t.Errorf("at %d px hovering the first annotation reads %q", width, notes)
		}
		if n := browser.Get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-testid=timeline-readout] script").length`)); n != 0 {
			t.Errorf("the annotation's markup became %d script elements in the readout", n)
		}
		shot(t, ctx, fmt.Sprintf("incident-%d.png", width))

		// Drag across the first panel's right half: every panel shows that
		// time; a double click shows all again.
		browser.Do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector("[data-testid=timeline-panel]").scrollIntoView({block: "center"})`), chromedp.Sleep(200*time.Millisecond))
		box := browser.Get(t, ctx, chromedp.Evaluate[[]float64](`(() => {
			const u = document.querySelector("[data-testid=timeline-panel]").uplot;
			const r = u.over.getBoundingClientRect();
			return [r.left + r.width * 0.5, r.left + r.width * 0.9, r.top + r.height / 2];
		})()`))
		browser.Do(t, ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, box[0], box[2]),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, box[0], box[2], chromedp.ButtonLeft, chromedp.ClickCount(1)),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, box[1], box[2], chromedp.ButtonLeft),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, box[1], box[2], chromedp.ButtonLeft, chromedp.ClickCount(1)))
		mins := browser.Get(t, ctx, chromedp.Evaluate[[]float64](`Array.from(document.querySelectorAll("[data-testid=timeline-panel]")).map(p => p.uplot.scales.x.min)`))
		full := browser.Get(t, ctx, chromedp.Evaluate[[]float64](`(() => { const d = JSON.parse(document.querySelector("[data-timeline]").dataset.timeline); return [Math.min(...d.series.map(s => s.t[0]))]; })()`))
		for i, m := range mins {
			if m != mins[0] || m <= full[0] {
				t.Errorf("at %d px after a drag panel %d starts at %v (first panel %v, all from %v): the panels do not zoom together", width, i, m, mins[0], full[0])
			}
		}
	}
	// The other pages the incidents touch: the list, the dashboard with the
	// open incident, a report's page with the form that attaches it.
	for _, width := range []int64{1400, 390} {
		for _, p := range []struct{ path, wait, name string }{
			{"/i", "[data-testid=incident-list]", "incidents"},
			{"/", "[data-testid=open-incidents]", "dashboard-incidents"},
			{"/r/" + f.reports["dump"], "[data-testid=attach-to-incident]", "report-attach-incident"},
		} {
			browser.Do(t, ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(ts.URL+p.path), chromedp.WaitVisible(p.wait))
			noSidewaysScroll(t, ctx, fmt.Sprintf("%s at %d px", p.path, width))
			shot(t, ctx, fmt.Sprintf("%s-%d.png", p.name, width))
		}
	}
}
