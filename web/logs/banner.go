package logs

import (
	"fmt"
	"strings"

	"github.com/leakui/leakui/web/view"
)

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
