package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/analyze/jvm"
	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/internal/jvmtext"
)

// TestBrowserJavaHistogramDiff drives the real Chromium: choose two class
// histograms at once in the dashboard's file input, land on the diff, and read the
// leak suspect and the class that grew most from the page. It then opens a thread
// dump diff and a native memory diff for their screenshots.
func TestBrowserJavaHistogramDiff(t *testing.T) {
	ctx := browser.New(t, 90*time.Second)
	ts := newTestServer(t, Config{})
	dir := t.TempDir()
	baseText, _, _ := jvmHistogramText("2020-02-25 03:21:02", jvmSamzaHeap(14))
	targetText, _, _ := jvmHistogramText("2020-02-25 09:21:02", jvmSamzaHeap(1741))
	base, target := filepath.Join(dir, "samza-before.histo"), filepath.Join(dir, "samza-after.histo")
	for path, text := range map[string]string{base: baseText, target: targetText} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := jvm.DiffHistograms(jvmParseHistogram(t, []byte(baseText)), jvmParseHistogram(t, []byte(targetText)))
	topBytes, topSuspect := want.Grown(jvm.ByBytes, 1)[0], want.Suspects(1)[0]

	browser.Do(t, ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(`[data-testid=dropzone]`),
		chromedp.SetUploadFiles(`[data-testid=file-input]`, []string{target, base}),
		chromedp.WaitVisible(`[data-testid=suspects] [data-testid=change-table]`),
	)
	if url := browser.Get(t, ctx, chromedp.Location()); !strings.Contains(url, "/r/") {
		t.Fatalf("the upload did not land on a report: %s", url)
	}
	const suspect = `[data-testid=suspects] [data-testid=change-row]:first-child`
	if got := browser.Text(t, ctx, suspect+` [data-testid=class-name]`); got != topSuspect.Name || got != jvmSamzaConsumer {
		t.Errorf("the first suspect reads %q; want %s", got, topSuspect.Name)
	}
	if got := browser.Text(t, ctx, suspect+` [data-testid=instances-change]`); got != "+1,727" {
		t.Errorf("the suspect's growth reads %q, want +1,727", got)
	}
	const grown = `[data-testid=grown-bytes] [data-testid=change-row]:first-child`
	if got := browser.Text(t, ctx, grown+` [data-testid=class-name]`); got != topBytes.Name {
		t.Errorf("the top growing class reads %q; want %q", got, topBytes.Name)
	}
	if got := browser.Attr(t, ctx, grown, "data-bytes"); got != "8462300000" || topBytes.Bytes != 8462300000 {
		t.Errorf("its growth is %s bytes (engine %d); want 4,900,000 × 1,727", got, topBytes.Bytes)
	}
	if got := browser.Text(t, ctx, `[data-testid=snapshot]:first-child td.name`); got != "samza-before.histo" {
		t.Errorf("the oldest histogram is %q; the files were chosen newest first and must be ordered by their time", got)
	}
	browser.Screenshot(t, ctx, "jvm-histogram-diff.png")

	// The other two kinds, for their pictures.
	threads := ts.mustUpload(t, nil,
		file{"container-0321.jstack", []byte(jvmtext.Dump("2020-02-25 03:21:02", append(jvmContainerThreads(), jvmPollThreads(3)...)))},
		file{"container-0921.jstack", []byte(jvmtext.Dump("2020-02-25 09:21:02", append(jvmPollThreads(168), jvmContainerThreads()...)))})
	before, _, _ := jvmNMTSummaryText("2016-07-12 14:00:00", jvmKafkaBroker(0))
	after, _, _ := jvmNMTSummaryText("2016-07-12 14:30:00", jvmKafkaBroker(1200*1024))
	nmt := ts.mustUpload(t, nil, file{"broker-1400.nmt", []byte(before)}, file{"broker-1430.nmt", []byte(after)})
	browser.Do(t, ctx,
		chromedp.Navigate(ts.URL+threads.ReportURL),
		chromedp.WaitVisible(`[data-testid=thread-diff]`),
	)
	if got := browser.Text(t, ctx, `[data-testid=name-changes-row]:first-child [data-testid=label]`); got != jvmPollPattern {
		t.Errorf("the thread name that multiplied reads %q", got)
	}
	browser.Screenshot(t, ctx, "jvm-threads-diff.png")
	browser.Do(t, ctx,
		chromedp.Navigate(ts.URL+nmt.ReportURL),
		chromedp.WaitVisible(`[data-testid=native-leak]`),
	)
	if got := browser.Text(t, ctx, `[data-testid=nmt-change]:first-child [data-testid=category]`); got != "Internal" {
		t.Errorf("the category that grew most reads %q", got)
	}
	browser.Screenshot(t, ctx, "jvm-nmt-diff.png")
}
