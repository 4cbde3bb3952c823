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

// TestBrowserGoroutineDump drives the real Chromium: upload the erigon debug=1
// dump through the dashboard's file input, read the largest group's count and
// function, then open a comparison of two debug=2 dumps and open a group's
// goroutine ids from the keyboard.
func TestBrowserGoroutineDump(t *testing.T) {
	ctx := browser.New(t, 90*time.Second)
	ts := newTestServer(t, Config{})
	path := fixtures.Path(t, "goroutines", "erigon-debug1-20161-goroutines.txt")
	largest, fn := largestRecordByGrep(t, path)
	total := dumpTotalByGrep(t, path)
	const first = `[data-testid=goroutine-group]:first-child`

	browser.Do(t, ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(`[data-testid=dropzone]`),
		chromedp.SetUploadFiles(`[data-testid=file-input]`, []string{path}),
		chromedp.WaitVisible(`[data-testid=goroutine-groups]`),
	)
	url := browser.Get(t, ctx, chromedp.Location())
	if !strings.Contains(url, "/r/") {
		t.Fatalf("the upload did not land on a report: %s", url)
	}
	if got := browser.Text(t, ctx, `[data-testid=goroutine-total]`); got != strconv.Itoa(total) {
		t.Errorf("the page says %s goroutines; the dump's total line says %d", got, total)
	}
	count, name := browser.Text(t, ctx, first+` [data-testid=group-count]`), browser.Text(t, ctx, first+` [data-testid=group-func]`)
	if count != strconv.Itoa(largest) || name != fn {
		t.Errorf("the largest group shows %s × %s; grep reads %d × %s", count, name, largest, fn)
	}
	// A short page for the README's picture.
	browser.Do(t, ctx,
		chromedp.Navigate(url+"?n=6"),
		chromedp.WaitVisible(`[data-testid=goroutine-groups]`),
	)
	browser.Screenshot(t, ctx, "goroutines.png")

	// Two debug=2 dumps: what is new or grew first, with the ids one key away.
	_, diff, raw := ts.upload(t, fixture(t, "goroutines", "goprofnotes-snap1-debug2.txt"), fixture(t, "goroutines", "goprofnotes-snap2-debug2.txt"))
	if diff.ReportURL == "" {
		t.Fatal(raw)
	}
	want := goroutineReportDoc(t, ts, "/api/reports/"+diff.ReportID).Analysis.Groups[0]
	summary := first + ` [data-testid=group-ids] summary`
	list := first + ` [data-testid=group-id-list]`
	browser.Do(t, ctx,
		chromedp.Navigate(ts.URL+diff.ReportURL+"?n=3"),
		chromedp.WaitVisible(`[data-testid=goroutine-groups]`),
	)
	if hidden := browser.Get(t, ctx, chromedp.Evaluate[bool](`document.querySelector("`+list+`").checkVisibility()`)); hidden {
		t.Error("the ids are shown before they are asked for")
	}
	browser.Do(t, ctx,
		chromedp.Focus(summary),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(list),
	)
	ids := strings.Fields(browser.Text(t, ctx, list))
	var wantIDs []string
	for _, id := range want.IDs {
		wantIDs = append(wantIDs, strconv.FormatInt(id, 10))
	}
	if strings.Join(ids, " ") != strings.Join(wantIDs, " ") || len(ids) == 0 {
		t.Errorf("the opened ids are %v; the report says %v", ids, wantIDs)
	}
	if got := browser.Attr(t, ctx, first+` [data-testid=group-change]`, "data-delta"); got != strconv.Itoa(*want.Delta) {
		t.Errorf("the first group's change is %s, the report says %d", got, *want.Delta)
	}
	browser.Screenshot(t, ctx, "goroutines-diff.png")
}
