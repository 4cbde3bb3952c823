package web

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/leakui/leakui/internal/browser"
	"github.com/leakui/leakui/lab"
)

// TestBrowserLivePhaseCountersAndCaptions opens a run while it is in a phase
// without cycles (the test workload's "prepare", held by a gate file): the page
// shows the phase line and the counters, not yet known; once the cycles run, the
// counters fill in from the events, and each chart's caption names the same
// cycle as the progress line.
func TestBrowserLivePhaseCountersAndCaptions(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	t.Setenv("LEAKUI_LAB_PHASE", "3")
	t.Setenv("LEAKUI_LAB_GATE", gate)
	ts := labServer(t, "30ms", lab.Config{Snapshots: 4})
	code, out := postJSON(t, ts.URL+"/api/runs", `{"workload":"checkpoint","variant":"leaky","mode":"active","cycles":40,"tasks":1}`)
	if code != http.StatusAccepted {
		t.Fatalf("POST: %d %v", code, out)
	}
	ctx := browser.New(t, 120*time.Second)
	browser.Do(t, ctx, chromedp.EmulateViewport(1400, 900), chromedp.Navigate(ts.URL+"/runs/"+out["id"]))
	// The phase line appears while the workload waits at the gate.
	browser.Do(t, ctx, chromedp.WaitVisible(`[data-testid=run-phase]`))
	if phase := browser.Text(t, ctx, `[data-testid=run-phase]`); phase != "prepare 3 of 3" {
		t.Errorf("phase line %q, want prepare 3 of 3", phase)
	}
	if n := browser.Get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-counter]").length`)); n != 3 {
		t.Errorf("%d counters on the page before the first cycle, want 3", n)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	browser.Do(t, ctx, chromedp.Poll[chromedp.Void](`(() => { const c = document.querySelector("[data-testid=counter-consumer_starts]"); return c && /^[0-9]/.test(c.textContent); })()`))
	// One reading of the progress line and every caption.
	got := browser.Get(t, ctx, chromedp.Evaluate[[]string](`[document.querySelector("[data-testid=run-step]").textContent].concat(Array.from(document.querySelectorAll("[data-testid=run] figure [data-xmax]")).map(e => e.textContent))`))
	step := regexp.MustCompile(`^cycle (\d+) of 40$`).FindStringSubmatch(strings.TrimSpace(got[0]))
	if step == nil || len(got) != 4 {
		t.Fatalf("progress line and captions %q", got)
	}
	for _, caption := range got[1:] {
		if caption != "cycle "+step[1] {
			t.Errorf("a caption says %q while the page says %q", caption, got[0])
		}
	}
	if browser.Get(t, ctx, chromedp.Evaluate[bool](`!document.querySelector("[data-testid=run-phase]").hidden`)) {
		t.Error("the phase line stays after the cycles began")
	}
	waitRun(t, ts, out["id"])
}
