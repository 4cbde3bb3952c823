package web

import (
	"fmt"
	"strings"

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

// logBanner is the verdict of a log report: the pair with the most never closed,
// or the lines counted when there is no pair.
func logBanner(p view.LogReportPage) *view.Banner {
	// The totals (lines, bytes, still open per pair) follow right below: the
	// banner does not repeat them.
	b := &view.Banner{State: "counted"}
	label := p.Lines + " lines"
	// Only a pair with lines is judged: one with neither a start nor a close
	// line says nothing, and never reads as closed.
	worst, unmeasured := -1, []string{}
	for i, pr := range p.Pairs {
		if !pr.Measurable {
			unmeasured = append(unmeasured, pr.Name)
			continue
		}
		if worst < 0 || pr.OpenValue > p.Pairs[worst].OpenValue {
			worst = i
		}
	}
	switch {
	case worst >= 0 && p.Pairs[worst].OpenValue > 0:
		pr := p.Pairs[worst]
		b.State, label, b.Class = "open", pr.Open+" never closed", "bad"
		b.Reason = fmt.Sprintf("%s: %s started and %s closed, so %s were never closed by the end of the log.", pr.Name, pr.Starts, pr.Closes, pr.Open)
	case worst >= 0:
		pr := p.Pairs[worst]
		b.State, label, b.Class = "closed", "all closed", "good"
		b.Reason = fmt.Sprintf("%s: %s started and %s closed; none left open.", pr.Name, pr.Starts, pr.Closes)
	case len(unmeasured) > 0:
		b.State, label, b.Class = "not-measurable", "not measurable", "warn"
		them := "any of them"
		if len(unmeasured) == 1 {
			them = "it"
		}
		b.Reason = fmt.Sprintf("%s: not measurable. No line starts or closes %s, so the log cannot say whether anything was left open.",
			strings.Join(unmeasured, ", "), them)
	default:
		b.Reason = fmt.Sprintf("%s lines counted with %d patterns; no start/close pair was given, so nothing is judged open.", p.Lines, len(p.Patterns))
	}
	if worst >= 0 && len(unmeasured) > 0 {
		b.Notes = append(b.Notes, fmt.Sprintf("Not measurable (no line starts or closes them): %s.", strings.Join(unmeasured, ", ")))
	}
	b.Badges = []view.Badge{{Label: label, Class: b.Class, TestID: "verdict-state"}}
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

// goroutineBanner is the verdict of a goroutine dump report: a crash, the
// runtime's proof of leaked goroutines, the growth of a comparison, or the count
// and the largest group.
func goroutineBanner(g view.GoroutineGroups) *view.Banner {
	b := &view.Banner{State: "dump"}
	label := analyze.FormatCount(int64(g.Total)) + " goroutines"
	largest := ""
	if len(g.Groups) > 0 {
		largest = fmt.Sprintf("; the largest group is %s goroutines in %s", analyze.FormatCount(int64(g.Groups[0].Count)), g.Groups[0].Title)
	}
	switch {
	case g.Panic != nil:
		b.State, b.Class, label = "crash", "bad", g.Panic.Kind
		msg, _, _ := strings.Cut(g.Panic.Message, "\n")
		b.Reason = fmt.Sprintf("The program crashed (%s: %s) with %s goroutines%s.", g.Panic.Kind, msg, analyze.FormatCount(int64(g.Total)), largest)
	case g.ProvenLeaked || g.Leaked > 0:
		b.State, b.Class, label = "leak", "bad", analyze.FormatCount(int64(g.Leaked))+" proven leaked"
		b.Reason = fmt.Sprintf("The Go runtime proves %s goroutines leaked (blocked on something no other goroutine can reach)%s.", analyze.FormatCount(int64(g.Leaked)), largest)
	case g.Base != nil:
		d := g.Base
		b.State, label = "compared", "changed "+d.Change
		if d.Grew {
			b.State, b.Class, label = "grew", "warn", "grew "+d.Change
		}
		b.Reason = fmt.Sprintf("Goroutines went from %s in %s to %s in %s (%s): %d groups new or grown, %d gone.",
			analyze.FormatCount(int64(d.BaseTotal)), d.BaseName, analyze.FormatCount(int64(g.Total)), d.TargetName, d.Change, d.NewOrGrew, d.Gone)
	default:
		b.Reason = fmt.Sprintf("One dump of %s goroutines%s. One dump shows where goroutines wait, not whether they pile up: compare two dumps taken minutes apart.", analyze.FormatCount(int64(g.Total)), largest)
	}
	b.Badges = []view.Badge{{Label: label, Class: b.Class, TestID: "verdict-state"}}
	return b
}
