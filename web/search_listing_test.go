package web

import (
	"bytes"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/leakui/leakui/analyze/pprof"
)

// TestSearchFindsWhatThePagesShow: the dashboard's search finds a series by its
// verdict as the page says it ("leak suspected") and never a series without
// steady growth by "leak"; a function name finds the profile whose top table
// holds it; a series is listed by what it is.
func TestSearchFindsWhatThePagesShow(t *testing.T) {
	ts := newTestServer(t, Config{UploadsPerMinute: -1})
	start := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	series := func(prefix string, grow bool) uploadResponse {
		var files []file
		for i := range 12 {
			leaked := int64(1 << 20)
			if grow {
				leaked = int64(i+1) << 20
			}
			files = append(files, file{name: fmt.Sprintf("%s-%02d.pb.gz", prefix, i), data: quickHeapProfile(t, start.Add(time.Duration(i)*time.Minute), leaked)})
		}
		return ts.mustUpload(t, nil, files...)
	}
	leaking, flat := series("heap", true), series("flat", false)
	if leaking.Verdict != "leak" || flat.Verdict == "leak" {
		t.Fatalf("verdicts %q and %q, want a leak and no leak", leaking.Verdict, flat.Verdict)
	}
	block := fixture(t, "pprof", "goprofnotes-block-net.pb.gz")
	single := ts.mustUpload(t, nil, block)

	// A function of the block profile's top table that no other report has.
	p, err := pprof.Open(pprof.Reader(bytes.NewReader(block.data)), pprof.Options{})
	if err != nil {
		t.Fatal(err)
	}
	top, err := p.Top(p.DefaultSampleIndex())
	if err != nil || len(top.Rows) < 3 {
		t.Fatalf("top: %v, %d rows", err, len(top.Rows))
	}
	function := top.Rows[2].Name

	for _, c := range []struct {
		q    string
		want []string
	}{
		{"leak suspected", []string{leaking.ReportURL}},
		{"leak", []string{leaking.ReportURL}},
		{"no steady growth", []string{flat.ReportURL}},
		{"main.cache", []string{flat.ReportURL, leaking.ReportURL}},
		{function, []string{single.ReportURL}},
	} {
		urls, _, _, _ := dashboardList(t, ts, "/?q="+url.QueryEscape(c.q))
		slices.Sort(urls)
		slices.Sort(c.want)
		if !slices.Equal(urls, c.want) {
			t.Errorf("search %q: %v, want %v", c.q, urls, c.want)
		}
	}

	// The series are listed by what they are; the single profile by its name.
	_, _, pg := ts.get(t, "/")
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(pg))
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	doc.Find("[data-testid=report-link]").Each(func(_ int, s *goquery.Selection) {
		href, _ := s.Attr("href")
		titles[href] = strings.TrimSpace(s.Text())
	})
	for u, want := range map[string]string{
		leaking.ReportURL: "12 heap snapshots · heap-00…heap-11",
		flat.ReportURL:    "12 heap snapshots · flat-00…flat-11",
		single.ReportURL:  block.name,
	} {
		if titles[u] != want {
			t.Errorf("%s is listed as %q, want %q", u, titles[u], want)
		}
	}
}
