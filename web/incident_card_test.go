package web

import (
	"bytes"
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
		cfg, err := png.DecodeConfig(bytes.NewReader(body.Bytes()))
		if err != nil || cfg.Width != cardWidth || cfg.Height != cardHeight {
			t.Errorf("%s: the card is %dx%d (%v), want %dx%d", what, cfg.Width, cfg.Height, err, cardWidth, cardHeight)
		}
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
