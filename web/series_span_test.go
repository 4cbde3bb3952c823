package web

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/pprof/profile"
)

// quickHeapProfile is a heap profile (inuse_space) taken at t, holding
// leaked bytes in main.cache and 1 MB in main.steady.
func quickHeapProfile(t *testing.T, at time.Time, leaked int64) []byte {
	t.Helper()
	var fns []*profile.Function
	var locs []*profile.Location
	var samples []*profile.Sample
	for i, c := range []struct {
		name  string
		bytes int64
	}{{"main.cache", leaked}, {"main.steady", 1 << 20}} {
		fn := &profile.Function{ID: uint64(i + 1), Name: c.name, Filename: "/src/main.go"}
		loc := &profile.Location{ID: uint64(i + 1), Address: uint64(0x1000 * (i + 1)), Line: []profile.Line{{Function: fn, Line: int64(10 * (i + 1))}}}
		fns, locs = append(fns, fn), append(locs, loc)
		samples = append(samples, &profile.Sample{Location: []*profile.Location{loc}, Value: []int64{c.bytes / 1024, c.bytes}})
	}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "inuse_objects", Unit: "count"}, {Type: "inuse_space", Unit: "bytes"}},
		PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"}, Period: 524288,
		Sample: samples, Location: locs, Function: fns, TimeNanos: at.UnixNano(),
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestQuickSeriesSaysItsSpan uploads 12 heap profiles taken 300 ms apart: the
// banner says "12 snapshots over 3.3 s", not "over 3s" or "over 0s".
func TestQuickSeriesSaysItsSpan(t *testing.T) {
	start := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	var files []file
	for i := range 12 {
		files = append(files, file{name: fmt.Sprintf("heap-%02d.pb.gz", i), data: quickHeapProfile(t, start.Add(time.Duration(i)*300*time.Millisecond), int64(i+1)<<20)})
	}
	ts := newTestServer(t, Config{})
	up := ts.mustUpload(t, nil, files...)
	pg := goroutinePage(t, ts, up.ReportURL)
	var snapshots string
	pg.Find("[data-testid=verdict-numbers] div").Each(func(_ int, s *goquery.Selection) {
		if s.Find("dt").Text() == "snapshots" {
			snapshots = s.Find("dd").Text()
		}
	})
	if snapshots != "12 snapshots over 3.3 s" {
		t.Errorf("snapshots %q, want \"12 snapshots over 3.3 s\"", snapshots)
	}
	if strings.Contains(pg.Text(), "over 0s") || strings.Contains(pg.Text(), "12 over") {
		t.Error("the page says the span in whole seconds")
	}
}
