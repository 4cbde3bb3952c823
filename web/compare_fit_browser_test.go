package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/lab"
)

// realLabServer is a test server whose lab runs the real leakui binary, built
// from this module, as its workload: the checkpoint model with its embedded
// broker and the recovery model, as `leakui serve` runs them.
func realLabServer(t *testing.T) *testServer {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "leakui")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/leakui/leakui/cmd/leakui").CombinedOutput()
	if err != nil {
		t.Fatalf("go build leakui: %v\n%s", err, out)
	}
	return newTestServer(t, Config{Lab: &lab.Config{Executable: bin, TempDir: t.TempDir(), Hold: 30 * time.Second}, RunsPerMinute: -1})
}

// startPreset starts a preset run and waits for its end.
func startPreset(t *testing.T, ts *testServer, preset string) runJSON {
	t.Helper()
	code, out := postJSON(t, ts.URL+"/api/runs", `{"preset":"`+preset+`"}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST preset %s: %d %v", preset, code, out)
	}
	r := waitRun(t, ts, out["id"])
	if r.Status != lab.StatusDone {
		t.Fatalf("%s run: %+v", preset, r)
	}
	return r
}

// comparePageFit is a pageFit with the page's height, the headline's text and
// whether any run's own page shows without being unfolded.
type comparePageFit struct {
	pageFit
	Height   int    `json:"height"`
	Headline string `json:"headline"`
	Open     int    `json:"open"`
}

const measureCompareFit = `(() => {
	const f = ` + measurePageFit + `;
	f.height = document.documentElement.scrollHeight;
	f.headline = document.querySelector("[data-testid=compare-headline]").textContent;
	f.open = document.querySelectorAll("details.compare-detail[open]").length;
	return f;
})()`

// TestBrowserRealRunComparisonFits runs the SAMZA-2785 production storm leaky
// and with pr1674, and KAFKA-3933's gzip recovery leaky and with drain, with the
// real leakui workloads. Each comparison, at 1400 and 390 px, opens with a
// headline computed from the runs' counters within the first 400 px, does not
// scroll sideways, squeezes no table cell below eight characters, folds each
// run's page away and stays under a height bound. A KAFKA-3933 run offers only
// KAFKA-3933 runs to compare with, and says so when there is none; its verdict
// is one sentence with one off-heap figure, the others labelled in the folded
// details; the pr1674 run says why its memory rose beside "no leak"; titles name
// the bug and the code.
func TestBrowserRealRunComparisonFits(t *testing.T) {
	ts := realLabServer(t)
	leaky := startPreset(t, ts, "samza-2785-production")
	fixed := startPreset(t, ts, "samza-2785-pr1674")
	gzipLeaky := startPreset(t, ts, "kafka-3933-gzip-leaky")
	ctx := browser.New(t, 4*time.Minute)

	// The only KAFKA-3933 run so far: no SAMZA-2785 run is offered.
	browser.Do(t, ctx, chromedp.EmulateViewport(1400, 900), chromedp.Navigate(ts.URL+"/runs/"+gzipLeaky.ID), chromedp.WaitVisible(`[data-testid=verdict-banner]`))
	if none := browser.Get(t, ctx, chromedp.Evaluate[string](`(document.querySelector("[data-testid=compare-with-none]") || {}).textContent || ""`)); none != "No other KAFKA-3933 recovery run to compare with yet." {
		t.Errorf("the only KAFKA-3933 run's Compare with… says %q", none)
	}
	gzipDrain := startPreset(t, ts, "kafka-3933-gzip-drain")

	for _, w := range []int64{1400, 390} {
		browser.Do(t, ctx, chromedp.EmulateViewport(w, 900), chromedp.Navigate(ts.URL+"/runs/"+gzipLeaky.ID), chromedp.WaitVisible(`[data-testid=verdict-banner]`))
		offered := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-testid=compare-with-run] option")).map(o => o.value + " " + o.textContent)`))
		if len(offered) != 1 || !strings.HasPrefix(offered[0], gzipDrain.ID+" KAFKA-3933, fixed by drain (0.10.0.1): ") {
			t.Errorf("a KAFKA-3933 run offers %q, want only the drain run %s", offered, gzipDrain.ID)
		}
		reason := browser.Text(t, ctx, `[data-testid=run-reason]`)
		c := gzipLeaky.Counters
		open := c["iterators_opened"] - c["iterators_closed"]
		want := fmt.Sprintf("%d deep iterators opened and %d closed: the %d left open hold %s resident outside the Go heap.",
			c["iterators_opened"], c["iterators_closed"], open, mib(c["offheap_resident_bytes"]))
		if reason != want {
			t.Errorf("KAFKA-3933 verdict %q, want %q", reason, want)
		}
		if notes := browser.Get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-testid=verdict-banner] .verdict-note").length`)); notes != 0 {
			t.Errorf("the KAFKA-3933 banner has %d notes below its one sentence", notes)
		}
		details := browser.Get(t, ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-testid=run-details]:not([open]) [data-testid=run-detail-lines] li")).map(e => e.textContent)`))
		joined := strings.Join(details, "\n")
		for _, label := range []string{"Off-heap resident (the verdict's figure): " + mib(c["offheap_resident_bytes"]), "Off-heap mapped: " + mib(c["offheap_bytes"]), "RSS − Go heap in use: "} {
			if !strings.Contains(joined, label) {
				t.Errorf("the folded details lack %q:\n%s", label, joined)
			}
		}
		if title := browser.Text(t, ctx, `[data-testid=run-title]`); !strings.HasPrefix(title, "KAFKA-3933, leaky: ") {
			t.Errorf("KAFKA-3933 leaky run's title %q", title)
		}
		shot(t, ctx, "run-kafka-3933-"+strconv.FormatInt(w, 10)+".png")

		browser.Do(t, ctx, chromedp.Navigate(ts.URL+"/runs/"+fixed.ID), chromedp.WaitVisible(`[data-testid=verdict-banner]`))
		first, last := fixed.Progress.Points[0], fixed.Progress.Points[len(fixed.Progress.Points)-1]
		note := browser.Get(t, ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll("[data-testid=verdict-banner] .verdict-note")).map(e => e.textContent).join("\n")`))
		// The fixed run's RSS rises by a few MB around the 4 MiB from which the
		// note says why; its live heap holds steady.
		if last.RSS-first.RSS < 4<<20 {
			if note != "" {
				t.Errorf("pr1674 beside no leak, RSS %d → %d: a note %q", first.RSS, last.RSS, note)
			}
		} else if wantNote := fmt.Sprintf("Why memory still rose (RSS %s → %s) with no leak: no consumer stayed open (0) and goroutines went %d → %d; the live Go heap held steady, ",
			analyze.FormatBytes(first.RSS), analyze.FormatBytes(last.RSS), first.Goroutines, last.Goroutines); !strings.HasPrefix(note, wantNote) {
			t.Errorf("pr1674 beside no leak: %q, want it to start %q", note, wantNote)
		}
		if title := browser.Text(t, ctx, `[data-testid=run-title]`); !strings.HasPrefix(title, "SAMZA-2785, fixed by pr1674: ") {
			t.Errorf("pr1674 run's title %q", title)
		}
		shot(t, ctx, "run-pr1674-"+strconv.FormatInt(w, 10)+".png")
	}

	// The runs' Markdown carries the same sentences: the one-sentence verdict
	// with its details one level down, the reason a fixed run's memory rose.
	if _, _, md := ts.get(t, "/runs/"+gzipLeaky.ID+".md"); !strings.Contains(string(md), "\n- "+gzipLeaky.Reason+"\n  - Off-heap resident (the verdict's figure): ") ||
		!strings.Contains(string(md), "\n  - Off-heap mapped: "+mib(gzipLeaky.Counters["offheap_bytes"])) {
		t.Errorf("the KAFKA-3933 run's Markdown lacks its verdict and details:\n%s", md)
	}
	fixedFirst, fixedLast := fixed.Progress.Points[0], fixed.Progress.Points[len(fixed.Progress.Points)-1]
	if _, _, md := ts.get(t, "/runs/"+fixed.ID+".md"); fixedLast.RSS-fixedFirst.RSS >= 4<<20 && !strings.Contains(string(md), "\n- Why memory still rose (RSS ") {
		t.Errorf("the pr1674 run's Markdown does not say why its memory rose:\n%s", md)
	}

	for _, pair := range []struct {
		name     string
		a, b     runJSON
		headline string
	}{
		{"samza-2785", fixed, leaky, fmt.Sprintf("pr1674 closes %s of %s consumers; leaky leaves %s of %s consumers open",
			count(fixed.Counters["consumer_stops"]), count(fixed.Counters["consumer_starts"]),
			count(leaky.Counters["consumer_starts"]-leaky.Counters["consumer_stops"]), count(leaky.Counters["consumer_starts"]))},
		{"kafka-3933", gzipLeaky, gzipDrain, fmt.Sprintf("leaky leaves %s of %s deep iterators open, %s off-heap resident; drain closes %s of %s deep iterators, %s off-heap resident",
			count(gzipLeaky.Counters["iterators_opened"]-gzipLeaky.Counters["iterators_closed"]), count(gzipLeaky.Counters["iterators_opened"]), mib(gzipLeaky.Counters["offheap_resident_bytes"]),
			count(gzipDrain.Counters["iterators_closed"]), count(gzipDrain.Counters["iterators_opened"]), mib(gzipDrain.Counters["offheap_resident_bytes"]))},
	} {
		q := "?a=" + pair.a.ID + "&b=" + pair.b.ID
		for _, w := range []int64{1400, 390} {
			what := fmt.Sprintf("%s comparison at %d px", pair.name, w)
			browser.Do(t, ctx, chromedp.EmulateViewport(w, 900), chromedp.Navigate(ts.URL+"/runs/compare"+q), chromedp.WaitVisible(`[data-testid=compare-headline]`), chromedp.Sleep(300*time.Millisecond))
			fit := browser.Get(t, ctx, chromedp.Evaluate[comparePageFit](measureCompareFit))
			for i := 0; i < 10 && fit.ScrollWidth > fit.InnerWidth; i++ {
				browser.Do(t, ctx, chromedp.Sleep(200*time.Millisecond))
				fit = browser.Get(t, ctx, chromedp.Evaluate[comparePageFit](measureCompareFit))
			}
			if fit.ScrollWidth > fit.InnerWidth {
				t.Errorf("%s: the page is %d px wide: it scrolls sideways", what, fit.ScrollWidth)
			}
			if len(fit.Squeezed) > 0 {
				t.Errorf("%s: table cells squeezed below eight characters:\n  %s", what, strings.Join(fit.Squeezed, "\n  "))
			}
			if fit.VerdictTop < 0 || fit.VerdictTop > 400 {
				t.Errorf("%s: the headline starts at %d px, not within the first 400", what, fit.VerdictTop)
			}
			if fit.Headline != pair.headline {
				t.Errorf("%s: headline %q, want %q", what, fit.Headline, pair.headline)
			}
			if bound := map[int64]int{1400: 4000, 390: 8000}[w]; fit.Height > bound {
				t.Errorf("%s: the page is %d px tall, more than %d", what, fit.Height, bound)
			}
			if fit.Open != 0 {
				t.Errorf("%s: %d runs' own pages are unfolded", what, fit.Open)
			}
			// The key figures sit beside each other within the first screen.
			keyBottom := browser.Get(t, ctx, chromedp.Evaluate[float64](`document.querySelector("[data-testid=compare-key]").getBoundingClientRect().bottom + window.scrollY`))
			if keyBottom > 900 {
				t.Errorf("%s: the key figures end %.0f px down, below the first screen", what, keyBottom)
			}
			shot(t, ctx, "run-compare-"+pair.name+"-"+strconv.FormatInt(w, 10)+".png")
			// Unfolded, each run's page takes the full width: its suspects
			// and diff tables squeeze no cell and the page does not scroll
			// sideways.
			browser.Do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelectorAll("details").forEach(d => d.open = true)`), chromedp.Sleep(300*time.Millisecond))
			open := browser.Get(t, ctx, chromedp.Evaluate[comparePageFit](measureCompareFit))
			if open.ScrollWidth > open.InnerWidth {
				t.Errorf("%s, unfolded: the page is %d px wide: it scrolls sideways", what, open.ScrollWidth)
			}
			if len(open.Squeezed) > 0 {
				t.Errorf("%s, unfolded: table cells squeezed below eight characters:\n  %s", what, strings.Join(open.Squeezed, "\n  "))
			}
		}
		// The JSON and Markdown twins carry the same headline.
		code, _, body := ts.get(t, "/api/runs/compare"+q)
		var doc struct {
			Headline string `json:"headline"`
		}
		if code != 200 || json.Unmarshal(body, &doc) != nil || doc.Headline != pair.headline {
			t.Errorf("%s JSON: %d headline %q, want %q", pair.name, code, doc.Headline, pair.headline)
		}
		code, _, md := ts.get(t, "/runs/compare.md"+q)
		if code != 200 || !strings.Contains(string(md), "\n**"+pair.headline+"**\n") {
			t.Errorf("%s Markdown: %d, no headline %q in\n%s", pair.name, code, pair.headline, md)
		}
	}
}

func count(n int64) string { return analyze.FormatCount(n) }

// mib is a byte count as the lab's verdicts write it (binary units, one decimal).
func mib(n int64) string {
	v, u := float64(n), "B"
	for _, unit := range []string{"kB", "MB", "GB"} {
		if v < 1024 {
			break
		}
		v /= 1024
		u = unit
	}
	if u == "B" {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", v, u)
}
