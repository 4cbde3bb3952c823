package web

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/internal/fixtures"
)

// TestBrowserUploadAndSwitchSampleType drives the real Chromium: upload a fixture
// through the file input, land on the report, read the top function, switch the
// sample type by click and by key.
func TestBrowserUploadAndSwitchSampleType(t *testing.T) {
	ctx := browser.New(t, 60*time.Second)
	ts := newTestServer(t, Config{})
	path := fixtures.Path(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")
	want := loadProfileBytes(t, fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz").data)
	inuse := want.Top(want.DefaultSampleIndex())
	allocSI, _ := want.SampleIndex("alloc_space")
	alloc := want.Top(allocSI)
	const first = `[data-testid=top-row]:first-child`

	browser.Do(t, ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(`[data-testid=dropzone]`),
		chromedp.SetUploadFiles(`[data-testid=file-input]`, []string{path}),
		chromedp.WaitVisible(`[data-testid=top-table]`),
	)
	if url := browser.Get(t, ctx, chromedp.Location()); !strings.Contains(url, "/r/") {
		t.Fatalf("the upload did not land on a report: %s", url)
	}
	name, flat := browser.Text(t, ctx, first+` [data-testid=name]`), browser.Attr(t, ctx, first, "data-flat")
	if name != inuse.Rows[0].Name || flat != strconv.FormatInt(inuse.Rows[0].Flat, 10) {
		t.Errorf("top row shows %s %s; want %s %d", name, flat, inuse.Rows[0].Name, inuse.Rows[0].Flat)
	}
	browser.Screenshot(t, ctx, "report.png")

	browser.Do(t, ctx,
		chromedp.Click(`[data-testid=sample-type][data-type=alloc_space]`),
		chromedp.WaitVisible(`[data-testid=sample-type][data-type=alloc_space][aria-current=page]`),
	)
	st := browser.Text(t, ctx, `[data-testid=top-sample-type]`)
	name, flat = browser.Text(t, ctx, first+` [data-testid=name]`), browser.Attr(t, ctx, first, "data-flat")
	if st != "alloc_space" || name != alloc.Rows[0].Name || flat != strconv.FormatInt(alloc.Rows[0].Flat, 10) {
		t.Errorf("after switching: %s top %s %s; want alloc_space %s %d", st, name, flat, alloc.Rows[0].Name, alloc.Rows[0].Flat)
	}

	// The keyboard shortcut 3 switches to the third sample type.
	browser.Do(t, ctx,
		chromedp.KeyEvent("3"),
		chromedp.WaitVisible(`[data-testid=sample-type][data-key="3"][aria-current=page]`),
	)
	if st := browser.Text(t, ctx, `[data-testid=top-sample-type]`); st != "inuse_objects" {
		t.Errorf("key 3 showed %s, want inuse_objects", st)
	}
}
