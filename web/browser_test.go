package web

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/analyze/pprof"

	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/internal/fixtures"
)

// TestBrowserUploadAndSwitchSampleType drives the real Chromium: upload a fixture
// through the file input, land on the report, read the top function, switch the
// sample type by click and by key.
func TestBrowserUploadAndSwitchSampleType(t *testing.T) {
	ctx := browser.New(t, 120*time.Second)
	ts := newTestServer(t, Config{})
	path := fixtures.Path(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")
	want := loadProfileBytes(t, fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz").data)
	inuse := topOf(t, want, want.DefaultSampleIndex())
	allocSI, _ := want.SampleIndex("alloc_space")
	alloc := topOf(t, want, allocSI)
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

// TestBrowserFlameGraphAndDiff opens a profile's flame graph, zooms into a frame,
// searches, and then reads the top growth row of a diff.
func TestBrowserFlameGraphAndDiff(t *testing.T) {
	ctx := browser.New(t, 90*time.Second)
	ts := newTestServer(t, Config{})
	t0 := fixture(t, "pprof", "parca-self-heap-t0-1644509272.pb.gz")
	t9 := fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")
	_, single, _ := ts.upload(t, t9)
	_, diff, _ := ts.upload(t, t0, t9)

	browser.Do(t, ctx,
		chromedp.Navigate(ts.URL+single.ReportURL),
		chromedp.Click(`[data-testid=view][data-view="flame graph"]`),
		chromedp.WaitVisible(`[data-testid=flame-breadcrumb] [data-testid=flame-crumb]`),
	)
	boxes := browser.Get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-testid=flame-box]").length`))
	if boxes < 10 {
		t.Fatalf("the flame graph drew %d boxes", boxes)
	}
	// Zoom into the first child of the root: the breadcrumb grows to two entries.
	name := browser.Get(t, ctx, chromedp.Evaluate[string](`(() => { const g = document.querySelectorAll("[data-testid=flame-box]")[1]; g.dispatchEvent(new MouseEvent("click", {bubbles: true})); return g.getAttribute("data-name"); })()`))
	crumbs := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-testid=flame-crumb]")).map(b => b.textContent)`))
	if len(crumbs) != 2 || crumbs[1] != name {
		t.Errorf("after clicking %q the breadcrumb is %v", name, crumbs)
	}
	browser.Screenshot(t, ctx, "flame.png")
	// Back to everything, then search.
	browser.Do(t, ctx,
		chromedp.Click(`[data-testid=flame-crumb]`),
		chromedp.SendKeys(`[data-testid=flame-search]`, "badger"),
		chromedp.WaitVisible(`[data-match=true]`),
	)
	matched := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-match=true]")).map(g => g.getAttribute("data-name"))`))
	for _, m := range matched {
		if !strings.Contains(m, "badger") {
			t.Errorf("highlighted %q, which does not match", m)
		}
	}
	if info := browser.Text(t, ctx, `[data-testid=flame-match]`); !strings.HasPrefix(info, "matched: ") || !strings.Contains(info, "% of the total") {
		t.Errorf("match info = %q", info)
	}
	browser.Screenshot(t, ctx, "flame-search.png")

	base, target := loadProfileBytes(t, t0.data), loadProfileBytes(t, t9.data)
	want, _ := pprof.Diff(base, target, target.DefaultSampleIndex())
	browser.Do(t, ctx,
		chromedp.Navigate(ts.URL+diff.ReportURL),
		chromedp.WaitVisible(`[data-testid=diff-table]`),
	)
	first := `[data-testid=diff-row]:first-child`
	if got := browser.Text(t, ctx, first+` [data-testid=name]`); got != want.Rows[0].Name {
		t.Errorf("top growth row %q, want %q", got, want.Rows[0].Name)
	}
	if got := browser.Attr(t, ctx, first, "data-flat"); got != strconv.FormatInt(want.Rows[0].Flat, 10) {
		t.Errorf("top growth %s, want %d", got, want.Rows[0].Flat)
	}
	browser.Screenshot(t, ctx, "diff.png")
}
