// Package linechart lays out and draws leakui's line charts as static SVG: a y
// axis from zero with tick labels in the values' unit (bytes as pprof prints them,
// counts), an x axis of wall time or of snapshot or step numbers, a line and a
// point marker per value with its value and time as the marker's tooltip. A
// wall-time chart that spans under a minute, or whose points share a time, is
// drawn against the points' numbers (Chart.AsDrawn); time ticks are at most
// seven, labelled as finely as they are apart (ms, s, min, date). Pages
// show the SVG to readers without JavaScript (static/charts.js draws the same data
// with uPlot), and the Markdown summaries embed it as an image. Standard library
// only.
package linechart

import (
	"math"
	"time"
)

// Series is one line of a chart.
type Series struct {
	// Key names the figure (goroutines, heap_inuse, total…); Name is its legend;
	// Class is its colour class (s1…s4).
	Key, Name, Class string
	// Values has one value per X; NaN is a gap.
	Values []float64
}

// Chart is the data of one chart.
type Chart struct {
	Title string
	// Unit of the values: "bytes", "nanoseconds" or "" for plain counts.
	Unit string
	// XTime says X holds Unix seconds; otherwise X holds numbers (snapshot or
	// step), named by XLabel.
	XTime  bool
	XLabel string
	X      []float64
	// Times, when set, holds each X's wall time in Unix seconds (0: unknown), for
	// charts whose x is a step number: tooltips and hover readouts name it too.
	Times []float64
	// TimeMillis says tooltips write Times to the millisecond: AsDrawn sets it
	// on the charts it draws by number because their times are close.
	TimeMillis bool
	Series     []Series
	// YMax, when above zero, is the least top of the y axis: charts compared side
	// by side share it.
	YMax float64
	// Format writes a value for a point's tooltip (FormatY when nil).
	Format func(v float64) string `json:"-"`
}

// DataMax is the largest value of any series (0 when there is none).
func (c Chart) DataMax() float64 {
	m := 0.0
	for _, s := range c.Series {
		for _, v := range s.Values {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				m = max(m, v)
			}
		}
	}
	return m
}

// DataMin is the smallest value of any series, or 0 when every value is above
// zero: the y axis starts at zero.
func (c Chart) DataMin() float64 {
	m := 0.0
	for _, s := range c.Series {
		for _, v := range s.Values {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				m = min(m, v)
			}
		}
	}
	return m
}

// Ticks are the chart's y ticks: from zero (or a round value below a negative
// minimum) to a round value above every point and at least YMax, so a flat series
// is drawn at its value, below the top edge, not along it.
func (c Chart) Ticks() []float64 {
	ticks := YTicks(max(c.DataMax(), c.YMax)-c.DataMin(), c.Unit)
	if lo := c.DataMin(); lo < 0 {
		step := ticks[1] - ticks[0]
		shift := math.Floor(lo/step) * step
		for i := range ticks {
			ticks[i] += shift
		}
		for ticks[len(ticks)-1] <= max(c.DataMax(), c.YMax) {
			ticks = append(ticks, ticks[len(ticks)-1]+step)
		}
	}
	return ticks
}

// XRange is the first and last X (0, 1 when there is none).
func (c Chart) XRange() (lo, hi float64) {
	if len(c.X) == 0 {
		return 0, 1
	}
	lo, hi = c.X[0], c.X[0]
	for _, x := range c.X {
		lo, hi = min(lo, x), max(hi, x)
	}
	if hi == lo {
		if c.XTime {
			return lo - 30, hi + 30
		}
		return lo - 1, hi + 1
	}
	return lo, hi
}

// YTicks are the y axis's ticks from zero to a round value strictly above top
// (top ≤ 0 gives 0 and 1): steps of 1, 2 or 5 times a power of ten in the unit
// the labels use (for bytes, of 1024), four to six of them.
func YTicks(top float64, unit string) []float64 {
	if !(top > 0) || math.IsInf(top, 0) {
		return []float64{0, 1}
	}
	scale := 1.0
	if unit == "bytes" {
		for top/scale >= 1024 && scale < 1<<60 {
			scale *= 1024
		}
	}
	step := niceStep(top/scale/4) * scale
	if unit != "bytes" && unit != "nanoseconds" {
		step = max(step, 1) // counts are whole
	}
	n := math.Floor(top/step) + 1 // strictly above top: headroom over the highest point
	ticks := make([]float64, 0, int(n)+1)
	for i := 0.0; i <= n; i++ {
		ticks = append(ticks, i*step)
	}
	return ticks
}

// niceStep rounds v up to 1, 2 or 5 times a power of ten.
func niceStep(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// MinTimeSpan is the shortest span, in seconds, drawn against wall time: a
// shorter one, or one where two points share a time, is drawn against the
// points' numbers (1…N), whose times stay in the tooltips.
const MinTimeSpan = 60

// AsDrawn is the chart as it is drawn: a wall-time chart that spans less than
// MinTimeSpan, or whose points share a time, becomes a chart against the points'
// numbers 1…N (named by XLabel, "snapshot" when empty) with the times in Times,
// so points taken quickly stay apart and the axis never repeats a clock time.
func (c Chart) AsDrawn() Chart {
	if !c.XTime || len(c.X) == 0 {
		return c
	}
	lo, hi := c.X[0], c.X[0]
	seen := make(map[float64]bool, len(c.X))
	tie := false
	for _, x := range c.X {
		lo, hi = min(lo, x), max(hi, x)
		tie = tie || seen[x]
		seen[x] = true
	}
	if hi-lo >= MinTimeSpan && !tie {
		return c
	}
	n := c
	n.XTime, n.TimeMillis = false, true
	if n.XLabel == "" {
		n.XLabel = "snapshot"
	}
	n.Times = append([]float64(nil), c.X...)
	n.X = make([]float64, len(c.X))
	for i := range n.X {
		n.X[i] = float64(i + 1)
	}
	return n
}

// XTicks are the x axis's ticks between lo and hi, at most seven: whole numbers
// for snapshots and steps, round clock times (down to a millisecond) for wall
// time.
func XTicks(lo, hi float64, isTime bool) []float64 {
	if hi <= lo {
		return []float64{lo}
	}
	var step float64
	if isTime {
		step = timeStep((hi - lo) / 5)
	} else {
		step = max(niceStep((hi-lo)/6), 1)
	}
	var ticks []float64
	for i := math.Ceil(lo/step - 1e-9); i*step <= hi+step*1e-9; i++ {
		ticks = append(ticks, i*step)
	}
	return ticks
}

// timeSteps are the round intervals of a time axis, in seconds.
var timeSteps = []float64{0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 2 * 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400}

func timeStep(v float64) float64 {
	for _, s := range timeSteps {
		if s >= v {
			return s
		}
	}
	return niceStep(v/86400) * 86400
}

// FormatX labels an x tick: a clock time in UTC as fine as the ticks of a span
// that long are apart (milliseconds, seconds, minutes, and the date from a span
// of a day), so no two ticks read the same; or a whole number. A span of zero
// gives seconds (tooltips; FormatAt writes milliseconds).
func FormatX(x float64, isTime bool, span float64) string {
	if !isTime {
		return formatPlain(x)
	}
	ms := math.Floor(x*1000 + 0.5) // to the millisecond, truncated below it as the pages print times
	t := time.UnixMilli(int64(ms)).UTC()
	if span <= 0 {
		return t.Format("15:04:05")
	}
	step := timeStep(span / 5)
	switch {
	case step < 1:
		return t.Format("15:04:05.000")
	case step < 60:
		return t.Format("15:04:05")
	case step < 86400 && span < 86400:
		return t.Format("15:04")
	}
	return t.Format("Jan 2 15:04")
}

// FormatAt writes a point's wall time (Unix seconds) for its tooltip: a UTC
// clock time in seconds, or to the millisecond when millis is set.
func FormatAt(x float64, millis bool) string {
	if millis {
		return FormatX(x, true, 0.001)
	}
	return FormatX(x, true, 0)
}
