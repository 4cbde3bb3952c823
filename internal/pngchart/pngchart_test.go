package pngchart

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pngDir, when set, keeps the charts the tests draw there, to look at.
var pngDir = flag.String("pngdir", "", "write the charts the tests draw into this directory")

var start = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// incidentTimeline is six series of 1,000 points over 50 minutes, in four
// units, with three annotations: heap in use growing, goroutines growing in
// steps, untracked native memory, RSS, log errors per minute and a lab run's
// open consumers.
func incidentTimeline(width, height, points int) Timeline {
	mk := func(f func(i int) float64) []Point {
		p := make([]Point, points)
		for i := range p {
			p[i] = Point{T: start.Add(time.Duration(i) * 3 * time.Second * 1000 / time.Duration(points)), V: f(i)}
		}
		return p
	}
	n := float64(points)
	return Timeline{Width: width, Height: height,
		Series: []Series{
			{Name: "heap in use", Unit: "bytes", Points: mk(func(i int) float64 { return 200e6 + 150e6*float64(i)/n + 8e6*math.Sin(float64(i)/7) })},
			{Name: "goroutines", Unit: "count", Points: mk(func(i int) float64 { return float64(120 + 40*(i*10/points)) })},
			{Name: "untracked native memory", Unit: "bytes", Points: mk(func(i int) float64 { return 230e6 * float64(i) / n })},
			{Name: "RSS", Unit: "bytes", Points: mk(func(i int) float64 { return 600e6 + 400e6*float64(i)/n })},
			{Name: "ERROR lines per minute", Unit: "count", Points: mk(func(i int) float64 { return float64((i * 37) % 23) })},
			{Name: "consumers still open", Unit: "count", Points: mk(func(i int) float64 { return float64(i / 50) })},
		},
		Markers: []Marker{
			{T: start.Add(12 * time.Minute), Label: "deployed 2.4.1"},
			{T: start.Add(32 * time.Minute), Label: "deployed the fix"},
			{T: start.Add(45 * time.Minute), Label: "restarted broker-3"},
		},
	}
}

// decode reads a PNG back and checks its size.
func decode(t *testing.T, b []byte, w, h int) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if got := img.Bounds().Size(); got != image.Pt(w, h) {
		t.Fatalf("PNG of %v, want %d × %d", got, w, h)
	}
	return img
}

// count counts the pixels of exactly col in img, within rect.
func count(img image.Image, col color.RGBA, rect image.Rectangle) int {
	n := 0
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		for x := rect.Min.X; x < rect.Max.X; x++ {
			if color.RGBAModel.Convert(img.At(x, y)).(color.RGBA) == col {
				n++
			}
		}
	}
	return n
}

func keep(t *testing.T, name string, b []byte) {
	if *pngDir != "" {
		if err := os.WriteFile(filepath.Join(*pngDir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTimeline draws six series in their own panels, top to bottom: each
// series' colour is drawn in its own band of the image and in no other, the
// markers' grey crosses every band, the corners are white, and the same input
// gives the same bytes.
func TestTimeline(t *testing.T) {
	tl := incidentTimeline(1200, 400, 1000)
	var a, b bytes.Buffer
	if err := RenderTimeline(&a, tl); err != nil {
		t.Fatal(err)
	}
	if err := RenderTimeline(&b, tl); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the same timeline rendered twice differs")
	}
	keep(t, "timeline-1200x400.png", a.Bytes())
	img := decode(t, a.Bytes(), 1200, 400)
	white := color.RGBA{255, 255, 255, 255}
	for _, p := range []image.Point{{0, 0}, {1199, 0}, {0, 399}, {1199, 399}} {
		if got := color.RGBAModel.Convert(img.At(p.X, p.Y)); got != white {
			t.Errorf("corner %v is %v, want white", p, got)
		}
	}
	// Each series' colour lies within the vertical band of its panel: find the
	// rows where it is drawn, then check the bands are in order.
	last := -1
	for i, s := range tl.Series {
		col := palette[i]
		top, bottom, n := -1, -1, 0
		for y := 0; y < 400; y++ {
			if c := count(img, col, image.Rect(0, y, 1200, y+1)); c > 0 {
				if top < 0 {
					top = y
				}
				bottom, n = y, n+c
			}
		}
		if n < 200 {
			t.Errorf("series %q: %d pixels of its colour, want a line", s.Name, n)
			continue
		}
		if top <= last {
			t.Errorf("series %q is drawn from row %d, above the panel before it (to row %d)", s.Name, top, last)
		}
		last = bottom
	}
	// The markers cross the panels: three vertical grey dashed lines in the
	// top panel's rows and in the bottom panel's.
	for _, band := range []image.Rectangle{image.Rect(100, 2, 1200, 34), image.Rect(100, 300, 1200, 336)} {
		if got := verticalGreyLines(img, band); got != 3 {
			t.Errorf("%d vertical markers in %v, want 3", got, band)
		}
	}
}

// verticalGreyLines counts the groups of adjacent columns of band that hold
// eight or more mid-grey pixels: vertical lines such as the markers.
func verticalGreyLines(img image.Image, band image.Rectangle) int {
	groups, prev := 0, false
	for x := band.Min.X; x < band.Max.X; x++ {
		n := 0
		for y := band.Min.Y; y < band.Max.Y; y++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if c.R == c.G && c.G == c.B && c.R >= 80 && c.R <= 170 {
				n++
			}
		}
		line := n >= 8
		if line && !prev {
			groups++
		}
		prev = line
	}
	return groups
}

// TestLine draws one series over steps, and one over time.
func TestLine(t *testing.T) {
	var pts []Point
	for i := range 15 {
		pts = append(pts, Point{X: float64(i + 1), V: float64(i * i * 1e5)})
	}
	for _, tc := range []struct {
		name string
		l    Line
	}{
		{"steps", Line{Title: "heap in use over snapshots", XLabel: "snapshot", Series: Series{Name: "inuse_space", Unit: "bytes", Points: pts}, Width: 600, Height: 300}},
		{"times", Line{Title: "goroutines", Series: incidentTimeline(0, 0, 200).Series[1], Markers: incidentTimeline(0, 0, 0).Markers, Width: 800, Height: 240}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := RenderLine(&b, tc.l); err != nil {
				t.Fatal(err)
			}
			keep(t, "line-"+tc.name+".png", b.Bytes())
			img := decode(t, b.Bytes(), tc.l.Width, tc.l.Height)
			if n := count(img, palette[0], img.Bounds()); n < 100 {
				t.Errorf("%d pixels of the line's colour", n)
			}
		})
	}
}

// TestHostileCharts: sizes out of bounds and too many series are ErrInvalid;
// NaN and infinite values, a million points, endless names and a thousand
// markers draw within the bounds.
func TestHostileCharts(t *testing.T) {
	for _, tl := range []Timeline{
		{Width: 0, Height: 400},
		{Width: 1200, Height: 0},
		{Width: MaxWidth + 1, Height: 400},
		{Width: 1200, Height: MaxHeight + 1},
		{Width: -5, Height: -5},
		{Width: 1 << 30, Height: 1 << 30},
		{Width: 1200, Height: 400, Series: make([]Series, MaxSeries+1)},
	} {
		if err := RenderTimeline(&bytes.Buffer{}, tl); !errors.Is(err, ErrInvalid) {
			t.Errorf("%d × %d, %d series: %v, want ErrInvalid", tl.Width, tl.Height, len(tl.Series), err)
		}
	}
	if err := RenderLine(&bytes.Buffer{}, Line{Width: 10, Height: 10}); !errors.Is(err, ErrInvalid) {
		t.Errorf("a 10 × 10 line chart: %v, want ErrInvalid", err)
	}
	points := 1_000_000
	if race {
		points = 50_000 // still 40 times the pixel columns
	}
	huge := incidentTimeline(1200, 400, points)
	huge.Series[0].Name = strings.Repeat("\x1b[31m\u202ename\xff", 100_000)
	huge.Series[1].Points[5].V = math.NaN()
	huge.Series[1].Points[6].V = math.Inf(1)
	huge.Series[2].Points = append(huge.Series[2].Points, Point{V: 1}) // no time
	for i := range 1000 {
		huge.Markers = append(huge.Markers, Marker{T: start.Add(time.Duration(i) * time.Second), Label: strings.Repeat("note ", 1000)})
	}
	for _, tc := range []struct {
		name string
		tl   Timeline
	}{
		{"a million points and a thousand markers", huge},
		{"no series", Timeline{Width: 400, Height: 200}},
		{"only empty and invalid points", Timeline{Width: 400, Height: 200, Series: []Series{{Name: "nan", Points: []Point{{T: start, V: math.NaN()}}}, {Name: "empty"}}}},
		{"one point", Timeline{Width: 400, Height: 200, Series: []Series{{Name: "one", Unit: "bytes", Points: []Point{{T: start, V: 5}}}}}},
		{"huge values", Timeline{Width: 400, Height: 200, Series: []Series{{Name: "big", Unit: "bytes", Points: []Point{{T: start, V: -math.MaxFloat64}, {T: start.Add(time.Hour), V: math.MaxFloat64}}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := RenderTimeline(&b, tc.tl); err != nil {
				t.Fatal(err)
			}
			keep(t, "hostile-"+strings.ReplaceAll(tc.name, " ", "-")+".png", b.Bytes())
			decode(t, b.Bytes(), tc.tl.Width, tc.tl.Height)
		})
	}
}

// TestCostBoundsAllocations measures what renders allocate and checks that
// Cost, what a caller charges before rendering, covers it.
func TestCostBoundsAllocations(t *testing.T) {
	// Warm up: the fonts are parsed once per process.
	if err := RenderTimeline(&bytes.Buffer{}, incidentTimeline(400, 200, 10)); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ w, h, points int }{{1200, 400, 1000}, {2400, 1600, 1000}, {1200, 630, 100_000}, {300, 200, 10}}
	if race { // the race detector makes drawing slow: the largest image and fewer points
		cases = []struct{ w, h, points int }{{1200, 400, 1000}, {2400, 1600, 100}, {1200, 630, 10_000}, {300, 200, 10}}
	}
	for _, tc := range cases {
		tl := incidentTimeline(tc.w, tc.h, tc.points)
		var ms0, ms1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		if err := RenderTimeline(&bytes.Buffer{}, tl); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&ms1)
		got, charged := int64(ms1.TotalAlloc-ms0.TotalAlloc), tl.Cost()
		t.Logf("%d × %d, 6 × %d points: allocated %.1f MB, charged %.1f MB", tc.w, tc.h, tc.points, float64(got)/1e6, float64(charged)/1e6)
		if got > charged {
			t.Errorf("%d × %d, 6 × %d points: allocated %d bytes, more than the %d Cost charges", tc.w, tc.h, tc.points, got, charged)
		}
	}
	if Cost(1<<30, 1<<30, 100) != Cost(MaxWidth, MaxHeight, 100) {
		t.Error("Cost of a chart beyond the bounds is not the cost of the largest chart drawn")
	}
}

// BenchmarkTimeline renders the 1200 × 400 timeline of six series of 1,000
// points.
func BenchmarkTimeline(b *testing.B) {
	tl := incidentTimeline(1200, 400, 1000)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := RenderTimeline(&buf, tl); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "png-bytes")
	_ = fmt.Sprint()
}
