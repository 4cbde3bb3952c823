package web

import (
	"fmt"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/analyze/series"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/web/view"
)

// diffBanner is the verdict of a diff: how the total moved and the largest change.
func diffBanner(d view.DiffTable) *view.Banner {
	b := &view.Banner{State: "unchanged", Class: "good"}
	label := "unchanged"
	switch {
	case d.Grew:
		b.State, label, b.Class = "grew", "grew "+d.Change, "warn"
	case d.Change != "0" && d.Change != "0 B":
		b.State, label = "shrank", "shrank "+d.Change
	}
	b.Badges = []view.Badge{{Label: label, Class: b.Class, TestID: "verdict-state"}}
	b.Reason = fmt.Sprintf("Total %s went from %s to %s (%s, %s) between %s and %s", d.SampleType, d.Base, d.Target, d.Change, d.Ratio, d.BaseName, d.TargetName)
	if len(d.Rows) > 0 {
		b.Reason += fmt.Sprintf("; the largest change is %s (%s flat).", d.Rows[0].Name, d.Rows[0].Flat)
	} else {
		b.Reason += "."
	}
	b.Numbers = []view.Pair{{Label: "base", Value: d.Base}, {Label: "target", Value: d.Target}, {Label: "change", Value: d.Change + " " + d.Ratio}}
	return b
}

// topBanner is the headline of one profile: its total and its largest function.
func topBanner(t view.TopTable) *view.Banner {
	b := &view.Banner{State: "profile", Badges: []view.Badge{{Label: "one profile", TestID: "verdict-state"}}}
	b.Reason = fmt.Sprintf("One profile: %s totals %s.", t.SampleType, t.Total)
	if len(t.Rows) > 0 {
		r := t.Rows[0]
		b.Reason = fmt.Sprintf("One profile: %s totals %s; the largest is %s with %s flat (%s). A single profile shows where memory is, not whether it grows: upload 8–12 snapshots over time for a leak verdict.",
			t.SampleType, t.Total, r.Name, r.Flat, r.FlatPct)
		b.Numbers = []view.Pair{{Label: "total", Value: t.Total}, {Label: "functions", Value: analyze.FormatCount(int64(t.All))}}
	}
	return b
}

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
	if p.Verdict == lab.VerdictLeak && p.Report != nil && p.Report.HeapSeries != nil && p.Report.HeapSeries.Verdict != string(series.Leak) {
		b.Notes = append(b.Notes, fmt.Sprintf("Why the heap snapshots say %q while the run says leak: the run counts what the workload opened and never closed; the heap series looks only for a Go heap allocation site growing steadily, and what leaks here is held mostly by goroutines and outside the Go heap.",
			p.Report.HeapSeries.VerdictText))
	}
	return b
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
