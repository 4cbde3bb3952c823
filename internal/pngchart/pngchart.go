// Package pngchart renders charts as PNG, for the places that ignore SVG:
// link unfurls (og:image), Slack, Jira and pasted images. It draws a timeline
// of several series, each in its own panel with its own y axis and unit, over
// one shared time axis, with annotations as numbered vertical markers and a
// legend; and a single-series line chart. It renders with gonum.org/v1/plot
// (vg/vgimg, its Liberation fonts) on the server, labels values as
// internal/linechart does, and bounds what it draws: the image's size (at
// most MaxWidth × MaxHeight), the series and markers, and the points, which it
// reduces to the minimum and maximum of each pixel column. Cost says what a
// render allocates, so that a caller charges its memory budget first. The same
// input renders the same bytes.
package pngchart

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"git.sr.ht/~sbinet/gg"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/leakui/leakui/internal/linechart"
)

// The bounds of a chart.
const (
	MinWidth, MinHeight = 200, 120
	MaxWidth, MaxHeight = 2400, 1600
	// MaxSeries is the most series a timeline draws (one panel each).
	MaxSeries = 8
	// MaxMarkers is the most markers a chart draws; the legend names the first
	// ones that fit and counts the others.
	MaxMarkers = 100
	// MaxNameRunes is the longest series name or marker label drawn.
	MaxNameRunes = 60
	// dpi is the resolution: a 1200 × 400 image is 12.5 × 4.2 inches.
	dpi = 96
)

// ErrInvalid is a chart that cannot be drawn: a size out of bounds, too many
// series.
var ErrInvalid = errors.New("invalid chart")

// Point is one value of a series at a time, or at a step (X) when the chart
// has no times.
type Point struct {
	T time.Time
	X float64
	V float64
}

// Series is one line: its name and unit ("bytes", "count", "nanoseconds" or
// "" as internal/linechart labels them) and its points in any order.
type Series struct {
	Name, Unit string
	Points     []Point
}

// Marker is an annotation: a vertical line at a time, numbered in the chart
// and named in the legend.
type Marker struct {
	T     time.Time
	Label string
}

// Timeline is a chart of several series over one time axis.
type Timeline struct {
	// Title is drawn above the first panel ("" for none).
	Title   string
	Series  []Series
	Markers []Marker
	// Width and Height are the PNG's size in pixels.
	Width, Height int
}

// Line is a chart of one series, over time, or over steps (the points' X)
// when its points have no times.
type Line struct {
	Title  string
	Series Series
	// XLabel names the steps when there are no times ("snapshot").
	XLabel  string
	Markers []Marker
	Width   int
	Height  int
}

// What a render allocates, measured by TestCostBoundsAllocations: the image
// (4 bytes a pixel) with the rasterizer's and the encoder's work, each point
// given (sorted once), each point kept and drawn (a pixel column keeps two of
// a series), and the fonts' and axes' fixed share.
const (
	costPerPixel     = 10
	costPerPoint     = 48
	costPerKeptPoint = 1024
	costFixed        = 4 << 20
)

// Cost is what rendering a chart of width × height pixels with points points
// (over all series) allocates at most, for a memory budget to charge before
// Render is called. A chart beyond the bounds costs what the largest drawn
// does.
func Cost(width, height, points int) int64 {
	w, h := int64(min(max(width, 0), MaxWidth)), int64(min(max(height, 0), MaxHeight))
	given := int64(max(points, 0))
	kept := min(given, int64(MaxSeries)*(2*w+2))
	return w*h*costPerPixel + given*costPerPoint + kept*costPerKeptPoint + costFixed
}

// Cost is Cost of the timeline.
func (t Timeline) Cost() int64 {
	n := 0
	for _, s := range t.Series {
		n += len(s.Points)
	}
	return Cost(t.Width, t.Height, n)
}

// Cost is Cost of the line chart.
func (l Line) Cost() int64 { return Cost(l.Width, l.Height, len(l.Series.Points)) }

// palette is the series' colours, Okabe and Ito's, told apart by people with
// any colour vision.
var palette = []color.RGBA{
	{0, 114, 178, 255},   // blue
	{213, 94, 0, 255},    // vermillion
	{0, 158, 115, 255},   // bluish green
	{204, 121, 167, 255}, // reddish purple
	{230, 159, 0, 255},   // orange
	{86, 180, 233, 255},  // sky blue
	{120, 94, 240, 255},  // violet
	{0, 0, 0, 255},       // black
}

// markerColor draws the annotations.
var markerColor = color.RGBA{110, 110, 110, 255}

func checkSize(w, h int) error {
	if w < MinWidth || w > MaxWidth || h < MinHeight || h > MaxHeight {
		return fmt.Errorf("%w: a chart is %d to %d pixels wide and %d to %d high, not %d × %d", ErrInvalid, MinWidth, MaxWidth, MinHeight, MaxHeight, w, h)
	}
	return nil
}

// RenderTimeline draws the timeline as a PNG into w: one panel per series
// with points (empty ones are left out), top to bottom in order, sharing the
// time axis at the bottom, the markers across every panel, and the legend of
// the markers under the axis. A timeline without points draws a note that
// says so.
func RenderTimeline(w io.Writer, t Timeline) error {
	if err := checkSize(t.Width, t.Height); err != nil {
		return err
	}
	if len(t.Series) > MaxSeries {
		return fmt.Errorf("%w: %d series, more than the %d a timeline draws", ErrInvalid, len(t.Series), MaxSeries)
	}
	var panels []panel
	for i, s := range t.Series {
		pts := clean(s.Points, true)
		if len(pts) == 0 {
			continue
		}
		panels = append(panels, panel{name: label(s.Name), unit: s.Unit, color: palette[i%len(palette)], points: reduce(pts, t.Width)})
	}
	return render(w, t.Width, t.Height, label(t.Title), panels, markersOf(t.Markers), true, "")
}

// RenderLine draws the line chart as a PNG into w: its title, the series over
// time (or over its steps, named by XLabel, when no point has a time), and
// the markers.
func RenderLine(w io.Writer, l Line) error {
	if err := checkSize(l.Width, l.Height); err != nil {
		return err
	}
	timed := false
	for _, p := range l.Series.Points {
		if !p.T.IsZero() {
			timed = true
			break
		}
	}
	var panels []panel
	if pts := clean(l.Series.Points, timed); len(pts) > 0 {
		panels = []panel{{name: label(l.Series.Name), unit: l.Series.Unit, color: palette[0], points: reduce(pts, l.Width)}}
	}
	var markers []Marker
	if timed {
		markers = markersOf(l.Markers)
	}
	return render(w, l.Width, l.Height, label(l.Title), panels, markers, timed, label(l.XLabel))
}

// panel is one series ready to draw.
type panel struct {
	name, unit string
	color      color.RGBA
	points     plotter.XYs
}

// clean turns points into x, y pairs sorted by x, without NaN or infinite
// values; x is the Unix time in seconds when timed, else the step.
func clean(in []Point, timed bool) plotter.XYs {
	out := make(plotter.XYs, 0, len(in))
	for _, p := range in {
		x := p.X
		if timed {
			if p.T.IsZero() {
				continue
			}
			x = float64(p.T.UnixNano()) / 1e9
		}
		if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(p.V) || math.IsInf(p.V, 0) {
			continue
		}
		out = append(out, plotter.XY{X: x, Y: p.V})
	}
	slices.SortStableFunc(out, func(a, b plotter.XY) int {
		if a.X < b.X {
			return -1
		}
		if a.X > b.X {
			return 1
		}
		return 0
	})
	return out
}

// reduce keeps at most two points per pixel column of a chart width pixels
// wide: the first and the last point, and in each column the lowest and the
// highest value in the order they came, so that the line keeps its shape.
func reduce(pts plotter.XYs, width int) plotter.XYs {
	if len(pts) <= 2*width {
		return pts
	}
	lo, hi := pts[0].X, pts[len(pts)-1].X
	out := make(plotter.XYs, 0, 2*width+2)
	out = append(out, pts[0])
	for i := 0; i < len(pts); {
		col := int(float64(width-1) * (pts[i].X - lo) / (hi - lo))
		j, minI, maxI := i, i, i
		for j < len(pts) && int(float64(width-1)*(pts[j].X-lo)/(hi-lo)) == col {
			if pts[j].Y < pts[minI].Y {
				minI = j
			}
			if pts[j].Y > pts[maxI].Y {
				maxI = j
			}
			j++
		}
		a, b := min(minI, maxI), max(minI, maxI)
		out = append(out, pts[a])
		if b != a {
			out = append(out, pts[b])
		}
		i = j
	}
	return append(out, pts[len(pts)-1])
}

// markersOf keeps the markers with a time, at most MaxMarkers, in time order.
func markersOf(in []Marker) []Marker {
	var out []Marker
	for _, m := range in {
		if !m.T.IsZero() && len(out) < MaxMarkers {
			out = append(out, Marker{T: m.T, Label: label(m.Label)})
		}
	}
	slices.SortStableFunc(out, func(a, b Marker) int { return a.T.Compare(b.T) })
	return out
}

// label makes a text drawable: valid UTF-8 on one line, without control
// characters, at most MaxNameRunes runes.
func label(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > MaxNameRunes {
		n := 0
		for i := range s {
			if n == MaxNameRunes-1 {
				return s[:i] + "…"
			}
			n++
		}
	}
	return s
}

// render draws the panels stacked over one x axis into a width × height PNG.
func render(w io.Writer, width, height int, title string, panels []panel, markers []Marker, timed bool, xLabel string) error {
	// The context draws into img itself (vgimg.UseImage would copy it), set up
	// as vgimg sets up its own: butt line caps, y upwards. The canvas paints
	// the background white.
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	ctx := gg.NewContextForRGBA(img)
	ctx.SetLineCapButt()
	ctx.InvertY()
	c := vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(dpi))
	dc := draw.New(c)
	pad := vg.Points(6)
	dc = padded(dc, pad)

	// The x range: every point and marker.
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, p := range panels {
		xmin, xmax = math.Min(xmin, p.points[0].X), math.Max(xmax, p.points[len(p.points)-1].X)
	}
	for _, m := range markers {
		x := float64(m.T.UnixNano()) / 1e9
		xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
	}
	if len(panels) == 0 {
		note := "no values to draw"
		if title != "" {
			note = title + ": " + note
		}
		drawText(dc, note, dc.Center(), draw.XCenter, -0.5, 12, color.RGBA{90, 90, 90, 255})
		return encode(w, img)
	}
	if xmax == xmin {
		xmin, xmax = xmin-30, xmax+30
	}

	// The legend of the markers under the axis: as many lines as fit in a
	// fifth of the height.
	legend := markerLegend(markers, dc.Rectangle.Size().X, vg.Points(float64(height)*72/dpi/5))
	legendH := vg.Length(len(legend)) * lineHeight
	if legendH > 0 {
		drawLegend(draw.Crop(dc, 0, 0, 0, -(dc.Rectangle.Size().Y-legendH)), legend)
		dc = draw.Crop(dc, 0, 0, legendH+vg.Points(4), 0)
	}

	panelHeight := float64(dc.Rectangle.Size().Y) * dpi / 72 / float64(len(panels))
	plots := make([][]*plot.Plot, len(panels))
	for i, pn := range panels {
		p := plot.New()
		p.BackgroundColor = color.Transparent
		p.X.Min, p.X.Max = xmin, xmax
		p.Y.Min, p.Y.Max, p.Y.Tick.Marker = yAxis(pn.points, pn.unit, panelHeight >= 100)
		p.Y.Tick.Label.Font.Size = vg.Points(8)
		p.X.Tick.Label.Font.Size = vg.Points(8)
		p.X.Tick.Marker = xTicks(timed)
		if i < len(panels)-1 {
			p.X.Tick.Label.Color = color.Transparent // only the bottom panel labels the time
		} else if !timed && xLabel != "" {
			p.X.Label.Text = xLabel
			p.X.Label.TextStyle.Font.Size = vg.Points(9)
		} else if timed {
			p.X.Label.Text = "UTC"
			p.X.Label.TextStyle.Font.Size = vg.Points(8)
		}
		if i == 0 && title != "" {
			p.Title.Text = title
			p.Title.TextStyle.Font.Size = vg.Points(11)
		}
		grid := plotter.NewGrid()
		grid.Vertical.Color, grid.Horizontal.Color = color.RGBA{235, 235, 235, 255}, color.RGBA{225, 225, 225, 255}
		grid.Vertical.Width, grid.Horizontal.Width = vg.Points(0.5), vg.Points(0.5)
		p.Add(grid)
		for n, m := range markers {
			p.Add(&markerLine{x: float64(m.T.UnixNano()) / 1e9, number: n + 1, label: i == 0})
		}
		line, err := plotter.NewLine(pn.points)
		if err != nil {
			return fmt.Errorf("%w: series %q: %v", ErrInvalid, pn.name, err)
		}
		line.Color, line.Width = pn.color, vg.Points(1.6)
		p.Add(bareLine{line})
		name := pn.name
		if pn.unit != "" {
			name += " (" + pn.unit + ")"
		}
		p.Legend.Add(name, bareLine{line})
		p.Legend.Top, p.Legend.Left = true, true
		p.Legend.TextStyle.Font.Size = vg.Points(9)
		p.Legend.XOffs, p.Legend.YOffs = vg.Points(4), vg.Points(2)
		p.Legend.Padding = vg.Points(2)
		plots[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadY: vg.Points(4)}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
	}
	return encode(w, img)
}

func encode(w io.Writer, img image.Image) error {
	enc := png.Encoder{CompressionLevel: png.DefaultCompression}
	return enc.Encode(w, img)
}

// padded is dc with a margin on every side.
func padded(dc draw.Canvas, pad vg.Length) draw.Canvas {
	return draw.Crop(dc, pad, -pad, pad, -pad)
}

// yAxis is a panel's y range and ticks: from zero (or below, for negative
// values) to a round value above the highest, ticks labelled in the series'
// unit as internal/linechart labels them (only the lowest and the highest
// in a low panel, so that they do not overlap), and room above for the
// legend.
func yAxis(pts plotter.XYs, unit string, labelAll bool) (lo, hi float64, ticker plot.Ticker) {
	for _, p := range pts {
		lo, hi = math.Min(lo, p.Y), math.Max(hi, p.Y)
	}
	if lo < 0 || hi > math.MaxFloat64/4 {
		if hi == lo {
			hi = lo + 1
		}
		return lo, hi + (hi-lo)*0.3, plot.TickerFunc(func(min, max float64) []plot.Tick {
			ticks := plot.DefaultTicks{}.Ticks(min, max)
			for i := range ticks {
				if ticks[i].Label != "" {
					ticks[i].Label = linechart.FormatY(ticks[i].Value, unit)
				}
			}
			return ticks
		})
	}
	values := linechart.YTicks(hi, unit)
	top := values[len(values)-1]
	ticks := make([]plot.Tick, len(values))
	for i, v := range values {
		ticks[i].Value = v
		if labelAll || i == 0 || i == len(values)-1 {
			ticks[i].Label = linechart.FormatY(v, unit)
		}
	}
	return 0, top * 1.3, plot.ConstantTicks(ticks)
}

// xTicks are the shared axis's ticks: round clock times in UTC, or whole
// steps, as internal/linechart chooses them.
func xTicks(timed bool) plot.Ticker {
	return plot.TickerFunc(func(min, max float64) []plot.Tick {
		var ticks []plot.Tick
		for _, x := range linechart.XTicks(min, max, timed) {
			ticks = append(ticks, plot.Tick{Value: x, Label: linechart.FormatX(x, timed, max-min)})
		}
		return ticks
	})
}

// bareLine draws a line without the glyph box of each point that
// plotter.Line gives the axes' layout (which a line does not need: its points
// are no glyphs), which would cost memory for every point.
type bareLine struct{ l *plotter.Line }

// Plot draws the line.
func (b bareLine) Plot(c draw.Canvas, p *plot.Plot) { b.l.Plot(c, p) }

// DataRange is the line's range.
func (b bareLine) DataRange() (xmin, xmax, ymin, ymax float64) { return b.l.DataRange() }

// Thumbnail draws the line's legend entry.
func (b bareLine) Thumbnail(c *draw.Canvas) { b.l.Thumbnail(c) }

// markerLine is an annotation drawn across a panel, numbered at its top in
// the first panel.
type markerLine struct {
	x      float64
	number int
	label  bool
}

// Plot draws the marker.
func (m *markerLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(m.x)
	if x < c.Min.X || x > c.Max.X {
		return
	}
	sty := draw.LineStyle{Color: markerColor, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
	c.StrokeLine2(sty, x, c.Min.Y, x, c.Max.Y)
	if m.label {
		drawText(c, fmt.Sprint(m.number), vg.Point{X: x + vg.Points(2), Y: c.Max.Y - vg.Points(2)}, draw.XLeft, -1, 8, markerColor)
	}
}

// lineHeight is one line of the markers' legend.
var lineHeight = vg.Points(11)

// markerLegend lays the markers' labels out in lines of at most width, in as
// many lines as fit in height; the last says how many did not fit.
func markerLegend(markers []Marker, width, height vg.Length) []string {
	if len(markers) == 0 {
		return nil
	}
	maxLines := max(1, int(height/lineHeight))
	sty := textStyle(8, markerColor)
	var lines []string
	cur := ""
	for i, m := range markers {
		item := fmt.Sprintf("%d  %s %s", i+1, m.T.UTC().Format("15:04"), m.Label)
		next := item
		if cur != "" {
			next = cur + "     " + item
		}
		if cur != "" && sty.Width(next) > width {
			lines = append(lines, cur)
			next = item
		}
		if len(lines) == maxLines {
			last := lines[maxLines-1]
			lines[maxLines-1] = last + fmt.Sprintf("     +%d more", len(markers)-i)
			return lines
		}
		cur = next
	}
	return append(lines, cur)
}

func drawLegend(c draw.Canvas, lines []string) {
	for i, l := range lines {
		drawText(c, l, vg.Point{X: c.Min.X, Y: c.Max.Y - vg.Length(i)*lineHeight}, draw.XLeft, -1, 8, markerColor)
	}
}

func textStyle(size float64, col color.Color) text.Style {
	return text.Style{Color: col, Font: font.From(plot.DefaultFont, vg.Points(size)), Handler: plot.DefaultTextHandler}
}

// drawText writes one line of text at p, aligned by xAlign and yAlign (0 the
// baseline's bottom, -1 hanging from p).
func drawText(c draw.Canvas, s string, p vg.Point, xAlign text.XAlignment, yAlign float64, size float64, col color.Color) {
	sty := textStyle(size, col)
	sty.XAlign, sty.YAlign = xAlign, text.YAlignment(yAlign)
	c.FillText(sty, p, s)
}
