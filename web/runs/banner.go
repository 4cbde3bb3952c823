package runs

import (
	"fmt"

	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/web/view"
)

// runBanner is the verdict of a run: its verdict once ended, else its state, with
// the counters; when the run is a leak but its heap series shows no steady
// growth, a note says why the two differ.
func runBanner(p view.RunPage) *view.Banner {
	b := &view.Banner{State: p.Status, Class: p.StatusClass, Reason: p.Reason, ReasonTestID: "run-reason"}
	b.Badges = []view.Badge{{Label: p.Status, Class: p.StatusClass, TestID: "run-status"}}
	if p.Verdict != "" {
		b.State, b.Class = p.Verdict, runVerdictClass(p.Verdict)
		b.Badges = append(b.Badges, view.Badge{Label: runVerdictText(p.Verdict), Class: b.Class, TestID: "run-verdict"})
	}
	if b.Reason == "" {
		switch {
		case p.Error != "":
			b.Reason = p.Error
		case p.Running:
			b.Reason = "Running: the verdict comes when it ends; the progress, counters and charts below follow it live."
		default:
			b.Reason = "The run ended without a verdict."
		}
	}
	// The counters follow right below the banner (and update live): the banner
	// does not repeat them.
	// A run whose verdict has folded details (a recovery run) keeps its banner
	// to the one sentence: the note goes with the details (runPage).
	if note := heapSeriesNote(p); note != "" && len(p.Details) == 0 && p.Callout == "" {
		b.Notes = append(b.Notes, note)
	}
	return b
}

// heapSeriesNote says why a leaking run's heap series shows no steady growth,
// or "".
func heapSeriesNote(p view.RunPage) string {
	if p.Verdict == lab.VerdictLeak && p.Report != nil && p.Report.HeapSeries != nil && p.Report.HeapSeries.Verdict != string(series.Leak) {
		return fmt.Sprintf("Why the heap snapshots say %q while the run says leak: the run counts what the workload opened and never closed; the heap series looks only for a Go heap allocation site growing steadily, and what leaks here is held mostly by goroutines and outside the Go heap.",
			p.Report.HeapSeries.VerdictText)
	}
	return ""
}

func runVerdictText(v string) string {
	switch v {
	case lab.VerdictLeak:
		return "leak"
	case lab.VerdictNoLeak:
		return "no leak"
	}
	return v
}

func runVerdictClass(v string) string {
	if v == lab.VerdictLeak {
		return "bad"
	}
	return "good"
}
