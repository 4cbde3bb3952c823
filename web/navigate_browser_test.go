package web

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/analyze/pprof"
	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/web/page"
)

// TestBrowserFlameGraphNavigation drives the flame graph as an SRE would: boxes
// are labelled as pprof labels them, "/" searches the frames, the zoom and the
// search survive a reload, a clicked function opens its sandwich with the cum of
// the top table, and the table beside the flame graph sorts by cum.
func TestBrowserFlameGraphNavigation(t *testing.T) {
	ctx := browser.New(t, 150*time.Second)
	ts := newTestServer(t, Config{})
	heap := fixture(t, "pprof", "parca-self-heap-t9-1644509299.pb.gz")
	up := ts.mustUpload(t, nil, heap)
	p := loadProfileBytes(t, heap.data)
	cums := map[string]int64{}
	for _, r := range topOf(t, p, p.DefaultSampleIndex()).Rows {
		cums[r.Name] = r.Cum
	}
	flameURL := ts.URL + page.ReportURL(up.ReportID) + "?view=flame"
	browser.Do(t, ctx, chromedp.EmulateViewport(1400, 1000),
		chromedp.Navigate(flameURL),
		chromedp.WaitVisible(`[data-testid=flame-breadcrumb] [data-testid=flame-crumb]`),
	)
	browser.Screenshot(t, ctx, "navigate-flame-1400.png")

	// Every label is what pprof's flame graph draws for the frame: the first of
	// its display names that fits, else the last cut from the left, which keeps
	// the end of the function's own name.
	labels := browser.Get(t, ctx, chromedp.Evaluate[[][2]string](`Array.from(document.querySelectorAll("[data-flame-svg] [data-testid=flame-box]")).filter(g => g.querySelector("text")).map(g => [g.getAttribute("data-name"), g.querySelector("text").textContent])`))
	cut := 0
	for _, l := range labels {
		name, label := l[0], l[1]
		names := pprof.DisplayNames(name)
		if label == names[0] {
			continue
		}
		cut++
		if !slices.Contains(names, label) && (!strings.HasPrefix(label, "…") || !strings.HasSuffix(names[len(names)-1], strings.TrimPrefix(label, "…"))) {
			t.Errorf("box %q is labelled %q; pprof tries %q", name, label, names)
		}
	}
	if cut == 0 {
		t.Errorf("no label was shortened among %d boxes; the test needs narrow boxes", len(labels))
	}

	// "/" goes to the flame search, not to the pprof focus field above it.
	browser.Do(t, ctx, chromedp.KeyEvent("/"))
	if id := browser.Get(t, ctx, chromedp.Evaluate[string](`document.activeElement.getAttribute("data-testid") || ""`)); id != "flame-search" {
		t.Errorf(`"/" focused %q, want the flame search`, id)
	}
	// (The key's character reaches the field through the DevTools protocol even
	// though the page cancels its keydown, which a person's keyboard does not do.)
	browser.Get(t, ctx, chromedp.Evaluate[string](`document.querySelector("[data-testid=flame-search]").value = ""`))
	browser.Do(t, ctx, chromedp.SendKeys(`[data-testid=flame-search]`, "skl"), chromedp.WaitVisible(`[data-testid=flame-selected] [data-testid=flame-sandwich]`))

	// Zoom into the largest child of the root; the URL keeps zoom and search.
	name := browser.Get(t, ctx, chromedp.Evaluate[string](`(() => { const g = document.querySelectorAll("[data-flame-svg] [data-testid=flame-box]")[1]; g.dispatchEvent(new MouseEvent("click", {bubbles: true})); return g.getAttribute("data-name"); })()`))
	loc := browser.Get(t, ctx, chromedp.Location())
	if !strings.Contains(loc, "zoom=") || !strings.Contains(loc, "search=skl") {
		t.Errorf("after zoom and search the URL is %s", loc)
	}
	browser.Do(t, ctx, chromedp.Reload(), chromedp.WaitVisible(`[data-testid=flame-crumb]`))
	crumbs := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-testid=flame-crumb]")).map(b => b.textContent)`))
	search := browser.Get(t, ctx, chromedp.Evaluate[string](`document.querySelector("[data-testid=flame-search]").value`))
	if len(crumbs) != 2 || crumbs[1] != name || search != "skl" {
		t.Errorf("after a reload: breadcrumb %v, search %q; want [all %s] and skl", crumbs, search, name)
	}
	browser.Screenshot(t, ctx, "navigate-flame-zoom-1400.png")

	// The selected function's sandwich has the top table's cum.
	browser.Do(t, ctx,
		chromedp.Click(`[data-testid=flame-selected] [data-testid=flame-sandwich]`),
		chromedp.WaitVisible(`[data-testid=sandwich]`),
	)
	got, gotCum := browser.Text(t, ctx, `[data-testid=sandwich-name]`), browser.Attr(t, ctx, `[data-testid=sandwich-self] tbody tr`, "data-cum")
	if got != name || gotCum != strconv.FormatInt(cums[name], 10) {
		t.Errorf("clicked %s: sandwich of %s with cum %s; the top table says %d", name, got, gotCum, cums[name])
	}
	browser.Screenshot(t, ctx, "navigate-sandwich-1400.png")

	// The table beside the flame graph: a function's link opens its sandwich too,
	// and the cum head sorts it.
	browser.Do(t, ctx, chromedp.Navigate(flameURL), chromedp.WaitVisible(`[data-testid=side-table] [data-testid=top-row]`))
	first := browser.Text(t, ctx, `[data-testid=side-table] [data-testid=top-row]:first-child [data-testid=name]`)
	browser.Do(t, ctx,
		chromedp.Click(`[data-testid=side-table] [data-testid=top-row]:first-child a[data-testid=name]`),
		chromedp.WaitVisible(`[data-testid=sandwich]`),
	)
	if c := browser.Attr(t, ctx, `[data-testid=sandwich-self] tbody tr`, "data-cum"); c != strconv.FormatInt(cums[first], 10) {
		t.Errorf("the side table's %s opens a sandwich with cum %s; the top table says %d", first, c, cums[first])
	}
	browser.Do(t, ctx, chromedp.Navigate(ts.URL+page.ReportURL(up.ReportID)), chromedp.WaitVisible(`[data-testid=top-table]`))
	before := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-testid=top-row]")).map(r => r.getAttribute("data-cum"))`))
	browser.Do(t, ctx, chromedp.Click(`[data-testid=sort-cum] a`), chromedp.WaitVisible(`[data-testid=sort-cum][aria-sort=descending]`))
	after := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-testid=top-row]")).map(r => r.getAttribute("data-cum"))`))
	values := make([]int64, len(after))
	for i, v := range after {
		values[i], _ = strconv.ParseInt(v, 10, 64)
	}
	if slices.Equal(before, after) || !slices.IsSortedFunc(values, func(a, b int64) int { return int(abs(b) - abs(a)) }) {
		t.Errorf("sort by cum: %v → %v; want a new order, largest cum first", before[:5], after[:5])
	}
	browser.Screenshot(t, ctx, "navigate-top-sorted-1400.png")

	// At 390 px the flame graph stands alone, without sideways scrolling.
	browser.Do(t, ctx, chromedp.EmulateViewport(390, 900), chromedp.Navigate(flameURL), chromedp.WaitVisible(`[data-testid=flame-crumb]`))
	if shown := browser.Get(t, ctx, chromedp.Evaluate[bool](`getComputedStyle(document.querySelector("[data-testid=side-table]")).display !== "none"`)); shown {
		t.Error("the side table shows beside the flame graph on a phone")
	}
	if w := browser.Get(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 390 {
		t.Errorf("the flame page is %d px wide at 390", w)
	}
	browser.Screenshot(t, ctx, "navigate-flame-390.png")
	browser.Do(t, ctx, chromedp.Navigate(ts.URL+page.ReportURL(up.ReportID)+"?view=sandwich&fn="+first), chromedp.WaitVisible(`[data-testid=sandwich]`))
	if w := browser.Get(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 390 {
		t.Errorf("the sandwich page is %d px wide at 390", w)
	}
	browser.Screenshot(t, ctx, "navigate-sandwich-390.png")
}

// TestBrowserDashboardSearchAndDownload searches the dashboard by label and by
// SHA-256 prefix, and downloads a file under the name it was uploaded as.
func TestBrowserDashboardSearchAndDownload(t *testing.T) {
	ctx := browser.New(t, 120*time.Second)
	ts := newTestServer(t, Config{})
	heap := fixture(t, "pprof", "flameshow-heap.pb.gz")
	heap.name = "checkout heap 0900 ünï (eu).pb.gz"
	up := ts.mustUpload(t, map[string]string{"label": "INC-4711 checkout OOM"}, heap)
	other := ts.mustUpload(t, nil, fixture(t, "goroutines", "goprofnotes-snap1-debug2.txt"))
	browser.Do(t, ctx, chromedp.EmulateViewport(1400, 1000))
	for _, q := range []string{"INC-4711", up.Artifacts[0].SHA256[:12]} {
		browser.Do(t, ctx,
			chromedp.Navigate(ts.URL+"/"),
			chromedp.WaitVisible(`[data-testid=report-search]`),
			chromedp.SendKeys(`[data-testid=report-search]`, q),
			chromedp.Click(`[data-testid=report-search-submit]`),
			chromedp.WaitVisible(`[data-testid=report-search-clear]`),
		)
		links := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-testid=report-link]")).map(a => a.getAttribute("href"))`))
		if len(links) != 1 || links[0] != up.ReportURL || links[0] == other.ReportURL {
			t.Errorf("search %q lists %v; want only %s", q, links, up.ReportURL)
		}
	}
	browser.Screenshot(t, ctx, "navigate-dashboard-search-1400.png")
	browser.Do(t, ctx, chromedp.EmulateViewport(390, 900), chromedp.Reload(), chromedp.WaitVisible(`[data-testid=report-search]`))
	if w := browser.Get(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 390 {
		t.Errorf("the dashboard is %d px wide at 390", w)
	}
	browser.Screenshot(t, ctx, "navigate-dashboard-search-390.png")
	// What a refused upload links to fits a phone too.
	browser.Do(t, ctx, chromedp.Navigate(ts.URL+"/kinds"), chromedp.WaitVisible(`[data-testid=kinds]`))
	if w := browser.Get(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 390 {
		t.Errorf("/kinds is %d px wide at 390", w)
	}
	browser.Screenshot(t, ctx, "navigate-kinds-390.png")

	// The download lands under the uploaded name.
	dir := t.TempDir()
	if _, err := chromedp.CallBrowser(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir}); err != nil {
		t.Fatal(err)
	}
	browser.Do(t, ctx, chromedp.EmulateViewport(1400, 1000),
		chromedp.Navigate(ts.URL+up.ReportURL),
		chromedp.WaitVisible(`[data-testid=top-table]`),
		chromedp.Click(`a[href="`+up.Artifacts[0].URL+`"]`),
	)
	want := filepath.Join(dir, heap.name)
	var got []byte
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if b, err := os.ReadFile(want); err == nil && len(b) == len(heap.data) {
			got = b
			break
		}
	}
	if !bytes.Equal(got, heap.data) {
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the download is not %q with the uploaded bytes; the folder holds %v", heap.name, names)
	}
}
