package web

import (
	"bytes"
	"encoding/xml"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/leakui/leakui/internal/hostile"
	"github.com/leakui/leakui/web/page"
)

// flameImage is the part of a flame graph image the tests read.
type flameImage struct {
	Caption string `xml:"text"`
	Boxes   []struct {
		Name  string `xml:"data-name,attr"`
		Title string `xml:"title"`
		Label string `xml:"text"`
	} `xml:"g>g"`
}

// readFlameImage fetches a flame graph image from the URL a Markdown summary
// embeds and decodes it as XML.
func readFlameImage(t *testing.T, ts *testServer, md []byte, alt string) (flameImage, []byte) {
	t.Helper()
	var path string
	for _, m := range markdownImage.FindAllSubmatch(md, -1) {
		if strings.ReplaceAll(string(m[1]), `\`, "") == alt {
			path = string(m[3])
		}
	}
	if path == "" {
		t.Fatalf("no image %q in the Markdown:\n%s", alt, md)
	}
	svg := checkSVG(t, ts, path)
	var img flameImage
	if err := xml.Unmarshal(svg, &img); err != nil {
		t.Fatal(err)
	}
	return img, svg
}

// TestFlameImageInMarkdown: a single profile's Markdown embeds its flame graph by
// a stable URL that serves an SVG whose root box is the profile's total and whose
// boxes carry hostile function names as text only; the page's filter reaches the
// image; a diff embeds its diff flame graph; a series has none (404).
func TestFlameImageInMarkdown(t *testing.T) {
	ts := newTestServer(t, Config{})
	up := ts.mustUpload(t, nil, file{"hostile.pb.gz", hostile.Gzip(hostile.HostileNamesProfile())})
	_, _, md := ts.get(t, up.ReportURL+".md")
	img, svg := readFlameImage(t, ts, md, "Flame graph of inuse_space")
	if !strings.HasPrefix(img.Caption, "Flame graph of hostile.pb.gz") {
		t.Errorf("caption %q", img.Caption)
	}
	p := loadProfileBytes(t, hostile.Gzip(hostile.HostileNamesProfile()))
	total := topOf(t, p, p.DefaultSampleIndex()).Total
	if len(img.Boxes) == 0 || img.Boxes[0].Name != "root" || !strings.Contains(img.Boxes[0].Title, "(100% of the total)") {
		t.Fatalf("first box %+v (total %d)", img.Boxes, total)
	}
	names := map[string]bool{}
	for _, b := range img.Boxes {
		names[b.Name] = true
	}
	for _, name := range hostile.HostileNames {
		want := page.Display(name)
		if !names[want] {
			t.Errorf("no box named %q in %v", want, names)
		}
	}
	if bytes.Contains(svg, []byte("<script")) || bytes.Contains(svg, []byte("<img")) {
		t.Errorf("markup from a function name reached the image:\n%s", svg)
	}

	// A focus filter in the page's URL reaches the Markdown's image and the
	// flame view's "SVG image" link.
	_, _, md = ts.get(t, up.ReportURL+".md?f=onerror")
	focused, _ := readFlameImage(t, ts, md, "Flame graph of inuse_space")
	_, _, pg := ts.get(t, up.ReportURL+"?view=flame&f=onerror")
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(pg))
	if err != nil {
		t.Fatal(err)
	}
	if href := doc.Find(`[data-testid="link-SVG image"]`).AttrOr("href", ""); href == "" || !strings.Contains(string(md), href+")") {
		t.Errorf("the flame view links the image %q; the Markdown embeds:\n%s", href, md)
	}
	if len(focused.Boxes) >= len(img.Boxes) {
		t.Errorf("f=onerror: %d boxes, unfiltered %d", len(focused.Boxes), len(img.Boxes))
	}

	t0 := fixture(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz")
	t9 := fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")
	diff := ts.mustUpload(t, nil, t0, t9)
	_, _, md = ts.get(t, diff.ReportURL+".md")
	dimg, _ := readFlameImage(t, ts, md, "Diff flame graph of inuse_space")
	if !strings.Contains(dimg.Caption, t0.name+" → "+t9.name) || len(dimg.Boxes) < 2 || !strings.Contains(dimg.Boxes[0].Title, "base ") {
		t.Errorf("diff image: caption %q, %d boxes", dimg.Caption, len(dimg.Boxes))
	}

	series := ts.mustUpload(t, nil, parcaSeries(t)...)
	if code, _, _ := ts.get(t, "/r/"+series.ReportID+"/flame.svg"); code != http.StatusNotFound {
		t.Errorf("a series' flame image: %d, want 404", code)
	}
	if code, _, _ := ts.get(t, "/r/"+series.ReportID+"/flame.svg?mode=profile&file=0"); code != http.StatusOK {
		t.Errorf("a series file's flame image: %d, want 200", code)
	}
}

// BenchmarkFlameImage serves the erigon heap profile's flame graph as an SVG
// image (the flame graph cached after the first request, as the flame view's),
// beside the flame view's page, which draws the same static picture.
func BenchmarkFlameImage(b *testing.B) {
	srv, up := benchServer(b, fixture(b, "pprof", "erigon-integration-heap.pb.gz"))
	b.Run("image", func(b *testing.B) { serveBench(b, srv, "/r/"+up.ReportID+"/flame.svg", nil) })
	b.Run("flame-page", func(b *testing.B) { serveBench(b, srv, up.ReportURL+"?view=flame", nil) })
}
