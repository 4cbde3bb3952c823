package chart

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/internal/linechart"
	"github.com/leakui/leakui/internal/spark"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// Series formats a series analysis. moveURL, when set, makes the links that
// move snapshot i (in analysis order) one place earlier or later.
func Series(id string, rep *series.Report, compact bool, moveURL func(order []int) string) view.SeriesView {
	v := view.SeriesView{
		ID: id, Verdict: string(rep.Verdict), VerdictText: rep.VerdictText, Reason: rep.Reason,
		SampleType: rep.SampleType, By: rep.By, Compact: compact, Warnings: rep.Warnings,
	}
	v.VerdictClass = SeriesClass(rep.Verdict)
	v.Chart = Totals(id, rep)
	order := make([]int, len(rep.Snapshots))
	for i, sn := range rep.Snapshots {
		order[i] = sn.Index
	}
	for i, sn := range rep.Snapshots {
		s := view.SeriesSnap{Label: sn.Name, Total: analyze.FormatValue(sn.Total, rep.Unit)}
		if !sn.Time.IsZero() {
			s.Time = page.FormatTime(sn.Time)
		}
		if moveURL != nil && i > 0 {
			s.Up = moveURL(swapped(order, i, i-1))
		}
		if moveURL != nil && i < len(order)-1 {
			s.Down = moveURL(swapped(order, i, i+1))
		}
		v.Snapshots = append(v.Snapshots, s)
	}
	rows := func(list []series.Suspect, n int) []view.SeriesRow {
		var out []view.SeriesRow
		for i, s := range list {
			if i == n {
				break
			}
			out = append(out, SeriesRow(s, rep.Unit))
		}
		return out
	}
	limit := 50
	if compact {
		limit = 5
	}
	v.Suspects, v.Growers, v.Shrinkers = rows(rep.Suspects, limit), rows(rep.Growers, limit), rows(rep.Shrinkers, limit)
	return v
}

func swapped(order []int, i, j int) []int {
	out := append([]int(nil), order...)
	out[i], out[j] = out[j], out[i]
	return out
}

// SeriesRow formats one series.
func SeriesRow(s series.Suspect, unit string) view.SeriesRow {
	r := view.SeriesRow{
		Name: s.Name, First: analyze.FormatValue(s.First, unit), Last: analyze.FormatValue(s.Last, unit),
		Growth: analyze.FormatSignedValue(s.Growth, unit), Slope: SignedFloat(s.Slope, unit),
		Steps: fmt.Sprintf("%d of %d", s.GrewSteps, s.Steps), R2: fmt.Sprintf("%.2f", s.R2),
		Confidence: fmt.Sprintf("%.0f%%", s.Confidence*100), Why: s.Why, Spark: Sparkline(s.Values), Growing: s.Growth > 0,
		StacksOmitted: s.StacksOmitted,
	}
	if s.GrowthRatio != nil {
		r.GrowthPct = fmt.Sprintf("(%+.0f%%)", *s.GrowthRatio*100)
	}
	if s.SlopePerMinute != nil {
		r.PerMinute = SignedFloat(*s.SlopePerMinute, unit)
	}
	for _, st := range s.Stacks {
		r.Stacks = append(r.Stacks, view.SeriesStackRow{Frames: st.Frames, Growth: analyze.FormatSignedValue(st.Growth, unit), Spark: Sparkline(st.Values), Passed: st.Passed})
	}
	return r
}

// SignedFloat formats a slope with its unit and sign.
func SignedFloat(v float64, unit string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	if unit == "bytes" || unit == "nanoseconds" {
		return analyze.FormatSignedValue(int64(math.Round(v)), unit)
	}
	s := strconv.FormatFloat(v, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	if v > 0 {
		return "+" + s
	}
	return s
}

// Sparkline draws values in a 100×20 box.
func Sparkline(values []int64) string { return spark.Points(values, 100, 20) }

// Totals draws the totals over the snapshots: against their wall time when
// every snapshot has one, they span a minute and no two share a time, else
// against their numbers (linechart.Chart.AsDrawn).
func Totals(id string, rep *series.Report) view.Chart {
	return View("totals-"+id, TotalsLine(rep))
}

// TotalsLine is the data of a series' totals chart.
func TotalsLine(rep *series.Report) linechart.Chart {
	c := linechart.Chart{Title: "Total " + rep.SampleType, Unit: rep.Unit, XLabel: "snapshot",
		Format: func(v float64) string { return analyze.FormatValue(int64(v), rep.Unit) }}
	timed := len(rep.Snapshots) == len(rep.Totals)
	for _, sn := range rep.Snapshots {
		timed = timed && !sn.Time.IsZero()
	}
	for i := range rep.Totals {
		if timed {
			c.X = append(c.X, float64(rep.Snapshots[i].Time.UnixMilli())/1000)
		} else {
			c.X = append(c.X, float64(i+1))
		}
	}
	c.XTime = timed
	c.Series = []linechart.Series{{Key: "total", Name: rep.SampleType, Class: "s1", Values: Floats(rep.Totals)}}
	return c
}
