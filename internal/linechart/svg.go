package linechart

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// colours are the series' colours by class, as presentation attributes, so the
// SVG looks the same inside a page and alone as an image.
var colours = map[string]string{"s1": "#2457d6", "s2": "#c62828", "s3": "#a15c00", "s4": "#6a1b9a"}

// maxMarkers is the most points that get a marker and a tooltip; longer series
// are drawn as a line only.
const maxMarkers = 120

// SVG draws the chart (as AsDrawn lays it out) as an <svg> element width × height units large (it scales
// to its box): y ticks from zero with labels in the unit, x ticks, the lines, a
// marker per point with its value and x as tooltip. Standalone adds the XML
// namespace, a white background, the title and a legend, for use as an image.
func SVG(c Chart, width, height int, standalone bool) string {
	c = c.AsDrawn()
	var b strings.Builder
	top := 10.0
	if standalone {
		top = 44
	}
	left, right, bottom := 66.0, 14.0, 34.0
	w, h := float64(width), float64(height)
	pw, ph := w-left-right, h-top-bottom
	ticks := c.Ticks()
	yBottom, yTop := ticks[0], ticks[len(ticks)-1]
	xlo, xhi := c.XRange()
	px := func(x float64) float64 { return left + (x-xlo)/(xhi-xlo)*pw }
	py := func(v float64) float64 { return top + ph - (v-yBottom)/(yTop-yBottom)*ph }
	esc := html.EscapeString

	if standalone {
		fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" font-family="system-ui, sans-serif" role="img" aria-label="%s">`,
			width, height, width, height, esc(c.Title))
		fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`, width, height)
		fmt.Fprintf(&b, `<text x="%.0f" y="16" font-size="13" font-weight="600" fill="#1b1f24">%s</text>`, left, esc(c.Title))
		x := left
		for _, s := range c.Series {
			fmt.Fprintf(&b, `<rect x="%.0f" y="27" width="12" height="3" fill="%s"/><text x="%.0f" y="32" font-size="11" fill="#1b1f24">%s</text>`,
				x, colour(s.Class), x+16, esc(s.Name))
			x += 16 + 6.5*float64(len([]rune(s.Name))) + 18
		}
	} else {
		fmt.Fprintf(&b, `<svg class="linechart" viewBox="0 0 %d %d" width="100%%" font-family="system-ui, sans-serif" role="img" aria-label="%s">`,
			width, height, esc(c.Title))
	}
	fmt.Fprintf(&b, `<rect class="chart-bg" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#fbfcfe"/>`, left, top, pw, ph)

	b.WriteString(`<g class="yaxis" font-size="11" fill="#57606a" text-anchor="end">`)
	for _, t := range ticks {
		y := py(t)
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#d8dee4" stroke-width="1"/>`, left, left+pw, y, y)
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f">%s</text>`, left-6, y+4, esc(FormatY(t, c.Unit)))
	}
	b.WriteString(`</g>`)

	b.WriteString(`<g class="xaxis" font-size="11" fill="#57606a" text-anchor="middle">`)
	fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#8c959f" stroke-width="1"/>`, left, left+pw, top+ph, top+ph)
	for _, t := range XTicks(xlo, xhi, c.XTime) {
		x := px(t)
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#8c959f" stroke-width="1"/>`, x, x, top+ph, top+ph+4)
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%.1f">%s</text>`, x, top+ph+16, esc(FormatX(t, c.XTime, xhi-xlo)))
	}
	fmt.Fprintf(&b, `<text class="axis-label" x="%.1f" y="%.1f">%s</text>`, left+pw/2, h-3, esc(c.xLabel()))
	b.WriteString(`</g>`)

	format := c.Format
	if format == nil {
		format = func(v float64) string { return FormatY(v, c.Unit) }
	}
	for _, s := range c.Series {
		var pts strings.Builder
		for i, v := range s.Values {
			if i >= len(c.X) || math.IsNaN(v) {
				continue
			}
			fmt.Fprintf(&pts, "%.1f,%.1f ", px(c.X[i]), py(v))
		}
		fmt.Fprintf(&b, `<polyline class="line %s" data-series="%s" points="%s" fill="none" stroke="%s" stroke-width="2" stroke-linejoin="round"/>`,
			esc(s.Class), esc(s.Key), strings.TrimSpace(pts.String()), colour(s.Class))
		if len(s.Values) > maxMarkers {
			continue
		}
		fmt.Fprintf(&b, `<g class="markers" fill="%s">`, colour(s.Class))
		for i, v := range s.Values {
			if i >= len(c.X) || math.IsNaN(v) {
				continue
			}
			at := ""
			if i < len(c.Times) && c.Times[i] > 0 {
				at = " (" + FormatAt(c.Times[i], c.TimeMillis) + " UTC)"
			}
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3"><title>%s: %s at %s %s%s</title></circle>`,
				px(c.X[i]), py(v), esc(s.Name), esc(format(v)), esc(c.xLabel()), esc(FormatX(c.X[i], c.XTime, 0)), esc(at))
		}
		b.WriteString(`</g>`)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// xLabel names the x axis.
func (c Chart) xLabel() string {
	if c.XTime {
		return "time (UTC)"
	}
	if c.XLabel == "" {
		return "snapshot"
	}
	return c.XLabel
}

func colour(class string) string {
	if c, ok := colours[class]; ok {
		return c
	}
	return colours["s1"]
}
