package chart

import (
	"encoding/json"
	"math"

	"github.com/leakui/leakui/internal/linechart"
	"github.com/leakui/leakui/web/view"
)

// Chart geometry of the static SVG, in SVG units.
const (
	chartWidth  = 560
	chartHeight = 220
)

// chartData is what static/charts.js draws with uPlot: the same numbers as the
// static SVG, passed in the figure's data-chart-data attribute (no inline
// script, so the Content-Security-Policy stays as it is).
type chartData struct {
	Title  string    `json:"title"`
	Unit   string    `json:"unit"`
	XTime  bool      `json:"xtime"`
	XLabel string    `json:"xlabel"`
	X      []float64 `json:"x"`
	Times  []float64 `json:"times,omitempty"`
	// TimeMS says the readout writes Times to the millisecond.
	TimeMS bool          `json:"timems,omitempty"`
	Series []chartSeries `json:"series"`
	// YMax is the least top of the y axis (a shared scale on the compare page).
	YMax float64 `json:"ymax"`
}

type chartSeries struct {
	Key    string     `json:"key"`
	Name   string     `json:"name"`
	Class  string     `json:"cls"`
	Values []*float64 `json:"values"`
}

// View renders a chart for a page: the static SVG with axes, the data for
// uPlot, and the caption's maxima, against the x that linechart.Chart.AsDrawn
// chooses.
func View(id string, c linechart.Chart) view.Chart {
	c = c.AsDrawn()
	v := view.Chart{ID: id, Title: c.Title, Unit: c.Unit, SVG: linechart.SVG(c, chartWidth, chartHeight, false),
		YMax: linechart.FormatY(c.DataMax(), c.Unit)}
	if c.Format != nil {
		v.YMax = c.Format(c.DataMax())
	}
	xlabel := c.XLabel
	if c.XTime {
		xlabel = "time"
	} else if xlabel == "" {
		xlabel = "snapshot"
	}
	if n := len(c.X); n > 0 {
		lo, hi := c.XRange()
		if c.XTime {
			v.XMax = linechart.FormatX(c.X[0], true, hi-lo) + " to " + linechart.FormatX(c.X[n-1], true, hi-lo) + " UTC"
		} else {
			v.XMax = xlabel + " " + linechart.FormatX(c.X[n-1], false, 0)
		}
	}
	d := chartData{Title: c.Title, Unit: c.Unit, XTime: c.XTime, XLabel: xlabel, X: c.X, Times: c.Times, TimeMS: c.TimeMillis, YMax: c.YMax}
	if d.X == nil {
		d.X = []float64{}
	}
	for _, s := range c.Series {
		v.Series = append(v.Series, view.ChartSeries{Key: s.Key, Name: s.Name, Class: s.Class})
		cs := chartSeries{Key: s.Key, Name: s.Name, Class: s.Class, Values: make([]*float64, len(s.Values))}
		for i, x := range s.Values {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				cs.Values[i] = &x
			}
		}
		d.Series = append(d.Series, cs)
	}
	b, _ := json.Marshal(d)
	v.Data = string(b)
	return v
}

// Floats converts counts to chart values.
func Floats(values []int64) []float64 {
	out := make([]float64, len(values))
	for i, v := range values {
		out[i] = float64(v)
	}
	return out
}
