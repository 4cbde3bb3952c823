package heapdumps_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/internal/javatest"
	"github.com/leakui/leakui/web"
	"github.com/leakui/leakui/web/heapdumps"
	"github.com/leakui/leakui/web/internal/webtest"
)

// TestBrowserHeapDumpViewsFit opens, in the real Chromium at 1400 and 390
// px, the report page of two real dumps taken with -all (the SAMZA-2785
// shape, its tree grouped by class; a JVM holding direct buffers and
// unclosed zlib streams, its native memory section on the report page) and
// each of the views the report links to: no page scrolls sideways, no table
// cell is squeezed below eight characters, and the headline starts within the
// first 400 px. Its screenshots are docs/screenshots/heapdump-*.png
// (LEAKUI_SCREENSHOTS).
func TestBrowserHeapDumpViewsFit(t *testing.T) {
	ctx := browser.New(t, 240*time.Second)
	ts := newTestServer(t, web.Config{UploadsPerMinute: -1})
	jh := javatest.RunAll(t, "../../analyze/hprof/testdata/LeakShape.java", false, []string{"-XX:+UseSerialGC", "-Xmx128m"}, "30", "65536", "100", "10")
	data, err := os.ReadFile(jh.Dump)
	if err != nil {
		t.Fatal(err)
	}
	leak := ts.MustUploadHeapDump(t, webtest.File{Name: "samza-2785-consumers.hprof", Data: data})
	mapped := filepath.Join(t.TempDir(), "mapped.bin")
	nh := javatest.RunAll(t, "../../analyze/hprof/testdata/NativeHolders.java", false,
		[]string{"-Xms256m", "-Xmx256m", "-Xmn200m", "-XX:+AlwaysPreTouch", "-XX:+UseSerialGC", "-XX:MaxDirectMemorySize=256m"},
		"2000", "20", "4", mapped)
	if data, err = os.ReadFile(nh.Dump); err != nil {
		t.Fatal(err)
	}
	native := ts.MustUploadHeapDump(t, webtest.File{Name: "native-holders.hprof", Data: data})

	var sum struct {
		Analysis struct {
			Suspects []struct {
				Accumulation struct {
					Ordinal uint32 `json:"ordinal"`
				} `json:"accumulation"`
			} `json:"suspects"`
		} `json:"analysis"`
	}
	ts.GetJSON(t, "/api/reports/"+leak.ReportID, &sum)
	if len(sum.Analysis.Suspects) == 0 {
		t.Fatal("no suspect")
	}
	id := leak.ReportID
	pages := []struct{ name, path string }{
		{"heapdump", "/r/" + id},
		{"heapdump-native", "/r/" + native.ReportID},
		{"heapdump-native-view", heapdumps.ViewURL(native.ReportID, "native")},
		{"heapdump-by-loader", heapdumps.ViewURL(id, "by-loader")},
		{"heapdump-unreachable", heapdumps.ViewURL(id, "unreachable")},
		{"heapdump-duplicate-classes", heapdumps.ViewURL(native.ReportID, "duplicate-classes")},
		{"heapdump-path", heapdumps.ObjectPathURL(id, sum.Analysis.Suspects[0].Accumulation.Ordinal)},
	}
	for _, width := range []int64{1400, 390} {
		w := strconv.FormatInt(width, 10)
		browser.Do(t, ctx, chromedp.EmulateViewport(width, 900))
		for _, pg := range pages {
			browser.Do(t, ctx, chromedp.Navigate(ts.URL+pg.path), chromedp.WaitReady(`body`), chromedp.Sleep(300*time.Millisecond))
			fit := browser.Get(t, ctx, chromedp.Evaluate[webtest.PageFit](webtest.MeasurePageFit))
			if fit.ScrollWidth > fit.InnerWidth {
				t.Errorf("%s at %s px: the page is %d px wide: it scrolls sideways", pg.name, w, fit.ScrollWidth)
			}
			if len(fit.Squeezed) > 0 {
				t.Errorf("%s at %s px: table cells squeezed below eight characters:\n  %s", pg.name, w, strings.Join(fit.Squeezed, "\n  "))
			}
			if fit.VerdictTop < 0 || fit.VerdictTop > 400 {
				t.Errorf("%s at %s px: the headline starts at %d px, not within the first 400", pg.name, w, fit.VerdictTop)
			}
			browser.Screenshot(t, ctx, pg.name+"-"+w+".png")
		}
	}
}
