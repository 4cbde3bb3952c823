package linechart

import (
	"encoding/xml"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestYTicksStartAtZeroAndClearTheTop checks that the y axis starts at zero and
// ends on a round value strictly above the highest point, in the unit's steps.
func TestYTicksStartAtZeroAndClearTheTop(t *testing.T) {
	for _, tc := range []struct {
		top  float64
		unit string
		want string
	}{
		{519, "", "0 200 400 600"},
		{31, "", "0 10 20 30 40"},
		{6, "", "0 2 4 6 8"},
		{1, "", "0 1 2"},
		{137.0 * 1024 * 1024, "bytes", "0 B,50 MB,100 MB,150 MB"},
		{3 * 1024, "bytes", "0 B,1 kB,2 kB,3 kB,4 kB"},
		{0, "", "0 1"},
	} {
		ticks := YTicks(tc.top, tc.unit)
		var got []string
		for _, v := range ticks {
			got = append(got, FormatY(v, tc.unit))
		}
		sep := " "
		if tc.unit == "bytes" {
			sep = ","
		}
		if strings.Join(got, sep) != tc.want {
			t.Errorf("YTicks(%v, %q) = %q, want %q", tc.top, tc.unit, strings.Join(got, sep), tc.want)
		}
		if ticks[0] != 0 || ticks[len(ticks)-1] <= tc.top {
			t.Errorf("YTicks(%v): %v does not run from 0 to above the top", tc.top, ticks)
		}
	}
}

// TestFlatSeriesIsNotDrawnAlongTheTop draws a flat series of 6 and checks its
// points sit at the value 6 on the axis, below the plot's top edge, and that the
// axis labels carry the tick values.
func TestFlatSeriesIsNotDrawnAlongTheTop(t *testing.T) {
	c := Chart{Title: "Goroutines", X: []float64{1, 2, 3, 4}, Series: []Series{{Key: "g", Name: "goroutines", Class: "s1", Values: []float64{6, 6, 6, 6}}}}
	svg := SVG(c, 560, 220, false)
	ys := circleYs(t, svg)
	if len(ys) != 4 {
		t.Fatalf("%d markers, want 4", len(ys))
	}
	// The plot runs from y=10 (top) to y=186 (220 − 34); 6 of 0..8 is 3/4 up.
	want := 10 + 176 - 6.0/8*176
	for _, y := range ys {
		if math.Abs(y-want) > 0.1 {
			t.Errorf("flat series drawn at y=%.1f, want %.1f (value 6 on a 0..8 axis)", y, want)
		}
	}
	for _, label := range []string{">0<", ">2<", ">8<"} {
		if !strings.Contains(svg, label) {
			t.Errorf("no tick label %s in %s", label, svg)
		}
	}
}

// TestTimeAxisAndTooltips checks that wall-time x values are labelled as clock
// times and that each marker's tooltip names its value and time.
func TestTimeAxisAndTooltips(t *testing.T) {
	t0 := time.Date(2022, 2, 10, 16, 7, 52, 0, time.UTC)
	var x []float64
	for i := range 3 {
		x = append(x, float64(t0.Add(time.Duration(i)*130*time.Second).Unix()))
	}
	c := Chart{Title: "Total inuse_space", Unit: "bytes", XTime: true, X: x,
		Series: []Series{{Key: "total", Name: "inuse_space", Class: "s1", Values: []float64{46.7 * (1 << 20), 90 * (1 << 20), 137 * (1 << 20)}}}}
	svg := SVG(c, 560, 220, true)
	for _, want := range []string{">16:08<", ">16:10<", "inuse_space: 137 MB at time (UTC) 16:12:12", "time (UTC)", `xmlns="http://www.w3.org/2000/svg"`} {
		if !strings.Contains(svg, want) {
			t.Errorf("no %q in %s", want, svg)
		}
	}
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Errorf("standalone SVG is not well-formed XML: %v", err)
	}
}

// TestSVGEscapesNames checks that a hostile series name stays text.
func TestSVGEscapesNames(t *testing.T) {
	c := Chart{Title: `<script>alert(1)</script>`, X: []float64{1, 2}, Series: []Series{{Name: `"><img src=x>`, Values: []float64{1, 2}}}}
	svg := SVG(c, 560, 220, true)
	if strings.Contains(svg, "<script") || strings.Contains(svg, "<img") {
		t.Errorf("unescaped name in %s", svg)
	}
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Errorf("not well-formed: %v", err)
	}
}

// TestNegativeValuesGetAnAxisBelowZero checks a series that dips below zero.
func TestNegativeValuesGetAnAxisBelowZero(t *testing.T) {
	c := Chart{X: []float64{1, 2, 3}, Series: []Series{{Values: []float64{-3, 0, 5}}}}
	ticks := c.Ticks()
	if ticks[0] > -3 || ticks[len(ticks)-1] <= 5 {
		t.Errorf("ticks %v do not cover -3..5", ticks)
	}
}

var cyRE = regexp.MustCompile(`<circle cx="[0-9.]+" cy="([0-9.]+)"`)

func circleYs(t *testing.T, svg string) []float64 {
	t.Helper()
	var ys []float64
	for _, m := range cyRE.FindAllStringSubmatch(svg, -1) {
		y, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		ys = append(ys, y)
	}
	return ys
}

// TestStepChartTooltipsNameTheTime: a chart against steps with wall times names
// both in each marker's tooltip.
func TestStepChartTooltipsNameTheTime(t *testing.T) {
	t0 := float64(time.Date(2026, 12, 1, 12, 51, 16, 0, time.UTC).Unix())
	c := Chart{XLabel: "cycle", X: []float64{1, 2}, Times: []float64{t0, t0 + 2}, Series: []Series{{Name: "goroutines", Values: []float64{3, 8}}}}
	if svg := SVG(c, 560, 220, false); !strings.Contains(svg, "goroutines: 8 at cycle 2 (12:51:18 UTC)") {
		t.Errorf("no step and time in the tooltip: %s", svg)
	}
}

var xTickRE = regexp.MustCompile(`<text class="tick" x="[0-9.]+" y="202.0">([^<]*)</text>`)

// xAxis draws c and returns its x tick labels and its axis label.
func xAxis(t *testing.T, c Chart) ([]string, string) {
	t.Helper()
	svg := SVG(c, 560, 220, false)
	var labels []string
	for _, m := range xTickRE.FindAllStringSubmatch(svg, -1) {
		labels = append(labels, m[1])
	}
	axis := regexp.MustCompile(`<text class="axis-label"[^>]*>([^<]*)<`).FindStringSubmatch(svg)
	if axis == nil {
		t.Fatalf("no x axis label in %s", svg)
	}
	return labels, axis[1]
}

// timedChart is a wall-time chart of n points every step from 16:07:52.318 UTC.
func timedChart(n int, step time.Duration) Chart {
	t0 := time.Date(2026, 12, 2, 16, 7, 52, 318e6, time.UTC)
	c := Chart{XTime: true, Series: []Series{{Key: "total", Name: "inuse_space", Class: "s1"}}}
	for i := range n {
		c.X = append(c.X, float64(t0.Add(time.Duration(i)*step).UnixMilli())/1000)
		c.Series[0].Values = append(c.Series[0].Values, float64(i+1))
	}
	return c
}

// checkXTicks fails when the labels are more than eight or repeat one.
func checkXTicks(t *testing.T, labels []string) {
	t.Helper()
	if len(labels) < 2 || len(labels) > 8 {
		t.Errorf("%d x ticks %q, want 2 to 8", len(labels), labels)
	}
	seen := map[string]bool{}
	for _, l := range labels {
		if seen[l] {
			t.Errorf("x tick %q repeats in %q", l, labels)
		}
		seen[l] = true
	}
}

// TestQuickSnapshotsAreDrawnByNumber: 12 points 300 ms apart are drawn against
// their numbers 1…12, at most eight distinct ticks, with their times in the
// tooltips; so are points that share a time.
func TestQuickSnapshotsAreDrawnByNumber(t *testing.T) {
	c := timedChart(12, 300*time.Millisecond)
	labels, axis := xAxis(t, c)
	if axis != "snapshot" {
		t.Errorf("x axis %q, want snapshot", axis)
	}
	checkXTicks(t, labels)
	if labels[len(labels)-1] != "12" {
		t.Errorf("x ticks %q do not end at snapshot 12", labels)
	}
	svg := SVG(c, 560, 220, false)
	if !strings.Contains(svg, "at snapshot 2 (16:07:52.618 UTC)") {
		t.Errorf("no snapshot number and time in the tooltip: %s", svg)
	}
	d := c.AsDrawn()
	if d.XTime || len(d.X) != 12 || d.X[0] != 1 || d.X[11] != 12 || d.Times[11] != c.X[11] {
		t.Errorf("AsDrawn = x %v times %v, want 1…12 with the times", d.X, d.Times)
	}

	tied := timedChart(3, 10*time.Minute)
	tied.X[2] = tied.X[1]
	if _, axis := xAxis(t, tied); axis != "snapshot" {
		t.Errorf("points sharing a time: x axis %q, want snapshot", axis)
	}
}

// TestTimeTicksFollowTheSpan: a 21 s chart is drawn by number; spans of
// minutes and hours get clock-time ticks as fine as their step, at most eight,
// none repeated.
func TestTimeTicksFollowTheSpan(t *testing.T) {
	if _, axis := xAxis(t, timedChart(8, 3*time.Second)); axis != "snapshot" {
		t.Errorf("21 s span: x axis %q, want snapshot", axis)
	}
	for _, tc := range []struct {
		n       int
		step    time.Duration
		pattern string
	}{
		{8, 15 * time.Second, `^\d\d:\d\d:\d\d$`}, // 105 s: seconds
		{13, 15 * time.Minute, `^\d\d:\d\d$`},     // 3 h: minutes
		{12, 6 * time.Hour, `^[A-Z][a-z]{2} \d+ \d\d:\d\d$`},
	} {
		labels, axis := xAxis(t, timedChart(tc.n, tc.step))
		if axis != "time (UTC)" {
			t.Errorf("%d × %v: x axis %q, want time (UTC)", tc.n, tc.step, axis)
		}
		checkXTicks(t, labels)
		for _, l := range labels {
			if !regexp.MustCompile(tc.pattern).MatchString(l) {
				t.Errorf("%d × %v: tick %q does not match %s", tc.n, tc.step, l, tc.pattern)
			}
		}
	}
	// Below a second the ticks carry milliseconds (charts drawn by time directly).
	for _, x := range XTicks(100, 100.9, true) {
		if l := FormatX(x, true, 0.9); !strings.Contains(l, ".") {
			t.Errorf("sub-second tick %q has no milliseconds", l)
		}
	}
}
