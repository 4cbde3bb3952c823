package runs

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/leakui/leakui/analyze"
	"github.com/leakui/leakui/lab"
	"github.com/leakui/leakui/web/page"
	"github.com/leakui/leakui/web/view"
)

// requestedComparison is the comparison of the two runs the request names
// (compareIDs), as the page and its JSON and Markdown twins show it.
func (s *Kind) requestedComparison(r *http.Request) (view.ComparePage, error) {
	ids, err := compareIDs(r)
	if err != nil {
		return view.ComparePage{}, err
	}
	return s.comparePage(r, ids)
}

// comparePage builds the comparison of two runs: the table of differences, each
// chart of both runs on one shared y scale, and each run's page without its
// charts (they are above, paired).
func (s *Kind) comparePage(r *http.Request, ids [2]string) (view.ComparePage, error) {
	var c view.ComparePage
	var progs [2]lab.Progress
	var specs [2]lab.Spec
	for i, id := range ids {
		pg, err := s.runPage(r, id)
		if err != nil {
			return c, err
		}
		run, p, err := s.runState(r, id)
		if err != nil {
			return c, err
		}
		page.Unmarshal(run.Spec, &specs[i])
		pg.CompareWith = nil
		c.Runs[i], progs[i] = pg, p
	}
	c.Headline = compareHeadline(specs, progs)
	if specs[0].Bug() == specs[1].Bug() {
		c.Bug = specs[0].Bug()
	}
	q := "?a=" + url.QueryEscape(ids[0]) + "&b=" + url.QueryEscape(ids[1])
	c.Links = []view.Link{{Label: "JSON", URL: "/api/runs/compare" + q}, {Label: "Markdown", URL: "/runs/compare.md" + q}}
	shared := runChartMax(progs[0])
	for id, v := range runChartMax(progs[1]) {
		shared[id] = max(shared[id], v)
	}
	charts := [2][]view.Chart{runCharts(progs[0], shared), runCharts(progs[1], shared)}
	for k, spec := range runChartSpecs {
		pair := view.ChartPair{ID: spec.id, Title: spec.title}
		for i := range 2 {
			if c.Runs[i].Charts == nil { // a capture run has no charts
				continue
			}
			pair.Charts[i] = charts[i][k]
		}
		if pair.Charts[0].ID != "" || pair.Charts[1].ID != "" {
			c.Charts = append(c.Charts, pair)
		}
	}
	for i := range 2 {
		c.Runs[i].Charts = nil
	}
	c.Diffs = compareRows(c.Runs, progs)
	for _, d := range c.Diffs {
		if compareKeyFigures[d.Key] {
			c.Key = append(c.Key, d)
		}
	}
	return c, nil
}

// compareFigures are the figures of a run the comparison lines up, with their
// unit ("bytes", "" for counts, "ms" for durations).
type compareFigure struct {
	key, label, unit string
	value            func(p lab.Progress) (float64, bool)
}

var compareFigures = []compareFigure{
	{"goroutines_growth", "goroutine growth, first → last", "", func(p lab.Progress) (float64, bool) {
		if len(p.Points) == 0 {
			return 0, false
		}
		return float64(p.Points[len(p.Points)-1].Goroutines - p.Points[0].Goroutines), true
	}},
	{"goroutines_per_step", "goroutine growth per step", "rate", func(p lab.Progress) (float64, bool) {
		return perStep(p, func(pt lab.Point) int64 { return pt.Goroutines })
	}},
	{"open_per_step", "still open, growth per step", "rate", func(p lab.Progress) (float64, bool) {
		return perStep(p, func(pt lab.Point) int64 { return pt.Open })
	}},
	{"peak_rss", "peak RSS", "bytes", func(p lab.Progress) (float64, bool) {
		return peak(p, func(pt lab.Point) int64 { return pt.RSS })
	}},
	{"peak_heap", "peak Go heap in use", "bytes", func(p lab.Progress) (float64, bool) {
		return peak(p, func(pt lab.Point) int64 { return pt.HeapInuse })
	}},
	{"offheap_growth", "RSS − Go heap in use, first → last", "bytes", func(p lab.Progress) (float64, bool) {
		if len(p.Points) == 0 {
			return 0, false
		}
		f, l := p.Points[0], p.Points[len(p.Points)-1]
		return float64((l.RSS - l.HeapInuse) - (f.RSS - f.HeapInuse)), true
	}},
	{"duration", "duration", "ms", func(p lab.Progress) (float64, bool) { return float64(p.ElapsedMs), p.ElapsedMs > 0 }},
	{"snapshots", "snapshots captured", "", func(p lab.Progress) (float64, bool) { return float64(p.Snapshots), true }},
}

// compareRows lines up the two runs' verdicts, counters and figures.
func compareRows(runs [2]view.RunPage, progs [2]lab.Progress) []view.CompareRow {
	var rows []view.CompareRow
	text := func(key, label string, a, b string) {
		rows = append(rows, view.CompareRow{Key: key, Label: label, Values: [2]string{a, b}, Differs: a != b})
	}
	verdict := func(p view.RunPage) string {
		if p.Verdict == "" {
			return p.Status
		}
		return runVerdictText(p.Verdict)
	}
	text("verdict", "verdict", verdict(runs[0]), verdict(runs[1]))
	text("steps", "steps", fmt.Sprintf("%d of %d", runs[0].Step, runs[0].Steps), fmt.Sprintf("%d of %d", runs[1].Step, runs[1].Steps))
	// Counters, by key, in the first run's order then the second's.
	seen := map[string]bool{}
	for i := range 2 {
		for _, c := range runs[i].Counters {
			if seen[c.Key] {
				continue
			}
			seen[c.Key] = true
			var v [2]float64
			var ok [2]bool
			for j := range 2 {
				v[j], ok[j] = counterValue(progs[j].Counters, c.Key)
			}
			unit := ""
			if c.Key == "offheap_bytes" || c.Key == "offheap_resident_bytes" {
				unit = "bytes"
			}
			rows = append(rows, numberRow(c.Key, c.Label, unit, v, ok))
		}
	}
	for _, f := range compareFigures {
		var v [2]float64
		var ok [2]bool
		for j := range 2 {
			v[j], ok[j] = f.value(progs[j])
		}
		if !ok[0] && !ok[1] {
			continue
		}
		rows = append(rows, numberRow(f.key, f.label, f.unit, v, ok))
	}
	return rows
}

func counterValue(c map[string]int64, key string) (float64, bool) {
	if key == "iterators_open" {
		o, ok1 := c["iterators_opened"]
		cl, ok2 := c["iterators_closed"]
		return float64(o - cl), ok1 || ok2
	}
	v, ok := c[key]
	return float64(v), ok
}

// numberRow formats a figure of both runs and the second minus the first.
func numberRow(key, label, unit string, v [2]float64, ok [2]bool) view.CompareRow {
	row := view.CompareRow{Key: key, Label: label}
	for j := range 2 {
		row.Values[j] = "–"
		if ok[j] {
			row.Values[j] = compareValue(v[j], unit, false)
		}
	}
	if ok[0] && ok[1] {
		row.Change = compareValue(v[1]-v[0], unit, true)
	}
	row.Differs = row.Values[0] != row.Values[1]
	return row
}

func compareValue(v float64, unit string, signed bool) string {
	var s string
	switch unit {
	case "bytes":
		s = analyze.FormatBytes(int64(v))
	case "ms":
		d := time.Duration(v) * time.Millisecond
		if d.Abs() < 10*time.Second {
			s = d.Round(10 * time.Millisecond).String()
		} else {
			s = d.Round(time.Second).String()
		}
	case "rate":
		s = fmt.Sprintf("%.2f", v)
	default:
		s = analyze.FormatCount(int64(v))
	}
	if signed && v > 0 {
		s = "+" + s
	}
	return s
}

// perStep is the growth of a figure per step between the first and last point.
func perStep(p lab.Progress, f func(lab.Point) int64) (float64, bool) {
	if len(p.Points) < 2 {
		return 0, false
	}
	a, b := p.Points[0], p.Points[len(p.Points)-1]
	if b.Step == a.Step {
		return 0, false
	}
	return float64(f(b)-f(a)) / float64(b.Step-a.Step), true
}

// peak is the largest value of a figure over the points.
func peak(p lab.Progress, f func(lab.Point) int64) (float64, bool) {
	if len(p.Points) == 0 {
		return 0, false
	}
	m := f(p.Points[0])
	for _, pt := range p.Points {
		m = max(m, f(pt))
	}
	return float64(m), true
}

// compareWith offers the recent runs of the same workload as id (a KAFKA-3933
// run never offers a SAMZA-2785 run) for a comparison; its Choices are empty
// when there is none.
func (s *Kind) compareWith(ctx context.Context, id string, spec lab.Spec) (*view.CompareWith, error) {
	runs, err := s.d.Store.RecentRuns(ctx, 100)
	if err != nil {
		return nil, err
	}
	c := &view.CompareWith{RunID: id, Workload: strings.TrimSpace(spec.Bug() + " " + spec.Workload)}
	for _, run := range runs {
		if run.ID == id || run.Workload != spec.Workload {
			continue
		}
		var other lab.Spec
		page.Unmarshal(run.Spec, &other)
		label := other.Title() + " (" + run.Status
		if run.Verdict != "" {
			label += ", " + runVerdictText(run.Verdict)
		}
		c.Choices = append(c.Choices, view.Pair{Value: run.ID, Label: label + ", " + page.FormatTime(run.CreatedAt) + ")"})
	}
	return c, nil
}

// compareKeyFigures are the rows the comparison shows first, side by side:
// the verdicts, what was opened and closed, the off-heap memory and the peaks.
var compareKeyFigures = map[string]bool{
	"verdict": true, "consumer_starts": true, "consumer_stops": true, "open_consumers": true,
	"iterators_opened": true, "iterators_closed": true, "iterators_open": true, "offheap_resident_bytes": true,
	"goroutines_growth": true, "peak_rss": true,
}

// compareHeadline is the comparison in one line from the runs' numbers: for
// SAMZA-2785 runs the consumers each closed or left open ("pr1674 closes 1,741
// of 1,741; leaky leaves 1,727 open"), for KAFKA-3933 runs the deep iterators
// and the off-heap memory they keep resident.
func compareHeadline(specs [2]lab.Spec, progs [2]lab.Progress) string {
	if specs[0].Workload != specs[1].Workload {
		return fmt.Sprintf("These runs reproduce different things (%s and %s): their numbers do not compare.",
			strings.TrimSpace(specs[0].Bug()+" "+specs[0].Workload), strings.TrimSpace(specs[1].Bug()+" "+specs[1].Workload))
	}
	names := [2]string{specs[0].Variant, specs[1].Variant}
	if names[0] == names[1] || names[0] == "" {
		names = [2]string{"A (" + names[0] + ")", "B (" + names[1] + ")"}
	}
	var parts []string
	for i := range 2 {
		parts = append(parts, names[i]+" "+headlineClause(specs[i], progs[i]))
	}
	return strings.Join(parts, "; ")
}

// headlineClause is what one run did, for the headline.
func headlineClause(spec lab.Spec, p lab.Progress) string {
	c := p.Counters
	count := analyze.FormatCount
	switch {
	case p.Status == lab.StatusRunning:
		return "is still running"
	case spec.Workload == lab.WorkloadCheckpoint && c != nil:
		starts, stops := c["consumer_starts"], c["consumer_stops"]
		if open := starts - stops; open > 0 {
			return fmt.Sprintf("leaves %s of %s consumers open", count(open), count(starts))
		}
		return fmt.Sprintf("closes %s of %s consumers", count(stops), count(starts))
	case spec.Workload == lab.WorkloadRecovery && spec.Variant == lab.VariantJVM && c["jvm_streams"] > 0:
		return fmt.Sprintf("(a real JVM) leaves %s GZIPInputStreams open, resident set %s",
			count(c["jvm_streams"]), analyze.FormatSignedValue(c["jvm_rss_after"]-c["jvm_rss_before"], "bytes"))
	case spec.Workload == lab.WorkloadRecovery && c != nil:
		opened, closed := c["iterators_opened"], c["iterators_closed"]
		s := fmt.Sprintf("closes %s of %s deep iterators", count(closed), count(opened))
		if open := opened - closed; open > 0 {
			s = fmt.Sprintf("leaves %s of %s deep iterators open", count(open), count(opened))
		}
		if r, ok := c["offheap_resident_bytes"]; ok {
			s += ", " + analyze.FormatBytes(r) + " off-heap resident"
		}
		return s
	}
	if p.Verdict != "" {
		return "ends with " + runVerdictText(p.Verdict)
	}
	return "is " + p.Status
}

// compareDescription is the comparison in one line for link previews.
func compareDescription(c view.ComparePage) string {
	var parts []string
	for i, r := range c.Runs {
		v := r.Status
		if r.Verdict != "" {
			v = runVerdictText(r.Verdict)
		}
		parts = append(parts, fmt.Sprintf("%c: %s — %s", 'A'+i, r.Title, v))
	}
	return strings.Join(parts, "; ")
}
