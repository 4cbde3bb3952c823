package web

import (
	"bytes"
	"image"
	"image/png"
	"net/http"
	"testing"

	"github.com/leakui/leakui/lab"
)

// TestReportAndRunCards: every report and run page names its card as its
// og:image, and the card is a PNG of 1200×630 that draws what the report or
// run adds to an incident's timeline; the same card twice is answered 304 by
// its ETag; an unknown report's card is 404.
func TestReportAndRunCards(t *testing.T) {
	ts := labServer(t, "5ms", lab.Config{Snapshots: 4})
	f := buildIncident(t, ts)
	pages := map[string]string{"run": "/runs/" + f.run}
	for what, id := range f.reports {
		pages[what] = "/r/" + id
	}
	cards := map[string]string{}
	for what, path := range pages {
		doc := incidentDoc(t, ts, path)
		image, ok := doc.Find(`meta[property="og:image"]`).Attr("content")
		if want := ts.URL + path + "/card.png"; !ok || image != want {
			t.Errorf("%s: og:image %q, want %q", what, image, want)
			continue
		}
		resp, err := http.Get(image)
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		body.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" {
			t.Errorf("%s: the card answers %d %s", what, resp.StatusCode, resp.Header.Get("Content-Type"))
			continue
		}
		img, err := png.Decode(bytes.NewReader(body.Bytes()))
		if err != nil {
			t.Errorf("%s: the card is no PNG: %v", what, err)
			continue
		}
		// 1200×630 is the size link unfurls (Open Graph, Slack, Jira) show
		// uncropped; it is written out here rather than read from the
		// renderer so that a change of the renderer's size fails this test.
		if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 630 {
			t.Errorf("%s: the card is %dx%d, want 1200x630", what, b.Dx(), b.Dy())
		}
		if n := cardColours(img); n < 4 {
			t.Errorf("%s: the card has %d colours: it draws nothing", what, n)
		}
		if prev, ok := cards[body.String()]; ok {
			t.Errorf("%s: the card is byte for byte %s's: it does not draw what the report adds", what, prev)
		}
		cards[body.String()] = what
		etag := resp.Header.Get("ETag")
		if code, _, _ := ts.get(t, image, "If-None-Match", etag); etag == "" || code != http.StatusNotModified {
			t.Errorf("%s: the card again with If-None-Match %q answers %d, want 304", what, etag, code)
		}
	}
	if code, _, _ := ts.get(t, "/r/aaaaaaaaaaaaaaaaaaaaaaaaaa/card.png"); code != http.StatusNotFound {
		t.Errorf("an unknown report's card answers %d, want 404", code)
	}
	doc := incidentDoc(t, ts, "/")
	if _, ok := doc.Find(`meta[property="og:image"]`).Attr("content"); ok {
		t.Error("the dashboard names a card")
	}
}

// cardColours counts the distinct colours of a card, up to 64.
func cardColours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y && len(seen) < 64; y += 3 {
		for x := b.Min.X; x < b.Max.X && len(seen) < 64; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
		}
	}
	return len(seen)
}
