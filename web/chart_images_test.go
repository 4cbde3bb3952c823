package web

import (
	"bytes"
	"encoding/xml"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/web/page"
)

var markdownImage = regexp.MustCompile(`!\[([^\]]*)\]\((https?://[^/)]+)(/[^)]+)\)`)

// checkSVG fetches a chart image and checks it is a well-formed SVG with the
// given texts.
func checkSVG(t *testing.T, ts *testServer, path string, texts ...string) []byte {
	t.Helper()
	code, ct, body := ts.get(t, path)
	if code != http.StatusOK || ct != "image/svg+xml; charset=utf-8" {
		t.Fatalf("GET %s: %d %s %s", path, code, ct, body)
	}
	if err := xml.Unmarshal(body, new(struct{})); err != nil {
		t.Errorf("%s is not well-formed: %v", path, err)
	}
	for _, want := range texts {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("%s lacks %q", path, want)
		}
	}
	return body
}

// TestSeriesChartImageInMarkdown: the Markdown summary of the Parca series embeds
// its totals chart by a stable URL, which serves an SVG with the axes (snapshot
// numbers: the series spans 27 s) and every snapshot's total and time as a
// marker; an unknown chart is 404.
func TestSeriesChartImageInMarkdown(t *testing.T) {
	ts := newTestServer(t, Config{})
	up := ts.mustUpload(t, nil, parcaSeries(t)...)
	_, _, md := ts.get(t, page.ReportURL(up.ReportID)+".md")
	m := markdownImage.FindSubmatch(md)
	if m == nil || strings.ReplaceAll(string(m[1]), `\`, "") != "Total inuse_space" || !strings.HasPrefix(string(m[3]), "/r/"+up.ReportID+"/charts/totals.svg") {
		t.Fatalf("no totals image in the Markdown:\n%s", md)
	}
	svg := checkSVG(t, ts, string(m[3]), "150 MB", ">snapshot<", "inuse_space: 137.0 MB at snapshot 3 (16:08:19.337 UTC)", "inuse_space: 46.7 MB at snapshot 1 (16:07:52.337 UTC)")
	if n := bytes.Count(svg, []byte("<circle")); n != 3 {
		t.Errorf("%d markers, want 3", n)
	}
	if code, _, _ := ts.get(t, "/r/"+up.ReportID+"/charts/nope.svg"); code != http.StatusNotFound {
		t.Errorf("unknown chart: %d", code)
	}
	single := ts.mustUpload(t, nil, parcaSeries(t)[0])
	if code, _, _ := ts.get(t, "/r/"+single.ReportID+"/charts/totals.svg"); code != http.StatusNotFound {
		t.Errorf("a single profile's totals chart: %d, want 404", code)
	}
}

// TestRunChartImages: a run's Markdown summary embeds its three charts, each
// served as an SVG with one marker per point, by run and by report.
func TestRunChartImages(t *testing.T) {
	ts := labServer(t, "1ms", lab.Config{Snapshots: 3})
	code, out := postJSON(t, ts.URL+"/api/runs", `{"workload":"checkpoint","variant":"leaky","mode":"active","cycles":6,"tasks":1}`)
	if code != http.StatusAccepted {
		t.Fatal(code, out)
	}
	r := waitRun(t, ts, out["id"])
	_, _, md := ts.get(t, r.ReportURL+".md")
	images := markdownImage.FindAllSubmatch(md, -1)
	if len(images) != 3 {
		t.Fatalf("%d images in the run's Markdown, want 3:\n%s", len(images), md)
	}
	svg := checkSVG(t, ts, string(images[0][3]), "Goroutines", "cycle")
	if n := bytes.Count(svg, []byte("<circle")); n != len(r.Progress.Points) {
		t.Errorf("goroutines chart: %d markers for %d points", n, len(r.Progress.Points))
	}
	checkSVG(t, ts, r.ReportURL+"/charts/memory.svg", "RSS", "Go heap in use")
	if code, _, _ := ts.get(t, "/runs/"+r.ID+"/charts/nope.svg"); code != http.StatusNotFound {
		t.Errorf("unknown run chart: %d", code)
	}
	if code, _, _ := ts.get(t, "/runs/nope/charts/goroutines.svg"); code != http.StatusNotFound {
		t.Errorf("unknown run: %d", code)
	}
}
