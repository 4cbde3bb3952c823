package heapdumps_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/web"
	"github.com/leakui/leakui/web/heapdumps"
	"github.com/leakui/leakui/web/internal/webtest"
)

// TestBrowserHeapDump drives the real Chromium: choose a real heap dump in the
// dashboard's file input and land at once on its report, analyzing (the
// analysis slot is held so the progress page stays); once the analysis runs the
// page follows it and reloads into the report by itself. There: read the first
// suspect and its path from the GC root, load its dominator chain from the
// stored index and expand it, then expand two levels of the dominator tree
// lazily (the second with the keyboard); at 390 px the verdict is on the first
// screen and the page does not scroll sideways, analyzing and done.
func TestBrowserHeapDump(t *testing.T) {
	ctx := browser.New(t, 120*time.Second)
	ts := newTestServer(t, web.Config{})
	dump := webtest.LeakShapeDump(t, true, 4, 1<<20)
	path := filepath.Join(t.TempDir(), dump.Name)
	if err := os.WriteFile(path, dump.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	release := webtest.Hold(t, heapdumps.Analyses)
	browser.Do(t, ctx,
		chromedp.EmulateViewport(1400, 900),
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(`[data-testid=dropzone]`),
		chromedp.SetUploadFiles(`[data-testid=file-input]`, []string{path}),
		chromedp.WaitVisible(`[data-testid=analysis][data-status=analyzing] [data-testid=analysis-progress]`),
	)
	// The page may land before the job system has fetched the job ("Queued");
	// it follows the analysis live to "Waiting for the analyzer", the held slot.
	ctxWait, cancel := context.WithTimeout(ctx, 30*time.Second)
	err := chromedp.Do(ctxWait, chromedp.Poll[chromedp.Void](`document.querySelector("[data-testid=analysis-stage]").textContent === "Waiting for the analyzer"`))
	cancel()
	if err != nil {
		t.Errorf("the analyzing page's stage reads %q (%v), want it to follow to %q", browser.Text(t, ctx, `[data-testid=analysis-stage]`), err, "Waiting for the analyzer")
	}
	browser.Screenshot(t, ctx, "jvm-heapdump-analyzing.png")
	browser.Do(t, ctx, chromedp.EmulateViewport(390, 900), chromedp.Reload(), chromedp.WaitVisible(`[data-testid=analysis-progress]`))
	if w := browser.Get(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 390 {
		t.Errorf("at 390 px the analyzing page is %d px wide", w)
	}
	browser.Screenshot(t, ctx, "jvm-heapdump-analyzing-narrow.png")

	// The analysis runs, held while it computes the dominator tree: the page
	// follows it (stage and bar), then reloads into the report when it ends.
	atDominators, proceed := make(chan struct{}), make(chan struct{})
	var once sync.Once
	heapdumps.StageHook = func(_ context.Context, _, stage string) {
		if stage == "dominators" {
			once.Do(func() { close(atDominators); <-proceed })
		}
	}
	defer func() { heapdumps.StageHook = nil }()
	var resumed sync.Once
	resume := func() { resumed.Do(func() { close(proceed) }) }
	defer resume()
	browser.Do(t, ctx, chromedp.EmulateViewport(1400, 900), chromedp.Reload(), chromedp.WaitVisible(`[data-testid=analysis-progress]`))
	release()
	<-atDominators
	browser.Do(t, ctx, chromedp.Poll[chromedp.Void](`document.querySelector("[data-testid=analysis-stage]").textContent === "Computing the dominator tree"`))
	if pct := browser.Get(t, ctx, chromedp.Evaluate[int](`document.querySelector("[data-testid=analysis-progress]").value`)); pct <= 0 || pct >= 100 {
		t.Errorf("while the dominator tree is computed the bar is at %d%%", pct)
	}
	browser.Screenshot(t, ctx, "jvm-heapdump-progress.png")
	resume()
	browser.Do(t, ctx, chromedp.WaitVisible(`[data-testid=suspect]`))
	const first = `[data-testid=suspect][data-rank="1"]`
	if got := browser.Text(t, ctx, first+` [data-testid=suspect-sentence]`); !strings.HasPrefix(got, "4 instances of LeakShape$Consumer retain 4.0 MB") {
		t.Errorf("the first suspect reads %q", got)
	}
	// The first suspect's path is open; the second one's (if any) is folded.
	if got := browser.Text(t, ctx, first+` [data-testid=path-step]:last-child [data-testid=path-via]`); got != ".consumer" {
		t.Errorf("the last step of the path is reached through %q, want .consumer", got)
	}
	// Its dominator chain from the GC roots, from the index: the thread, then the
	// consumer, which expands to its buffer.
	const chain = first + ` [data-testid=dominator-chain]`
	browser.Do(t, ctx,
		chromedp.Click(first+` [data-testid=suspect-chain]`),
		chromedp.WaitVisible(chain+` > [data-testid=dominator]:last-child`),
	)
	if got := browser.Text(t, ctx, chain+` > [data-testid=dominator]:first-child [data-testid=dominator-class]`); got != "LeakShape$ConsumerThread" {
		t.Errorf("the chain starts at %q", got)
	}
	const accumulation = chain + ` > [data-testid=dominator]:last-child`
	if got := browser.Text(t, ctx, accumulation+` > [data-testid=dominator-class]`); got != "LeakShape$Consumer" {
		t.Errorf("the chain ends at %q", got)
	}
	browser.Do(t, ctx,
		chromedp.Click(accumulation+` > [data-testid=dominator-expand]`),
		chromedp.WaitVisible(accumulation+` > ul > [data-testid=dominator]:first-child`),
	)
	if got := browser.Text(t, ctx, accumulation+` > ul > [data-testid=dominator]:first-child [data-testid=dominator-class]`); got != "byte[]" {
		t.Errorf("the consumer in the chain dominates %q", got)
	}

	// The top level is grouped by class (one class has hundreds of objects
	// there): the largest row is the four consumer threads. Open the group,
	// then two levels of the tree below its largest thread: by mouse, then by
	// keyboard.
	const group = `[data-testid=dominators] > [data-testid=dominator-group]:nth-child(1)`
	const thread = group + ` > ul > [data-testid=dominator]:first-child`
	const consumer = thread + ` > ul > [data-testid=dominator]:first-child`
	const buffer = consumer + ` > ul > [data-testid=dominator]:first-child`
	if got := browser.Text(t, ctx, group+` > [data-testid=group-count]`); got != "4 ×" {
		t.Errorf("the largest group of the top level counts %q", got)
	}
	browser.Do(t, ctx,
		chromedp.Click(group+` > [data-testid=dominator-expand]`),
		chromedp.WaitVisible(thread),
		chromedp.Click(thread+` > [data-testid=dominator-expand]`),
		chromedp.WaitVisible(consumer),
		chromedp.Focus(consumer+` > [data-testid=dominator-expand]`),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(buffer),
	)
	if got := browser.Attr(t, ctx, thread+` > [data-testid=dominator-expand]`, "aria-expanded"); got != "true" {
		t.Errorf("the expanded thread's button says aria-expanded=%q", got)
	}
	if got := browser.Text(t, ctx, consumer+` > [data-testid=dominator-class]`); got != "LeakShape$Consumer" {
		t.Errorf("level 1 of the tree below the largest object: %q", got)
	}
	if got := browser.Text(t, ctx, buffer+` [data-testid=dominator-class]`); got != "byte[]" {
		t.Errorf("level 2: %q", got)
	}
	browser.Screenshot(t, ctx, "jvm-heapdump.png")

	browser.Do(t, ctx, chromedp.EmulateViewport(390, 900), chromedp.Reload(), chromedp.WaitVisible(`[data-testid=headline]`),
		chromedp.Click(group+` > [data-testid=dominator-expand]`), chromedp.WaitVisible(thread),
		chromedp.Click(thread+` > [data-testid=dominator-expand]`), chromedp.WaitVisible(consumer))
	scrollWidth := browser.Get(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
	if scrollWidth > 390 {
		t.Errorf("at 390 px the page is %d px wide", scrollWidth)
	}
	bottom := browser.Get(t, ctx, chromedp.Evaluate[float64](`document.querySelector('[data-testid=headline]').getBoundingClientRect().bottom`))
	if bottom > 900 {
		t.Errorf("the verdict ends %.0f px down, below the first screen", bottom)
	}
	browser.Screenshot(t, ctx, "jvm-heapdump-narrow.png")
}

// TestBrowserHeapDumpCompare drives the real Chromium: choose two real heap dumps
// at once in the dashboard's file input, land on their comparison, read the
// verdict and the consumers' retained growth; at 390 px the verdict is on the first
// screen and the page does not scroll sideways.
func TestBrowserHeapDumpCompare(t *testing.T) {
	ctx := browser.New(t, 120*time.Second)
	ts := newTestServer(t, web.Config{})
	dir := t.TempDir()
	var paths []string
	for _, n := range []int{2, 6} {
		dump, _ := leakShapeRun(t, n, 1<<20)
		path := filepath.Join(dir, dump.Name)
		if err := os.WriteFile(path, dump.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	browser.Do(t, ctx,
		chromedp.EmulateViewport(1400, 900),
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(`[data-testid=dropzone]`),
		chromedp.SetUploadFiles(`[data-testid=file-input]`, paths),
		chromedp.WaitVisible(`[data-testid=retained-table]`),
	)
	if got := browser.Text(t, ctx, `[data-testid=headline]`); !strings.Contains(got, ": 2 → 6 instances (+4)") {
		t.Errorf("the verdict reads %q", got)
	}
	if got := browser.Attr(t, ctx, `[data-testid=retained-row][data-class="LeakShape$Consumer"]`, "data-instances"); got != "4" {
		t.Errorf("the consumers' retained row counts %q more instances", got)
	}
	browser.Screenshot(t, ctx, "jvm-heapdump-compare.png")

	browser.Do(t, ctx, chromedp.EmulateViewport(390, 900), chromedp.Reload(), chromedp.WaitVisible(`[data-testid=headline]`))
	if w := browser.Get(t, ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); w > 390 {
		t.Errorf("at 390 px the page is %d px wide", w)
	}
	if bottom := browser.Get(t, ctx, chromedp.Evaluate[float64](`document.querySelector('[data-testid=headline]').getBoundingClientRect().bottom`)); bottom > 900 {
		t.Errorf("the verdict ends %.0f px down, below the first screen", bottom)
	}
	browser.Screenshot(t, ctx, "jvm-heapdump-compare-narrow.png")
}
