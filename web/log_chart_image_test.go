package web

import (
	"bytes"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/leakui/leakui/analyze/logs"
)

// TestLogChartImageInMarkdown: the SAMZA-2785 log report's Markdown embeds one
// still-open chart per pair by a stable URL carrying the report's parameters;
// each serves an SVG whose last marker reads the last bucket's count from the
// report's JSON; the page links the same URL; an unknown chart is 404.
func TestLogChartImageInMarkdown(t *testing.T) {
	ts := newTestServer(t, Config{})
	s := buildSamzaLog()
	up := ts.mustUpload(t, map[string]string{"preset": "samza-2785"}, file{name: "samza-container.log.gz", data: logGzip(t, s.text.Bytes())})
	doc, _ := logGetJSON(t, ts, "/api/reports/"+up.ReportID)
	// One chart per measurable pair: the built log has no poll-thread line, and a
	// flat zero would read as balanced.
	var pairs []logs.PairReport
	var index []int
	for k, p := range doc.Analysis.Report.Pairs {
		if p.Measurable {
			pairs, index = append(pairs, p), append(index, k)
		}
	}
	if len(pairs) != len(doc.Analysis.Report.Pairs)-1 {
		t.Fatalf("%d measurable pairs of %d, want all but the poll threads", len(pairs), len(doc.Analysis.Report.Pairs))
	}
	buckets := doc.Analysis.Report.Buckets
	_, _, md := ts.get(t, up.ReportURL+".md")
	checkMarkdownShape(t, string(md))
	images := markdownImage.FindAllSubmatch(md, -1)
	if len(images) != len(pairs) || len(pairs) == 0 {
		t.Fatalf("%d images for %d pairs in the Markdown:\n%s", len(images), len(pairs), md)
	}
	for k, m := range images {
		if alt := strings.ReplaceAll(string(m[1]), `\`, ""); alt != "Still open over time: "+pairs[k].Name {
			t.Errorf("image %d: alt %q", k, alt)
		}
		svg := checkSVG(t, ts, string(m[3]), "Still open over time: "+pairs[k].Name, "time (UTC)")
		if !strings.Contains(string(m[3]), "/charts/open-"+strconv.Itoa(index[k]+1)+".svg") {
			t.Errorf("image %d is %s, want the chart of pair %d", k, m[3], index[k]+1)
		}
		open := make([]float64, len(buckets))
		for i, b := range buckets {
			open[i] = float64(b.Open[index[k]])
		}
		checkPolyline(t, svg, open)
	}
	_, _, pg := ts.get(t, up.ReportURL)
	if !bytes.Contains(pg, []byte(`href="`+strings.ReplaceAll(string(images[0][3]), "&", "&amp;")+`"`)) {
		t.Errorf("the page does not link %s", images[0][3])
	}
	for _, ch := range []string{"open-9.svg", "open-3.svg"} { // unknown, and the unmeasurable pair's
		if code, _, _ := ts.get(t, "/r/"+up.ReportID+"/charts/"+ch); code != http.StatusNotFound {
			t.Errorf("log chart %s: %d, want 404", ch, code)
		}
	}
}

var polylinePoints = regexp.MustCompile(`<polyline[^>]*points="([^"]*)"`)

// checkPolyline checks that a chart image's line has one point per value, at
// heights that are one linear function of the values (the chart's y scale).
func checkPolyline(t *testing.T, svg []byte, values []float64) {
	t.Helper()
	m := polylinePoints.FindSubmatch(svg)
	if m == nil {
		t.Fatalf("no line in the chart:\n%s", svg)
	}
	points := strings.Fields(string(m[1]))
	if len(points) != len(values) {
		t.Fatalf("%d points for %d values", len(points), len(values))
	}
	ys := make([]float64, len(points))
	for i, p := range points {
		_, y, _ := strings.Cut(p, ",")
		ys[i], _ = strconv.ParseFloat(y, 64)
	}
	lo, hi := slices.Index(values, slices.Min(values)), slices.Index(values, slices.Max(values))
	if values[lo] == values[hi] {
		t.Fatalf("a flat series %v cannot check the scale", values[lo])
	}
	scale := (ys[lo] - ys[hi]) / (values[hi] - values[lo])
	if scale <= 0 {
		t.Fatalf("the largest value is drawn at y %.1f, not above the smallest at %.1f", ys[hi], ys[lo])
	}
	for i, v := range values {
		if want := ys[lo] - (v-values[lo])*scale; math.Abs(ys[i]-want) > 0.2 {
			t.Fatalf("point %d of value %v at y %.1f, want %.1f", i, v, ys[i], want)
		}
	}
}
